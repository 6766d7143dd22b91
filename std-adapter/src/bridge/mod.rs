//! The host bridge: an MCP stdio server that forwards to a device (`embedded-mcp bridge`).
//!
//! Any MCP host starts it like any stdio server. Messages pass through byte for byte (ids, both
//! protocol eras, pagination), with what a careful host-side client adds on top:
//!
//! - every successful `tools/call` result is checked against the tool's `outputSchema` with the
//!   full JSON Schema 2020-12 validator ([`crate::full::ToolChecker`]); a failing result becomes
//!   an `isError` result naming the field and the rule ([`OnInvalid`]). Schemas are learnt from
//!   the `tools/list` responses that pass, and fetched by the bridge itself when a result arrives
//!   for a tool it has not seen;
//! - icons whose `src` is not `https:` or `data:` are removed ([`rewrite`]);
//! - stdout carries only MCP messages; diagnostics go to the [`Logger`] (stderr);
//! - a device speaks only for itself: its task statuses, its progress for calls it does not
//!   have and its own requests never reach a host (`router/device_rules.rs`).
//!
//! Faults: a request the device does not answer within [`BridgeConfig::timeout`] gets an error
//! response (-32001); each progress notification of a request starts that wait again, up to the
//! hard cap [`BridgeConfig::max_call`]. When the link closes (device reset, port unplugged, QEMU
//! killed) every request in flight gets an error response (-32000), the bridge reconnects with
//! bounded exponential backoff ([`Reconnect`]) and replays the `initialize` handshake of a legacy
//! session before later requests go through; a line from the device that is not JSON is logged
//! and skipped. Every request with an id gets exactly one response (cancelled requests excepted,
//! as MCP asks).
//!
//! ```text
//!   MCP host --stdio--+        HTTP clients --> http/ (doors, sessions, 2026 checks)
//!                     |                            | clients/ (per-client state: ids,
//!                     |                            |  sessions, streams, bounds, waits)
//!                     v                            v
//!   shell/ (tokio: host lines, link threads, timers; one runtime with hyper's) <-+
//!         | Input + now                ^ Output
//!         v                            |
//!   old revisions -> input shim -> tasks: one layer each, a Machine   no I/O, no clock
//!         |                            ^
//!         v                            |
//!   router/ (one device)  or  hub/ (many devices, one router each)   no I/O, no clock
//!         | LinkAction                 ^ LinkEvent
//!         v                            |
//!   link: serial | TCP | unix socket | child process | QEMU   (device::Endpoint)
//! ```
//!
//! [`machine`] is the interface between the state machines (the layers, [`router`], [`hub`])
//! and the shell (`shell`); [`message`] names what is on the wire; `old_revisions` serves hosts
//! of 2024-11-05 and 2025-03-26, [`input_shim`] legacy hosts that can be asked for input,
//! [`tasks`] the tasks extension; [`catalog`] and [`rewrite`] check and clean what devices send.

pub mod catalog;
pub mod clients;
pub mod config;
pub mod http;
pub mod hub;
pub mod input_shim;
pub mod lean_hop;
pub mod machine;
pub mod message;
mod old_revisions;
mod remote;
pub mod rewrite;
pub mod router;
mod shell;
#[cfg(test)]
mod sim;
pub mod subscriptions;
pub mod tasks;

use std::io::{Read, Write};

pub use config::{BridgeConfig, HubDevice, OnInvalid, Pages, Reconnect, STARTUP_RESENDS};

use crate::log::Logger;

/// Why the bridge stopped other than by the host closing its input.
#[derive(Debug)]
#[non_exhaustive]
pub enum BridgeError {
    /// The host's output (stdout) failed: nobody is reading the responses any more.
    HostOutput(String),
    /// A thread could not be started.
    Thread(std::io::Error),
    /// The tokio runtime could not be built.
    Runtime(std::io::Error),
}

impl std::fmt::Display for BridgeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::HostOutput(why) => write!(f, "writing to the host failed: {why}"),
            Self::Thread(e) => write!(f, "starting a thread failed: {e}"),
            Self::Runtime(e) => write!(f, "starting the tokio runtime failed: {e}"),
        }
    }
}

impl std::error::Error for BridgeError {}

/// Runs the bridge until the host closes `host_in` and every request in flight was answered.
///
/// `host_in`/`host_out` are the MCP channel (stdin/stdout in the binary); only MCP messages are
/// written to `host_out`. The device link is closed (and QEMU or a child process stopped) before
/// this returns.
pub fn run<R, W>(
    config: BridgeConfig,
    host_in: R,
    host_out: W,
    log: Logger,
) -> Result<(), BridgeError>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    shell::run(config, host_in, host_out, log)
}

/// [`run`] on the host's descriptors (stdin and stdout in the binary): a pipe or a unix socket
/// (what an MCP host gives the server it starts) is read and written by tasks of the bridge's
/// runtime, so a line crosses no thread on its way; anything else (a terminal, a file) by a
/// thread each, as in [`run`]. A pipe or socket is set non-blocking.
pub fn run_fds(
    config: BridgeConfig,
    host_in: std::os::fd::OwnedFd,
    host_out: std::os::fd::OwnedFd,
    log: Logger,
) -> Result<(), BridgeError> {
    shell::run_fds(config, host_in, host_out, log)
}

/// [`run`] inside the caller's tokio runtime (its time and I/O drivers enabled): host lines
/// arrive on `host_in` (without their newline; closing it is the host closing its input, and a
/// line longer than [`BridgeConfig::max_line`] is refused as in [`run`]), and every line for the
/// host is sent to `host_out`. Returns when the host has closed its input and every request in flight was
/// answered, with the device link closed.
pub async fn serve(
    config: BridgeConfig,
    host_in: tokio::sync::mpsc::Receiver<Vec<u8>>,
    host_out: tokio::sync::mpsc::Sender<Vec<u8>>,
    log: Logger,
) -> Result<(), BridgeError> {
    let tools = tokio::sync::watch::channel(catalog::ToolsView::default()).0;
    shell::serve(config, host_in, host_out, tools, log).await
}
