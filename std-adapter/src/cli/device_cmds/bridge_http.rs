//! `embedded-mcp bridge --http ADDR:PORT`: the bridge as an MCP Streamable HTTP server.

use std::net::SocketAddr;

use super::args::HttpArgs;
use super::exit_code::{FAILURE, OK};
use crate::bridge::http::{self, HttpConfig, HttpError, Token};
use crate::bridge::BridgeConfig;
use crate::device::{child, Logger};

/// Serves `config`'s device over HTTP at `bind` as `options` say; returns the exit code.
pub(super) fn serve_http(
    bind: SocketAddr,
    options: &HttpArgs,
    config: BridgeConfig,
    log: &Logger,
) -> i32 {
    let mut http = HttpConfig::new(bind);
    http.allowed_origins = options.allowed_origins.clone();
    http.allowed_hosts = options.allowed_hosts.clone();
    http.allow_unauthenticated = options.allow_unauthenticated;
    if let Some(path) = &options.token_file {
        // The token itself is never printed, not even in an error.
        let token = std::fs::read_to_string(path)
            .ok()
            .and_then(|text| Token::from_file_text(&text));
        match token {
            Some(token) => http.token = Some(token),
            None => {
                eprintln!(
                    "embedded-mcp bridge: --token-file {}: unreadable, or no token in it (one line of printable ASCII)",
                    path.display()
                );
                return FAILURE;
            }
        }
    }
    let outcome = http::serve(config, http, log.clone());
    child::kill_all_children();
    match outcome {
        Ok(()) => OK,
        Err(e @ HttpError::Unauthenticated(_)) => {
            eprintln!("embedded-mcp bridge: {e}");
            FAILURE
        }
        Err(e) => {
            log.warn(format_args!("{e}"));
            FAILURE
        }
    }
}
