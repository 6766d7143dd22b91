//! Legacy (2025-06-18, 2025-11-25) sessions: what each agreed to, and a bound on how many
//! exist: at the bound the least recently used session with no request in flight is evicted,
//! so sessions that clients abandoned (killed without `DELETE`) never lock a new client out.
//! Ids are drawn by the shell (from the OS's secure random source); the table takes `now`.

use std::collections::HashMap;
use std::time::Instant;

use embedded_mcp::protocol::Version;
use serde_json::Value;

/// One legacy session.
#[derive(Debug)]
pub struct Session {
    /// The version agreed to in `initialize`.
    pub version: Version,
    /// The client's `capabilities` from `initialize`.
    pub capabilities: Value,
    /// The version differs from the device's handshake: requests carry it in `_meta`.
    pub translate: bool,
    /// `logging/setLevel`'s threshold ([`embedded_mcp::protocol::LogLevel::rank`], 0: not set).
    pub log_level: u8,
    /// Requests of the session not answered yet (a session with some is never evicted).
    in_flight: usize,
    last_used: Instant,
}

/// Every session has a request in flight: no room for a new one (503).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full;

/// The session table.
pub struct Sessions {
    map: HashMap<String, Session>,
    max: usize,
}

impl Sessions {
    /// At most `max` sessions; when full, the least recently used one without a request in
    /// flight makes room.
    pub fn new(max: usize) -> Self {
        Self {
            map: HashMap::new(),
            max: max.max(1),
        }
    }

    /// Opens session `id` at `now`; returns the session evicted to make room, if one was (its
    /// id now gets 404, which tells its client to `initialize` again).
    pub fn open(
        &mut self,
        id: String,
        version: Version,
        capabilities: Value,
        translate: bool,
        now: Instant,
    ) -> Result<Option<String>, Full> {
        let mut evicted = None;
        if self.map.len() >= self.max && !self.map.contains_key(&id) {
            let victim = self
                .map
                .iter()
                .filter(|(_, s)| s.in_flight == 0)
                .min_by_key(|(_, s)| s.last_used)
                .map(|(id, _)| id.clone())
                .ok_or(Full)?;
            self.map.remove(&victim);
            evicted = Some(victim);
        }
        let session = Session {
            version,
            capabilities,
            translate,
            log_level: 0,
            in_flight: 0,
            last_used: now,
        };
        self.map.insert(id, session);
        Ok(evicted)
    }

    /// Session `id`, marked as used at `now`.
    pub fn get(&mut self, id: &str, now: Instant) -> Option<&mut Session> {
        let session = self.map.get_mut(id)?;
        session.last_used = now;
        Some(session)
    }

    /// Session `id`, as it is.
    pub fn peek(&self, id: &str) -> Option<&Session> {
        self.map.get(id)
    }

    /// A request of session `id` is in flight.
    pub fn begin(&mut self, id: &str) {
        if let Some(s) = self.map.get_mut(id) {
            s.in_flight += 1;
        }
    }

    /// A request of session `id` ended at `now`.
    pub fn end(&mut self, id: &str, now: Instant) {
        if let Some(s) = self.map.get_mut(id) {
            s.in_flight = s.in_flight.saturating_sub(1);
            s.last_used = now;
        }
    }

    /// Ends session `id`; false if there is none.
    pub fn close(&mut self, id: &str) -> bool {
        self.map.remove(id).is_some()
    }

    /// Open sessions.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when no session is open.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_least_recently_used_idle_session_makes_room() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let v = Version::V2025_11_25;
        let mut s = Sessions::new(2);
        let open = |s: &mut Sessions, id: &str, t| s.open(id.into(), v, Value::Null, false, t);
        assert_eq!(open(&mut s, "a", at(0)), Ok(None));
        assert_eq!(open(&mut s, "b", at(1)), Ok(None));
        assert!(s.get("b", at(2)).is_some());
        // Full: `a` is the least recently used, so it makes room.
        assert_eq!(open(&mut s, "c", at(3)), Ok(Some("a".into())));
        assert!(s.get("a", at(4)).is_none());
        // `b` was used after `c` was opened, so `c` goes next...
        s.get("b", at(5));
        // ...unless it has a request in flight.
        s.begin("c");
        assert_eq!(open(&mut s, "d", at(6)), Ok(Some("b".into())));
        s.begin("d");
        assert_eq!(open(&mut s, "e", at(8)), Err(Full));
        s.end("c", at(9));
        assert_eq!(open(&mut s, "e", at(10)), Ok(Some("c".into())));
        assert!(s.close("d"));
        assert!(!s.close("a"));
        assert_eq!(s.len(), 1);
    }
}
