//! Legacy (2025-06-18, 2025-11-25) sessions: what each agreed to, and a bound on how many
//! exist. A session is cheap (its agreement, at most [`MAX_CAPABILITIES`] bytes of the
//! client's capabilities, a few counters), so the bound is high ([`DEFAULT_MAX_SESSIONS`]) and
//! says how much memory sessions may take, not how many hosts may be idle at once: a host
//! usually sits idle between tool calls, and a thousand new sessions of another client leave
//! it alone. At the bound, only a session nobody has used for [`ABANDONED_AFTER`] (its client
//! was killed without `DELETE`), with no request in flight and no stream open, makes room (the
//! least recently used such one); when every session is live, the newcomer is turned away
//! (503 with `Retry-After`) and no live host loses its session. Ids are drawn by the shell
//! (from the OS's secure random source); the table takes `now`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use embedded_mcp::protocol::Version;
use serde_json::Value;

/// Most sessions by default.
pub const DEFAULT_MAX_SESSIONS: usize = 16_384;

/// Longest `capabilities` a client may declare in `initialize`, as JSON text.
pub const MAX_CAPABILITIES: usize = 4096;

/// A session unused this long, with nothing in flight, counts as abandoned: at the bound it may
/// make room for a new one.
pub const ABANDONED_AFTER: Duration = Duration::from_secs(30 * 60);

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
    /// Requests and streams of the session not over yet (a session with some is never
    /// evicted).
    in_flight: usize,
    last_used: Instant,
}

/// Every session is live: no room for a new one (503).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full;

/// The session table.
pub struct Sessions {
    map: HashMap<String, Session>,
    max: usize,
}

impl Sessions {
    /// At most `max` sessions; when full, the least recently used abandoned one makes room.
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
                .filter(|(_, s)| s.in_flight == 0 && now >= s.last_used + ABANDONED_AFTER)
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

    /// A request (or a stream) of session `id` is in flight.
    pub fn begin(&mut self, id: &str) {
        if let Some(s) = self.map.get_mut(id) {
            s.in_flight += 1;
        }
    }

    /// A request (or a stream) of session `id` ended at `now`.
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
    fn only_an_abandoned_session_makes_room_and_live_ones_turn_the_newcomer_away() {
        let t0 = Instant::now();
        let at = |secs: u64| t0 + Duration::from_secs(secs);
        let abandoned = ABANDONED_AFTER.as_secs();
        let v = Version::V2025_11_25;
        let mut s = Sessions::new(3);
        let open = |s: &mut Sessions, id: &str, t| s.open(id.into(), v, Value::Null, false, t);
        assert_eq!(open(&mut s, "a", at(0)), Ok(None));
        assert_eq!(open(&mut s, "b", at(1)), Ok(None));
        assert_eq!(open(&mut s, "c", at(2)), Ok(None));
        // Full of live sessions: the newcomer is turned away, nobody is evicted.
        assert_eq!(open(&mut s, "d", at(3)), Err(Full));
        assert!(s.get("a", at(4)).is_some());
        // Long after, `b` (unused since 1 s) is abandoned; `a` was used at 4 s, `c` busy.
        s.begin("c");
        assert_eq!(open(&mut s, "d", at(1 + abandoned)), Ok(Some("b".into())));
        assert_eq!(
            open(&mut s, "e", at(2 + abandoned)),
            Err(Full),
            "a is not abandoned yet"
        );
        assert_eq!(open(&mut s, "e", at(4 + abandoned)), Ok(Some("a".into())));
        // A request in flight keeps a session however long it lasts.
        assert_eq!(open(&mut s, "f", at(10 * abandoned)), Ok(Some("d".into())));
        assert_eq!(open(&mut s, "g", at(11 * abandoned)), Ok(Some("e".into())));
        assert!(s.get("c", at(11 * abandoned)).is_some());
        s.end("c", at(11 * abandoned));
        assert!(s.close("c"));
        assert!(!s.close("a"));
        assert_eq!(s.len(), 2);
    }
}
