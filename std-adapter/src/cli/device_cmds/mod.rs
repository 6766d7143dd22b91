//! `embedded-mcp bridge|tools|call`: the commands that talk to a device.
//!
//! The usage text is [`USAGE`] (written once, in [`crate::cli::usage`]). Exit codes: 0 ok, 1 tool
//! error or invalid result, 2 usage or transport error.

mod bridge;
mod bridge_http;
mod call;
mod hub_options;
mod options;
mod summary;
mod tools;

use crate::device::client::{Client, ClientError, ClientOptions};
use crate::device::{child, Logger};

pub use bridge::bridge_main;
pub use call::{call_main, parse_arguments, render_result};
pub use options::OptionError;
#[cfg(test)]
pub(crate) use options::FLAGS;
pub use summary::summarize;
pub use tools::{render_tools, tools_main};

use options::Options;

/// Usage text of the device commands.
pub const USAGE: &str = super::usage::DEVICE;

/// Exit code: success.
const OK: i32 = 0;
/// Exit code: the tool reported an error, or its result broke its schema.
const NEGATIVE: i32 = 1;
/// Exit code: usage, input or transport error.
const FAILURE: i32 = 2;

/// Prints a usage error of `command` with the usage text; returns the exit code.
fn usage_error(command: &str, error: &OptionError) -> i32 {
    eprintln!("embedded-mcp {command}: {error}\n\n{USAGE}");
    FAILURE
}

/// Parses the options of `command`: `Err` is the exit code when the command must stop (a
/// usage error, or `--help` printed).
fn options(command: &str, args: &[String]) -> Result<Options, i32> {
    match options::parse(args) {
        Ok(o) if o.help => {
            println!("{USAGE}");
            Err(OK)
        }
        Ok(o) => Ok(o),
        Err(e) => Err(usage_error(command, &e)),
    }
}

/// Opens the device and does the client's handshake.
fn connect(command: &str, o: &Options) -> Result<Client, i32> {
    let endpoint = o.endpoint().map_err(|e| usage_error(command, &e))?;
    let log = Logger::stderr(o.verbosity, &format!("embedded-mcp {command}"));
    // Ctrl-C or a kill must not leave QEMU or a --command child behind.
    if let Err(e) = child::stop_children_on_signals() {
        log.warn(format_args!("cannot install signal handlers: {e}"));
    }
    let options = ClientOptions {
        timeout: o.timeout,
        protocol: o.protocol.clone(),
        ..ClientOptions::default()
    };
    Client::connect(&endpoint, options, log).map_err(|e| {
        eprintln!("embedded-mcp {command}: {endpoint}: {e}");
        FAILURE
    })
}

fn transport_error(command: &str, e: &ClientError) -> i32 {
    eprintln!("embedded-mcp {command}: {e}");
    FAILURE
}
