//! Legacy (2025-06-18, 2025-11-25) sessions: `Mcp-Session-Id` values from the OS's secure
//! random source, what each session agreed to, and a bound on how many exist: at the bound the
//! least recently used session with no request in flight is evicted, so sessions that clients
//! abandoned (killed without `DELETE`) never lock a new client out.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use embedded_mcp::protocol::Version;
use serde_json::Value;

/// One legacy session.
#[derive(Debug)]
pub(super) struct LegacySession {
    /// The version agreed to in `initialize`.
    pub(super) version: Version,
    /// The client's `capabilities` from `initialize`.
    pub(super) capabilities: Value,
    /// The version differs from the device's handshake: requests carry it in `_meta`.
    pub(super) translate: bool,
    /// `logging/setLevel`'s threshold ([`embedded_mcp::protocol::LogLevel::rank`], 0: not set).
    pub(super) log_level: Arc<AtomicU8>,
    /// Requests of the session not answered yet (a session with some is never evicted).
    in_flight: AtomicUsize,
    last_used: Mutex<Instant>,
}

impl LegacySession {
    fn touch(&self, now: Instant) {
        *self.last_used.lock().unwrap_or_else(|e| e.into_inner()) = now;
    }

    fn last_used(&self) -> Instant {
        *self.last_used.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A request of a session in flight: the session is not evicted while this lives.
#[derive(Debug)]
pub(super) struct InUse(Arc<LegacySession>);

impl InUse {
    /// Marks one request of `session` in flight.
    pub(super) fn new(session: Arc<LegacySession>) -> Self {
        session.in_flight.fetch_add(1, Ordering::SeqCst);
        Self(session)
    }
}

impl Drop for InUse {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
        self.0.touch(Instant::now());
    }
}

/// Why no session could be opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OpenError {
    /// Every session has a request in flight (503).
    Full,
    /// The OS gave no random bytes (500).
    NoRandomness,
}

/// A session just opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Opened {
    /// Its `Mcp-Session-Id`.
    pub(super) id: String,
    /// The session evicted to make room for it, if any (its id now gets 404).
    pub(super) evicted: Option<String>,
}

/// The session table.
pub(super) struct Sessions {
    map: Mutex<HashMap<String, Arc<LegacySession>>>,
    max: usize,
}

impl Sessions {
    /// At most `max` sessions; when full, the least recently used one without a request in
    /// flight makes room.
    pub(super) fn new(max: usize) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            max: max.max(1),
        }
    }

    fn map(&self) -> MutexGuard<'_, HashMap<String, Arc<LegacySession>>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Opens a session at `now`.
    pub(super) fn open(
        &self,
        version: Version,
        capabilities: Value,
        translate: bool,
        now: Instant,
    ) -> Result<Opened, OpenError> {
        let id = new_session_id().ok_or(OpenError::NoRandomness)?;
        let mut map = self.map();
        let mut evicted = None;
        if map.len() >= self.max {
            let victim = map
                .iter()
                .filter(|(_, s)| s.in_flight.load(Ordering::SeqCst) == 0)
                .min_by_key(|(_, s)| s.last_used())
                .map(|(id, _)| id.clone());
            let Some(victim) = victim else {
                return Err(OpenError::Full);
            };
            map.remove(&victim);
            evicted = Some(victim);
        }
        let session = LegacySession {
            version,
            capabilities,
            translate,
            log_level: Arc::new(AtomicU8::new(0)),
            in_flight: AtomicUsize::new(0),
            last_used: Mutex::new(now),
        };
        map.insert(id.clone(), Arc::new(session));
        Ok(Opened { id, evicted })
    }

    /// The session `id`, marked as used at `now`.
    pub(super) fn get(&self, id: &str, now: Instant) -> Option<Arc<LegacySession>> {
        let session = self.map().get(id).cloned()?;
        session.touch(now);
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
    use std::time::Duration;

    #[test]
    fn sessions_are_bounded_and_their_ids_random() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let v = Version::V2025_11_25;
        let s = Sessions::new(2);
        let a = s.open(v, Value::Null, false, at(0)).unwrap();
        let b = s
            .open(Version::V2025_06_18, Value::Null, false, at(1))
            .unwrap();
        assert_ne!(a.id, b.id);
        assert_eq!(a.id.len(), 32);
        assert!(a.id.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(a.evicted, None);
        assert_eq!(s.get(&b.id, at(2)).unwrap().version, Version::V2025_06_18);
        // Full: `a` is the least recently used, so it makes room.
        let c = s.open(v, Value::Null, false, at(3)).unwrap();
        assert_eq!(c.evicted.as_deref(), Some(a.id.as_str()));
        assert!(s.get(&a.id, at(4)).is_none());
        // `b` was used after `c` was opened, so `c` goes next...
        s.get(&b.id, at(5));
        // ...unless it has a request in flight.
        let busy = InUse::new(s.get(&c.id, at(4)).unwrap());
        let d = s.open(v, Value::Null, false, at(6)).unwrap();
        assert_eq!(d.evicted.as_deref(), Some(b.id.as_str()));
        let busy_d = InUse::new(s.get(&d.id, at(7)).unwrap());
        assert_eq!(s.open(v, Value::Null, false, at(8)), Err(OpenError::Full));
        drop((busy, busy_d));
        assert!(s.open(v, Value::Null, false, at(9)).is_ok());
        assert!(s.close(&d.id) || s.close(&c.id));
        assert!(!s.close(&a.id));
    }
}
