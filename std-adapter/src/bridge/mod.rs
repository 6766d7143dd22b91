//! The host bridge: an MCP stdio server that forwards to a device (`embedded-mcp bridge`).
//!
//! Any MCP host starts it like any stdio server. Messages pass through byte for byte (ids, both
//! protocol eras, pagination, server-to-client requests), with what a careful host-side client
//! adds on top:
//!
//! - every successful `tools/call` result is checked against the tool's `outputSchema` with the
//!   full JSON Schema 2020-12 validator ([`crate::full::ToolChecker`]); a failing result becomes
//!   an `isError` result naming the field and the rule ([`OnInvalid`]). Schemas are learnt from
//!   the `tools/list` responses that pass, and fetched by the bridge itself when a result arrives
//!   for a tool it has not seen;
//! - icons whose `src` is not `https:` or `data:` are removed ([`rewrite`]);
//! - stdout carries only MCP messages; diagnostics go to the [`Logger`] (stderr).
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
//!   MCP host --stdio--+        HTTP clients --> http/ (sessions, SSE, id multiplex)
//!                     |                            | one line stream per session
//!                     v                            v
//!   shell/ (tokio: host streams, link threads, timers) <-+
//!         | Input + now                ^ Output
//!         v                            |
//!   router/ (one device)  or  hub/ (many devices, one router each)   no I/O, no clock
//!         | LinkAction                 ^ LinkEvent
//!         v                            |
//!   link: serial | TCP | unix socket | child process | QEMU   (device::Endpoint)
//! ```
//!
//! [`machine`] is the interface between the state machines ([`router`], [`hub`]) and the shell
//! (`shell`); [`message`] names what is on the wire; `old_revisions` serves hosts of 2024-11-05
//! and 2025-03-26; [`catalog`] and [`rewrite`] check and clean what devices send.

pub mod catalog;
pub mod http;
pub mod hub;
pub mod input_shim;
pub mod machine;
pub mod message;
mod old_revisions;
pub mod rewrite;
pub mod router;
mod shell;
#[cfg(test)]
mod sim;
pub mod subscriptions;
pub mod tasks;

use std::io::{Read, Write};
use std::time::Duration;

use crate::device::lines::DEFAULT_MAX_LINE;
use crate::device::{Endpoint, Logger};

/// What to do with a successful result whose `structuredContent` breaks the tool's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnInvalid {
    /// Replace it with an `isError` result saying which field broke which rule (default).
    Error,
    /// Forward it unchanged and log a warning.
    Warn,
    /// Forward it unchecked.
    Pass,
}

impl OnInvalid {
    /// Parses `error`, `warn` or `pass`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "error" => Some(Self::Error),
            "warn" => Some(Self::Warn),
            "pass" => Some(Self::Pass),
            _ => None,
        }
    }
}

/// How a host's `tools/list` is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pages {
    /// The bridge follows the device's `nextCursor`s and answers in one page, cached until the
    /// link resets or the device says its list changed (default: many hosts read one page only).
    One,
    /// The device's own pages, cursors and all (`--pages device`).
    Device,
}

/// A device of a hub: its tools appear to the host as `NAME.tool`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubDevice {
    /// The prefix of its tools (letters, digits, `_` and `-`).
    pub name: String,
    /// Where it is.
    pub endpoint: Endpoint,
}

/// Reconnection policy: attempt `n` (from 0) waits `min(first_delay * 2^(n-1), max_delay)`
/// (attempt 0 does not wait); after `attempts` failed attempts the bridge stops trying until the
/// host sends another message. A link that closes before the device said anything counts as a
/// failed attempt, so a device that dies at once cannot make the bridge loop forever.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reconnect {
    /// Wait before the second attempt.
    pub first_delay: Duration,
    /// Longest wait between attempts.
    pub max_delay: Duration,
    /// Attempts per cycle.
    pub attempts: u32,
}

impl Default for Reconnect {
    /// 100 ms doubling up to 2 s, 10 attempts (about 11 s in all).
    fn default() -> Self {
        Self {
            first_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(2),
            attempts: 10,
        }
    }
}

