//! The id table of the engine's clients: every request a client forwards goes to the router
//! under an id the bridge chose (its ticket: 1, 2, 3, …, never a client's), so requests of
//! different clients never collide on the device's one stream; each id names the route its
//! answers take back. Sans-IO: it holds no channel and reads no clock, and what a route is is
//! the caller's.

use std::collections::{BTreeMap, HashMap};

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
    /// By id, so in the order they were filed (ids only grow).
    entries: BTreeMap<u64, Entry<R>>,
    by_client: HashMap<ClientKey, u64>,
}

impl<R> Default for Ids<R> {
    fn default() -> Self {
        Self {
            entries: BTreeMap::new(),
            by_client: HashMap::new(),
        }
    }
}

impl<R> Ids<R> {
    /// Files a request under `id` (larger than any filed before) with `route`; `key` (when the
    /// client may cancel it by its own id) must not be in flight already.
    pub fn file(&mut self, id: u64, key: Option<ClientKey>, route: R) -> Result<(), DuplicateId> {
        if key.as_ref().is_some_and(|k| self.by_client.contains_key(k)) {
            return Err(DuplicateId);
        }
        if let Some(key) = &key {
            self.by_client.insert(key.clone(), id);
        }
        self.entries.insert(id, Entry { route, key });
        Ok(())
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

    /// The route of request `id`, to change.
    pub fn get_mut(&mut self, id: u64) -> Option<&mut R> {
        self.entries.get_mut(&id).map(|e| &mut e.route)
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

    /// The oldest request in flight whose route `which` accepts: of the requests on one
    /// device, which serves them one at a time in arrival order, the one it is serving (a
    /// line that names no request, like a log line, is its).
    pub fn oldest(&self, which: impl Fn(&R) -> bool) -> Option<u64> {
        self.entries
            .iter()
            .find(|(_, e)| which(&e.route))
            .map(|(id, _)| *id)
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
    fn a_client_id_is_in_flight_once_per_client() {
        let mut ids = Ids::default();
        assert_eq!(ids.file(1, key("A", "1"), "a1"), Ok(()));
        assert_eq!(ids.file(2, key("B", "1"), "b1"), Ok(()));
        assert_eq!(ids.file(3, key("A", "1"), "again"), Err(DuplicateId));
        // Clients that never cancel by id are not keyed.
        assert_eq!(ids.file(4, None, "s"), Ok(()));
        assert_eq!(ids.file(5, None, "s"), Ok(()));
        assert_eq!(ids.id_of(&("B".into(), "1".into())), Some(2));
        assert_eq!(ids.remove(2), Some("b1"));
        assert!(!ids.in_use(&("B".into(), "1".into())));
        assert_eq!(ids.file(6, key("B", "1"), "b1 again"), Ok(()));
        assert_eq!(ids.remove(2), None);
        assert_eq!(ids.len(), 4);
        assert_eq!(Ids::<()>::parse("5"), Some(5));
        assert_eq!(Ids::<()>::parse("\"5\""), None);
    }

    #[test]
    fn the_oldest_request_of_a_device_is_the_one_it_serves() {
        let mut ids = Ids::default();
        assert_eq!(ids.oldest(|_: &u8| true), None);
        for (id, device) in [(1, 0u8), (2, 1), (3, 0), (4, 1)] {
            ids.file(id, None, device).unwrap();
        }
        assert_eq!(ids.oldest(|d| *d == 1), Some(2));
        ids.remove(1);
        assert_eq!(ids.oldest(|d| *d == 0), Some(3));
        ids.remove(2);
        assert_eq!(ids.oldest(|d| *d == 1), Some(4));
        ids.remove(3);
        ids.remove(4);
        assert_eq!(ids.oldest(|_| true), None);
        assert!(ids.is_empty());
    }
}
