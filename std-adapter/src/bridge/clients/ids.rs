//! The id table of the engine's clients: every request a client forwards gets an id the bridge
//! chose (1, 2, 3, …, never a client's), so requests of different clients never collide on the
//! device's one stream; each id names the route its answers take back. Sans-IO: it holds no
//! channel and reads no clock, and what a route is (a channel to a waiting HTTP request, in the
//! front) is the caller's.

use std::collections::{HashMap, VecDeque};

/// A request as its client names it: the client (a legacy session's id; empty for a client that
/// never cancels by id) and the request id's canonical text.
pub type ClientKey = (String, String);

/// Why a request could not be filed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DuplicateId;

struct Entry<R> {
    route: R,
    key: Option<ClientKey>,
}

/// The table (see the module documentation).
pub struct Ids<R> {
    next: u64,
    entries: HashMap<u64, Entry<R>>,
    by_client: HashMap<ClientKey, u64>,
    /// Ids in the order they were filed (removed ones are skipped lazily).
    order: VecDeque<u64>,
}

impl<R> Default for Ids<R> {
    fn default() -> Self {
        Self {
            next: 1,
            entries: HashMap::new(),
            by_client: HashMap::new(),
            order: VecDeque::new(),
        }
    }
}

impl<R> Ids<R> {
    /// The id the next filed request gets.
    pub fn next_id(&self) -> u64 {
        self.next
    }

    /// Files a request under a new id with `route`; `key` (when the client may cancel it by its
    /// own id) must not be in flight already.
    pub fn file(&mut self, key: Option<ClientKey>, route: R) -> Result<u64, DuplicateId> {
        if key.as_ref().is_some_and(|k| self.by_client.contains_key(k)) {
            return Err(DuplicateId);
        }
        let id = self.next;
        self.next += 1;
        if let Some(key) = &key {
            self.by_client.insert(key.clone(), id);
        }
        self.entries.insert(id, Entry { route, key });
        self.order.push_back(id);
        Ok(id)
    }

    /// True when `key` is in flight.
    pub fn in_use(&self, key: &ClientKey) -> bool {
        self.by_client.contains_key(key)
    }

    /// The id of the client's request `key`, while it is in flight.
    pub fn id_of(&self, key: &ClientKey) -> Option<u64> {
        self.by_client.get(key).copied()
    }

    /// The route of request `id`.
    pub fn get(&self, id: u64) -> Option<&R> {
        self.entries.get(&id).map(|e| &e.route)
    }

    /// True when request `id` is in flight.
    pub fn contains(&self, id: u64) -> bool {
        self.entries.contains_key(&id)
    }

    /// Removes request `id` (answered, cancelled or forgotten) and returns its route.
    pub fn remove(&mut self, id: u64) -> Option<R> {
        let entry = self.entries.remove(&id)?;
        if let Some(key) = entry.key {
            self.by_client.remove(&key);
        }
        Some(entry.route)
    }

    /// The id an answer line names (its JSON text), if it is one of the table's.
    pub fn parse(text: &str) -> Option<u64> {
        text.parse().ok()
    }

    /// The oldest request still in flight: the one a device serving requests one at a time in
    /// arrival order is serving (a line that names no request, like a log line, is its).
    pub fn current(&mut self) -> Option<u64> {
        while let Some(&id) = self.order.front() {
            if self.entries.contains_key(&id) {
                return Some(id);
            }
            self.order.pop_front();
        }
        None
    }

    /// Requests in flight.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no request is in flight.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(client: &str, id: &str) -> Option<ClientKey> {
        Some((client.into(), id.into()))
    }

    #[test]
    fn ids_are_the_bridges_and_a_client_id_is_in_flight_once_per_client() {
        let mut ids = Ids::default();
        assert_eq!(ids.file(key("A", "1"), "a1"), Ok(1));
        assert_eq!(ids.file(key("B", "1"), "b1"), Ok(2));
        assert_eq!(ids.file(key("A", "1"), "again"), Err(DuplicateId));
        // Clients that never cancel by id are not keyed.
        assert_eq!(ids.file(None, "s"), Ok(3));
        assert_eq!(ids.file(None, "s"), Ok(4));
        assert_eq!(ids.id_of(&("B".into(), "1".into())), Some(2));
        assert_eq!(ids.remove(2), Some("b1"));
        assert!(!ids.in_use(&("B".into(), "1".into())));
        assert_eq!(ids.file(key("B", "1"), "b1 again"), Ok(5));
        assert_eq!(ids.remove(2), None);
        assert_eq!(ids.len(), 4);
        assert_eq!(Ids::<()>::parse("5"), Some(5));
        assert_eq!(Ids::<()>::parse("\"5\""), None);
    }

    #[test]
    fn the_current_request_is_the_oldest_in_flight() {
        let mut ids = Ids::default();
        assert_eq!(ids.current(), None);
        for n in 0..3 {
            ids.file(None, n).unwrap();
        }
        assert_eq!(ids.current(), Some(1));
        ids.remove(2);
        assert_eq!(ids.current(), Some(1));
        ids.remove(1);
        assert_eq!(ids.current(), Some(3));
        ids.remove(3);
        assert_eq!(ids.current(), None);
        assert!(ids.is_empty());
    }
}
