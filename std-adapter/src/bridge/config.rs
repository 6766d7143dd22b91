//! How a bridge is set up: its device or devices, its deadlines, its reconnects and what it does
//! with results that break their schema. Read by the deciding layers and the shell alike, and
//! reaching neither.

use std::time::Duration;

use crate::device::Endpoint;
use crate::wire::DEFAULT_MAX_LINE;

use super::{input_shim, tasks};

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
    /// The lean hop ([`super::lean_hop`], default on): requests carry the `_meta` the device
    /// reads, `tools/call` asks for the result without its text twin, which the bridge restores
    /// for the host byte for byte. Off, the host's lines go to the device as they are.
    pub lean_hop: bool,
    /// Keep each device's tool catalog filled (default off): the router lists the device once
    /// the host's handshake is done and again after each change (`list_changed`, a reconnect),
    /// for readers that must know a tool before its call reaches the router (the HTTP front's
    /// `Mcp-Param-*` checks). Off, the host's own listings fill it.
    pub keep_catalog: bool,
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
            lean_hop: true,
            keep_catalog: false,
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
