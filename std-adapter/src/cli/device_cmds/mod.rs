//! `embedded-mcp bridge|tools|call`: the commands that talk to a device.
//!
//! Their options are declared in [`args`] (clap); each command returns its exit code, or a
//! [`UsageError`] for a command line clap accepted but the command refuses. Exit codes: 0 ok,
//! 1 tool error or invalid result, 2 usage or transport error.

pub mod args;
mod bridge;
mod bridge_http;
mod call;
mod hub_link;
mod summary;
mod tools;
mod usage_error;

use crate::device::client::{Client, ClientError, ClientOptions};
use crate::device::{child, Endpoint, Logger};

pub use bridge::bridge_main;
pub use call::{call_main, render_result};
pub use summary::summarize;
pub use tools::{render_tools, tools_main};
pub use usage_error::UsageError;

use args::{ClientArgs, DeviceArgs};

/// Exit code: success.
const OK: i32 = 0;
/// Exit code: the tool reported an error, or its result broke its schema.
const NEGATIVE: i32 = 1;
/// Exit code: usage, input or transport error.
const FAILURE: i32 = 2;

/// Opens `endpoint` and does the client's handshake.
fn connect(
    command: &str,
    endpoint: &Endpoint,
    device: &DeviceArgs,
    client: &ClientArgs,
) -> Result<Client, i32> {
    let log = Logger::stderr(device.verbosity(), &format!("embedded-mcp {command}"));
    // Ctrl-C or a kill must not leave QEMU or a --command child behind.
    if let Err(e) = child::stop_children_on_signals() {
        log.warn(format_args!("cannot install signal handlers: {e}"));
    }
    let options = ClientOptions {
        timeout: device.timeout(),
        protocol: client.protocol.clone(),
        ..ClientOptions::default()
    };
    Client::connect(endpoint, options, log).map_err(|e| {
        eprintln!("embedded-mcp {command}: {endpoint}: {e}");
        FAILURE
    })
}

fn transport_error(command: &str, e: &ClientError) -> i32 {
    eprintln!("embedded-mcp {command}: {e}");
    FAILURE
}
