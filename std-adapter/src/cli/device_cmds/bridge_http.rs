//! `embedded-mcp bridge --http ADDR:PORT`: the bridge as an MCP Streamable HTTP server.

use super::options::HttpOptions;
use super::{usage_error, FAILURE, OK};
use crate::bridge::http::{self, HttpConfig, Token};
use crate::bridge::BridgeConfig;
use crate::cli::device_cmds::OptionError;
use crate::device::{child, Logger};

/// Serves `config`'s device over HTTP as `options` say; returns the exit code.
pub(super) fn serve_http(options: &HttpOptions, config: BridgeConfig, log: &Logger) -> i32 {
    let Some(text) = options.bind.as_deref() else {
        return FAILURE;
    };
    let Some(bind) = HttpConfig::parse_bind(text) else {
        return usage_error(
            "bridge",
            &OptionError::BadChoice {
                flag: "--http",
                value: text.to_owned(),
                choices: "PORT, ADDR:PORT or [V6ADDR]:PORT",
            },
        );
    };
    let mut http = HttpConfig::new(bind);
    http.allowed_origins = options.allowed_origins.clone();
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
        Err(e) => {
            log.warn(format_args!("{e}"));
            FAILURE
        }
    }
}

/// `--token-file` or `--allowed-origin` without `--http`.
pub(super) fn misplaced(options: &HttpOptions) -> bool {
    options.bind.is_none() && (options.token_file.is_some() || !options.allowed_origins.is_empty())
}
