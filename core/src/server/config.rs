//! The engine's tunables ([`Config`]), its fixed limits, and its counters ([`Stats`]).

use core::fmt;

use crate::json::{self, write_u64, EncodeError, Sink};
use crate::protocol::LogLevel;

use super::list::member_str;

/// Longest request id accepted, in bytes of its JSON text (quotes included). Longer ids are
/// refused with -32600 and no `id`, so that every error response has a bounded size.
pub const MAX_ID_LEN: usize = 128;

/// `cacheScope` of cacheable 2026 results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CacheScope {
    /// `"public"`: no user-specific data (the default: tools are static firmware data).
    Public,
    /// `"private"`: cache only within one authorization context.
    Private,
}

impl CacheScope {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Private => "private",
        }
    }
}

/// Tunables of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Config {
    /// Largest `tools/list` response line in bytes (the output buffer bounds it too).
    pub page_bytes: usize,
    /// `ttlMs` of `tools/list` and `server/discover` results (2026-07-28).
    pub ttl_ms: u32,
    /// `cacheScope` of `tools/list` and `server/discover` results (2026-07-28).
    pub cache_scope: CacheScope,
    /// Deepest nesting of arrays and objects accepted in a request (at most
    /// [`json::MAX_DEPTH_LIMIT`]).
    pub max_depth: u8,
    /// Shortest time between two `notifications/progress` of one call, in milliseconds of
    /// [`Config::clock`] (0, or no clock: every report is sent). A report that comes sooner is
    /// held, not sent: a later report replaces it, and the one still held when the tool
    /// returns is sent just before the response, so the host always sees the last one.
    pub progress_interval_ms: u32,
    /// The firmware's monotonic clock, for [`Config::progress_interval_ms`].
    pub clock: Option<Clock>,
    /// The log level of a legacy stream before the host sends `logging/setLevel` (`None`: no
    /// `notifications/message` until it does). 2026-07-28 requests name their own level.
    pub log_level: Option<LogLevel>,
}

/// A monotonic clock in milliseconds (for example embassy's `Instant::now().as_millis()`).
#[derive(Clone, Copy)]
pub struct Clock(pub fn() -> u64);

impl Clock {
    /// Milliseconds now.
    pub fn now_ms(&self) -> u64 {
        (self.0)()
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Clock")
    }
}

impl PartialEq for Clock {
    fn eq(&self, other: &Self) -> bool {
        core::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for Clock {}

#[cfg(feature = "defmt")]
impl defmt::Format for Clock {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "Clock")
    }
}

impl Config {
    /// The defaults: pages as large as the output buffer, `ttlMs` 300 000 (5 minutes),
    /// `cacheScope` `"public"`, nesting depth [`json::DEFAULT_MAX_DEPTH`] (32), every progress
    /// report sent (no clock), no legacy log messages before `logging/setLevel`.
    pub const DEFAULT: Config = Config {
        page_bytes: usize::MAX,
        ttl_ms: 300_000,
        cache_scope: CacheScope::Public,
        max_depth: json::DEFAULT_MAX_DEPTH,
        progress_interval_ms: 0,
        clock: None,
        log_level: None,
    };

    /// Writes the last members of a cacheable 2026 result (`tools/list`, `server/discover`):
    /// `,"ttlMs":…,"cacheScope":…,"resultType":"complete"`.
    pub(super) fn write_cache_tail(&self, s: &mut dyn Sink) -> Result<(), EncodeError> {
        s.put(b",\"ttlMs\":")?;
        write_u64(s, u64::from(self.ttl_ms))?;
        member_str(s, b",\"cacheScope\":", self.cache_scope.as_str())?;
        s.put(b",\"resultType\":\"complete\"")
    }
}

impl Default for Config {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Counters of what the engine has seen (wrapping), for diagnostics: nothing but responses may
/// be written to the channel, so this is where dropped lines show up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Stats {
    /// Requests answered.
    pub requests: u32,
    /// Notifications received.
    pub notifications: u32,
    /// Lines dropped because they were not JSON.
    pub unparsable: u32,
    /// Lines dropped because they were not UTF-8.
    pub invalid_utf8: u32,
    /// Lines longer than the input buffer.
    pub overlong: u32,
    /// Lines nested deeper than the limit.
    pub too_deep: u32,
    /// JSON messages that were not valid requests.
    pub invalid: u32,
    /// Calls ended by the host's `notifications/cancelled` (no response sent).
    pub cancelled: u32,
}
