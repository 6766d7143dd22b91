//! Legacy (2025-06-18, 2025-11-25) sessions: `Mcp-Session-Id` values from the OS's secure
//! random source, what each session agreed to, and a bound on how many exist.

use std::collections::HashMap;
use std::sync::atomic::AtomicU8;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use embedded_mcp::protocol::Version;
use serde_json::Value;

/// Log levels (RFC 5424 order, least severe first); the number is the threshold stored per
/// session (0: no `logging/setLevel` yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum LogLevel {
    Debug = 1,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    /// Parses a level name.
    pub(super) fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "debug" => Self::Debug,
            "info" => Self::Info,
            "notice" => Self::Notice,
            "warning" => Self::Warning,
            "error" => Self::Error,
            "critical" => Self::Critical,
            "alert" => Self::Alert,
            "emergency" => Self::Emergency,
            _ => return None,
        })
    }
}

/// One legacy session.
#[derive(Debug)]
pub(super) struct LegacySession {
    /// The version agreed to in `initialize`.
    pub(super) version: Version,
    /// The client's `capabilities` from `initialize`.
    pub(super) capabilities: Value,
    /// The version differs from the device's handshake: requests carry it in `_meta`.
    pub(super) translate: bool,
    /// `logging/setLevel`'s threshold ([`LogLevel`] number, 0: not set).
    pub(super) log_level: Arc<AtomicU8>,
    last_used: Mutex<Instant>,
}

impl LegacySession {
    fn touch(&self) {
        *self.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    fn idle_for(&self, now: Instant) -> Duration {
        now.saturating_duration_since(*self.last_used.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Why no session could be opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OpenError {
    /// As many sessions as allowed are in use (503).
    Full,
    /// The OS gave no random bytes (500).
    NoRandomness,
}

/// The session table.
pub(super) struct Sessions {
    map: Mutex<HashMap<String, Arc<LegacySession>>>,
    max: usize,
    idle: Duration,
}

impl Sessions {
    /// At most `max` sessions; when full, sessions unused for `idle` make room.
    pub(super) fn new(max: usize, idle: Duration) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            max,
            idle,
        }
    }

    fn map(&self) -> MutexGuard<'_, HashMap<String, Arc<LegacySession>>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Opens a session; returns its id.
    pub(super) fn open(
        &self,
        version: Version,
        capabilities: Value,
        translate: bool,
    ) -> Result<String, OpenError> {
        let id = new_session_id().ok_or(OpenError::NoRandomness)?;
        let mut map = self.map();
        if map.len() >= self.max {
            let now = Instant::now();
            map.retain(|_, s| s.idle_for(now) < self.idle);
        }
        if map.len() >= self.max {
            return Err(OpenError::Full);
        }
        let session = LegacySession {
            version,
            capabilities,
            translate,
            log_level: Arc::new(AtomicU8::new(0)),
            last_used: Mutex::new(Instant::now()),
        };
        map.insert(id.clone(), Arc::new(session));
        Ok(id)
    }

    /// The session `id`, marked as used.
    pub(super) fn get(&self, id: &str) -> Option<Arc<LegacySession>> {
        let session = self.map().get(id).cloned()?;
        session.touch();
        Some(session)
    }

    /// Ends session `id`; false if there is none.
    pub(super) fn close(&self, id: &str) -> bool {
        self.map().remove(id).is_some()
    }
}

/// 128 random bits as 32 lower-case hex digits (visible ASCII, as the spec asks).
fn new_session_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_bounded_and_their_ids_random() {
        let s = Sessions::new(2, Duration::from_secs(600));
        let a = s.open(Version::V2025_11_25, Value::Null, false).unwrap();
        let b = s.open(Version::V2025_06_18, Value::Null, false).unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(
            s.open(Version::V2025_11_25, Value::Null, false),
            Err(OpenError::Full)
        );
        assert_eq!(s.get(&b).unwrap().version, Version::V2025_06_18);
        assert!(s.close(&a));
        assert!(!s.close(&a));
        assert!(s.get(&a).is_none());
        assert!(s.open(Version::V2025_11_25, Value::Null, false).is_ok());
        // Idle sessions make room.
        let s = Sessions::new(1, Duration::ZERO);
        s.open(Version::V2025_11_25, Value::Null, false).unwrap();
        assert!(s.open(Version::V2025_11_25, Value::Null, false).is_ok());
    }

    #[test]
    fn levels_are_ordered() {
        assert!(LogLevel::parse("debug") < LogLevel::parse("info"));
        assert_eq!(LogLevel::parse("emergency").map(|l| l as u8), Some(8));
        assert_eq!(LogLevel::parse("loud"), None);
    }
}
