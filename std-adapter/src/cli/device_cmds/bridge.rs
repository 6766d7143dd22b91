//! `embedded-mcp bridge`: the MCP stdio server in front of a device.

use super::{options, usage_error, OptionError, FAILURE, OK};
use crate::bridge::{self, BridgeConfig};
use crate::device::{child, Endpoint, Logger};
/// `embedded-mcp bridge ...`: runs the MCP stdio server until stdin closes.
pub fn bridge_main(args: &[String]) -> i32 {
    let o = match options("bridge", args) {
        Ok(o) => o,
        Err(code) => return code,
    };
    if super::bridge_http::misplaced(&o.http) {
        let e = OptionError::Unexpected("--token-file/--allowed-origin without --http".into());
        return usage_error("bridge", &e);
    }
    let endpoint = match o.no_positional().and_then(|()| {
        if o.devices.is_empty() {
            o.endpoint()
        } else {
            Ok(Endpoint::Tcp(String::new())) // not used by a hub
        }
    }) {
        Ok(e) => e,
        Err(e) => return usage_error("bridge", &e),
    };
    let log = Logger::stderr(o.verbosity, "embedded-mcp bridge");
    if let Err(e) = child::stop_children_on_signals() {
        log.warn(format_args!("cannot install signal handlers: {e}"));
    }
    let mut config = if o.devices.is_empty() {
        BridgeConfig::new(endpoint)
    } else {
        BridgeConfig::hub(o.devices.clone())
    };
    if let Some(pages) = o.pages {
        config.pages = pages;
    }
    config.timeout = o.timeout;
    config.on_invalid = o.on_invalid;
    if let Some(n) = o.reconnect_attempts {
        config.reconnect.attempts = n;
    }
    if let Some(d) = o.startup_retry {
        config.startup_retry = d;
    }
    // The HTTP front (`--http`): the same bridge, serving HTTP clients instead of stdio.
    if o.http.bind.is_some() {
        return super::bridge_http::serve_http(&o.http, config, &log);
    }
    let outcome = bridge::run(config, std::io::stdin(), std::io::stdout(), log.clone());
    child::kill_all_children();
    match outcome {
        Ok(()) => OK,
        Err(e) => {
            log.warn(format_args!("{e}"));
            FAILURE
        }
    }
}
