//! The shell around the connection table ([`super::slots`]): it reads the clock, and gives each
//! admitted connection the handle by which it is shed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use tokio::sync::Notify;

use super::slots::{SlotId, Slots};

/// How a shed connection is told to close.
#[derive(Default)]
pub(super) struct Shed {
    /// Wakes the connection's task, which then drops the connection.
    pub(super) now: Notify,
    /// Set before the wake: close at once, without lingering (no answer is on its way).
    pub(super) abrupt: Arc<AtomicBool>,
}

/// The table of open connections, shared by the accept loop and every connection.
pub(super) struct ConnectionLimit {
    slots: Mutex<Slots<Arc<Shed>>>,
}

impl ConnectionLimit {
    /// At most `max` connections.
    pub(super) fn new(max: usize) -> Self {
        Self {
            slots: Mutex::new(Slots::new(max)),
        }
    }

    fn slots(&self) -> MutexGuard<'_, Slots<Arc<Shed>>> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Admits a new connection, shedding the longest-waiting one if the table is full; `None`
    /// when every connection is working.
    pub(super) fn admit(&self, shed: Arc<Shed>) -> Option<SlotId> {
        let admitted = self.slots().admit(shed, Instant::now())?;
        if let Some(victim) = admitted.shed {
            victim.abrupt.store(true, Ordering::SeqCst);
            victim.now.notify_one();
        }
        Some(admitted.id)
    }

    /// Connection `id` is answering a request until the returned guard is dropped.
    pub(super) fn working(self: &Arc<Self>, id: SlotId) -> Working {
        self.slots().start_work(id);
        Working {
            limit: self.clone(),
            id,
        }
    }

    /// Connection `id` closed.
    pub(super) fn close(&self, id: SlotId) {
        self.slots().close(id);
    }
}

/// A connection answering a request: it is not shed while this lives.
pub(super) struct Working {
    limit: Arc<ConnectionLimit>,
    id: SlotId,
}

impl Drop for Working {
    fn drop(&mut self) {
        self.limit.slots().end_work(self.id, Instant::now());
    }
}
