//! The connection table: a bound on open connections that no client can use to lock the others
//! out. A connection is *waiting* while it has no request being answered (idle between
//! requests, or still sending a head or a body) and *working* while the front answers one of
//! its requests. When a new connection arrives at the bound, the connection that has waited
//! longest is shed to make room: slow or idle clients (slowloris, abandoned keep-alives) give
//! way, a connection whose request is being answered never does. Only when every connection is
//! working is the new one turned away.
//!
//! Without I/O or a clock: the shell passes the time in and acts on what comes out.

use std::collections::HashMap;
use std::time::Instant;

/// Names one connection of the table.
pub(super) type SlotId = u64;

struct Slot<T> {
    /// Requests of the connection being answered (0: waiting).
    working: u32,
    /// When it last started waiting (its arrival, or the end of its last answer).
    waiting_since: Instant,
    handle: T,
}

/// The open connections, each with a `handle` the shell uses to close it when it is shed.
pub(super) struct Slots<T> {
    next: SlotId,
    open: HashMap<SlotId, Slot<T>>,
    max: usize,
}

/// A new connection was admitted.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Admitted<T> {
    /// Its id.
    pub(super) id: SlotId,
    /// The handle of the connection shed to make room, if one was.
    pub(super) shed: Option<T>,
}

impl<T> Slots<T> {
    /// At most `max` connections (at least 1).
    pub(super) fn new(max: usize) -> Self {
        Self {
            next: 0,
            open: HashMap::new(),
            max: max.max(1),
        }
    }

    /// Admits a connection arriving at `now`, shedding the one that has waited longest when the
    /// table is full; `None` when every connection is working (the new one is turned away).
    pub(super) fn admit(&mut self, handle: T, now: Instant) -> Option<Admitted<T>> {
        let mut shed = None;
        if self.open.len() >= self.max {
            let victim = self
                .open
                .iter()
                .filter(|(_, s)| s.working == 0)
                .min_by_key(|(id, s)| (s.waiting_since, **id))
                .map(|(id, _)| *id)?;
            shed = self.open.remove(&victim).map(|s| s.handle);
        }
        let id = self.next;
        self.next += 1;
        self.open.insert(
            id,
            Slot {
                working: 0,
                waiting_since: now,
                handle,
            },
        );
        Some(Admitted { id, shed })
    }

    /// Connection `id` started answering a request.
    pub(super) fn start_work(&mut self, id: SlotId) {
        if let Some(slot) = self.open.get_mut(&id) {
            slot.working += 1;
        }
    }

    /// Connection `id` finished answering a request at `now`.
    pub(super) fn end_work(&mut self, id: SlotId, now: Instant) {
        if let Some(slot) = self.open.get_mut(&id) {
            slot.working = slot.working.saturating_sub(1);
            if slot.working == 0 {
                slot.waiting_since = now;
            }
        }
    }

    /// Connection `id` closed.
    pub(super) fn close(&mut self, id: SlotId) {
        self.open.remove(&id);
    }

    /// Open connections.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.open.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_longest_waiting_connection_makes_room_and_working_ones_stay() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut slots = Slots::new(3);
        let a = slots.admit("a", at(0)).unwrap();
        let b = slots.admit("b", at(1)).unwrap();
        let c = slots.admit("c", at(2)).unwrap();
        assert_eq!((a.shed, b.shed, c.shed), (None, None, None));
        // `a` works, so `b` has waited longest.
        slots.start_work(a.id);
        let d = slots.admit("d", at(3)).unwrap();
        assert_eq!(d.shed, Some("b"));
        assert_eq!(slots.len(), 3);
        // `a` finishes at 4 s: it now waits since then, so `c` (since 2 s) goes first.
        slots.end_work(a.id, at(4));
        assert_eq!(slots.admit("e", at(5)).unwrap().shed, Some("c"));
        assert_eq!(slots.admit("f", at(6)).unwrap().shed, Some("d"));
        // All working: the newcomer is turned away.
        let mut full = Slots::new(1);
        let only = full.admit("x", at(0)).unwrap();
        full.start_work(only.id);
        assert!(full.admit("y", at(1)).is_none());
        full.close(only.id);
        assert_eq!(full.admit("y", at(2)).unwrap().shed, None);
    }
}
