//! `embedded-mcp bridge`: the MCP stdio server in front of a device.

use super::args::BridgeArgs;
use super::bridge_http;
use super::exit_code::{FAILURE, OK};
use super::hub_link;
use super::usage_error::UsageError;
use crate::bridge::{self, BridgeConfig, Pages};
use crate::device::{child, Logger};
use std::os::fd::AsFd;

/// `embedded-mcp bridge ...`: runs the MCP stdio server until stdin closes (or the HTTP front,
/// with `--http`); returns the exit code.
pub fn bridge_main(args: &BridgeArgs) -> Result<i32, UsageError> {
    let devices = &args.device.link.devices;
    let mut config = match args.device.endpoint() {
        Some(endpoint) => BridgeConfig::new(endpoint),
        None => {
            hub_link::check_names(devices)?;
            if args.pages == Pages::Device {
                return Err(UsageError::PagesWithHub);
            }
            BridgeConfig::hub(devices.clone())
        }
    };
    let log = Logger::stderr(args.device.verbosity(), "embedded-mcp bridge");
    if let Err(e) = child::stop_children_on_signals() {
        log.warn(format_args!("cannot install signal handlers: {e}"));
    }
    config.pages = args.pages;
    config.timeout = args.device.timeout();
    config.max_call = std::time::Duration::from_millis(args.max_call_ms);
    config.input_timeout = std::time::Duration::from_millis(args.input_timeout_ms);
    config.on_invalid = args.on_invalid;
    if let Some(tools) = &args.task_tools {
        config.tasks.tools = tools.clone();
    }
    config.tasks.ttl = std::time::Duration::from_millis(args.task_ttl_ms);
    config.tasks.max_tasks = usize::try_from(args.max_tasks).unwrap_or(usize::MAX);
    if let Some(n) = args.reconnect_attempts {
        config.reconnect.attempts = n;
    }
    if let Some(ms) = args.startup_retry_ms {
        config.startup_retry = std::time::Duration::from_millis(ms);
    }
    // The HTTP front (`--http`): the same bridge, serving HTTP clients instead of stdio.
    if let Some(bind) = args.http.http {
        return Ok(bridge_http::serve_http(bind, &args.http, config, &log));
    }
    // The host's pipes (or socket) as tokio I/O of the bridge's runtime; stdin and stdout as
    // blocking streams when they cannot be had as descriptors.
    let fds = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .and_then(|input| Ok((input, std::io::stdout().as_fd().try_clone_to_owned()?)));
    let outcome = match fds {
        Ok((host_in, host_out)) => bridge::run_fds(config, host_in, host_out, log.clone()),
        Err(_) => bridge::run(config, std::io::stdin(), std::io::stdout(), log.clone()),
    };
    child::kill_all_children();
    Ok(match outcome {
        Ok(()) => OK,
        Err(e) => {
            log.warn(format_args!("{e}"));
            FAILURE
        }
    })
}
