//! What the client commands (`tools`, `call`) share: opening the device and reporting a
//! transport error.

use super::args::{ClientArgs, DeviceArgs};
use super::exit_code::FAILURE;
use crate::device::client::{Client, ClientError, ClientOptions};
use crate::device::{child, Endpoint, Logger};

/// Opens `endpoint` and does the client's handshake; `Err` is the exit code (the reason
/// printed).
pub(super) fn connect(
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

/// Prints a transport error of `command`; returns the exit code.
pub(super) fn transport_error(command: &str, e: &ClientError) -> i32 {
    eprintln!("embedded-mcp {command}: {e}");
    FAILURE
}