impl Reconnect {
    /// The wait before attempt `attempt` (0-based).
    pub fn delay(&self, attempt: u32) -> Duration {
        if attempt == 0 {
            return Duration::ZERO;
        }
        let factor = 1u32
            .checked_shl(attempt.saturating_sub(1).min(20))
            .unwrap_or(u32::MAX);
        self.first_delay.saturating_mul(factor).min(self.max_delay)
    }
}

/// Everything the bridge needs to know.
#[derive(Debug, Clone)]
pub struct BridgeConfig {
    /// Where the device is.
    pub endpoint: Endpoint,
    /// How long a request may wait for the device's answer (default 10 s), queueing included;
    /// each progress notification of the request starts the wait again (`--timeout-ms`).
    pub timeout: Duration,
    /// The hard cap on one request, progress or not (`--max-call-ms`, default 60 s): the longest
    /// tool the examples advertise, `sample_temperature` at its limits (20 samples 1000 ms
    /// apart), takes 20 s on the device, so 60 s lets it finish with room for a slow link or an
    /// emulator, and still ends a call whose tool never stops sending progress.
    pub max_call: Duration,
    /// What to do with results that break their output schema.
    pub on_invalid: OnInvalid,
    /// Reconnection policy.
    pub reconnect: Reconnect,
    /// While a fresh link has not heard from the device, idempotent requests (`initialize`,
    /// `server/discover`, `tools/list`, `ping`) are re-sent at this interval, at most
    /// [`STARTUP_RESENDS`] times (QEMU's UART may drop bytes sent before the firmware enabled it).
    /// Zero disables. Default 1 s.
    pub startup_retry: Duration,
    /// Longest line accepted from the host or the device (default 1 MiB); longer ones are logged
    /// and skipped.
    pub max_line: usize,
    /// Most messages held while the device is (re)connecting (default 256); a request beyond that
    /// gets an error response at once.
    pub max_queued: usize,
    /// How a host's `tools/list` is answered (default [`Pages::One`]).
    pub pages: Pages,
    /// When not empty, the bridge is a hub of these devices (and `endpoint` is not used): one
    /// MCP server whose tools are `NAME.tool`, each device with a link of its own.
    pub devices: Vec<HubDevice>,
    /// The tasks extension: which tools become tasks, the TTL and the table's caps.
    pub tasks: tasks::TaskConfig,
    /// How long a person may take to answer what a device asks through the legacy
    /// input-required shim ([`input_shim`], `--input-timeout-ms`, default
    /// [`input_shim::DEFAULT_INPUT_TIMEOUT`]); no device deadline runs meanwhile.
    pub input_timeout: Duration,
}

/// Re-sends of an idempotent request while a fresh link is silent (see
/// [`BridgeConfig::startup_retry`]).
pub const STARTUP_RESENDS: u32 = 3;

impl BridgeConfig {
    /// The defaults documented on each field.
    pub fn new(endpoint: Endpoint) -> Self {
        Self {
            endpoint,
            timeout: Duration::from_secs(10),
            max_call: Duration::from_secs(60),
            on_invalid: OnInvalid::Error,
            reconnect: Reconnect::default(),
            startup_retry: Duration::from_secs(1),
            max_line: DEFAULT_MAX_LINE,
            max_queued: 256,
            pages: Pages::One,
            devices: Vec::new(),
            tasks: tasks::TaskConfig::default(),
            input_timeout: input_shim::DEFAULT_INPUT_TIMEOUT,
        }
    }

    /// A hub of `devices` with the defaults documented on each field.
    pub fn hub(devices: Vec<HubDevice>) -> Self {
        let endpoint = devices
            .first()
            .map_or(Endpoint::Tcp(String::new()), |d| d.endpoint.clone());
        Self {
            devices,
            ..Self::new(endpoint)
        }
    }
}

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
    shell::serve(config, host_in, host_out, log).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let r = Reconnect::default();
        let ms: Vec<u128> = (0..8).map(|n| r.delay(n).as_millis()).collect();
        assert_eq!(ms, vec![0, 100, 200, 400, 800, 1600, 2000, 2000]);
        assert_eq!(r.delay(u32::MAX), Duration::from_secs(2));
    }
}
