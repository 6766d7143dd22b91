//! The requests in flight: the host's (by canonical id), the bridge's own, and the messages
//! queued while the device is not ready.

use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use serde_json::Value;

use crate::bridge::message::Id;

/// A request written to the device, with its startup re-send schedule.
pub(super) struct Sent {
    /// Generation of the link it was written to.
    pub(super) gen: u64,
    /// The line, kept only when it may be re-sent.
    pub(super) line: Vec<u8>,
    pub(super) resend_at: Option<Instant>,
    pub(super) resends_left: u32,
}

/// A host request awaiting its response.
pub(super) struct Pending {
    pub(super) id: Id,
    pub(super) method: String,
    pub(super) tool: Option<String>,
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]` (2026-07-28 requests).
    pub(super) version: Option<String>,
    /// `params._meta` (reused for the bridge's own `tools/list` in 2026-07-28 sessions).
    pub(super) meta: Option<Value>,
    /// `params` of an `initialize` (kept to replay the handshake).
    pub(super) init_params: Option<Value>,
    /// A `tools/list` without cursor: its page starts a new listing.
    pub(super) first_page: bool,
    /// A `tools/list` answered in one page ([`crate::bridge::Pages::One`]): its params, and the
    /// tools of the pages so far.
    pub(super) merging: Option<Merging>,
    /// The key of `params._meta.progressToken`: each progress notification of it moves the
    /// idle deadline.
    pub(super) progress: Option<String>,
    /// When the host sent it (the hard cap counts from here).
    pub(super) started: Instant,
    /// The idle deadline (never later than `started` plus the hard cap).
    pub(super) deadline: Instant,
    /// `None` while queued.
    pub(super) sent: Option<Sent>,
}

/// A host's `tools/list` whose device pages are being joined into one.
pub(super) struct Merging {
    /// The host's params (the cursor of each next page is added to them).
    pub(super) params: Value,
    /// Tools of the pages so far.
    pub(super) tools: Vec<Value>,
    /// Pages read so far.
    pub(super) pages: usize,
}

/// What a request of the bridge's own is for.
pub(super) enum InternalKind {
    /// The `initialize` of a legacy session, replayed on a fresh link.
    ReplayInit,
    /// A page of the device's tool list, fetched to check a result.
    ToolsList {
        pages: usize,
        version: String,
        meta: Option<Value>,
    },
}

/// A request of the bridge's own.
pub(super) struct Internal {
    pub(super) kind: InternalKind,
    pub(super) first_page: bool,
    pub(super) deadline: Instant,
    pub(super) sent: Sent,
}

/// A host message waiting for the link to be ready; `key` is the pending request's, if any.
pub(super) struct Queued {
    pub(super) line: Vec<u8>,
    pub(super) key: Option<String>,
}

/// Every request in flight and the queue in front of the device.
pub(super) struct InFlight {
    pub(super) pending: HashMap<String, Pending>,
    pub(super) internal: HashMap<String, Internal>,
    /// Number of the next id of the bridge's own.
    pub(super) next_internal: u64,
    pub(super) queue: VecDeque<Queued>,
}

impl InFlight {
    pub(super) fn new() -> Self {
        Self {
            pending: HashMap::new(),
            internal: HashMap::new(),
            next_internal: 1,
            queue: VecDeque::new(),
        }
    }

    /// A fresh id of the bridge's own (never shown to the host).
    pub(super) fn new_internal_id(&mut self) -> String {
        let id = format!("embedded-mcp-bridge-{}", self.next_internal);
        self.next_internal += 1;
        id
    }

    /// True when `key` is the id of a request in flight (the host's or the bridge's).
    pub(super) fn in_use(&self, key: &str) -> bool {
        self.pending.contains_key(key) || self.internal.contains_key(key)
    }

    /// Removes the queued message of request `key`; true if there was one.
    pub(super) fn unqueue(&mut self, key: &str) -> bool {
        let before = self.queue.len();
        self.queue.retain(|q| q.key.as_deref() != Some(key));
        self.queue.len() != before
    }

    /// Every write in flight whose re-send schedule runs.
    pub(super) fn sent_mut(&mut self) -> impl Iterator<Item = &mut Sent> {
        let pending = self.pending.values_mut().filter_map(|p| p.sent.as_mut());
        pending.chain(self.internal.values_mut().map(|i| &mut i.sent))
    }

    /// The earliest deadline or re-send time, if any.
    pub(super) fn next_wakeup(&self) -> Option<Instant> {
        let sent_pending = self.pending.values().filter_map(|p| p.sent.as_ref());
        let sent_internal = self.internal.values().map(|i| &i.sent);
        let resends = sent_pending
            .chain(sent_internal)
            .filter_map(|s| s.resend_at);
        self.pending
            .values()
            .map(|p| p.deadline)
            .chain(self.internal.values().map(|i| i.deadline))
            .chain(resends)
            .min()
    }

    /// Keys of the host requests whose deadline has passed.
    pub(super) fn expired_pending(&self, now: Instant) -> Vec<String> {
        self.pending
            .iter()
            .filter(|(_, p)| p.deadline <= now)
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// Keys of the bridge's own requests whose deadline has passed.
    pub(super) fn expired_internal(&self, now: Instant) -> Vec<String> {
        self.internal
            .iter()
            .filter(|(_, i)| i.deadline <= now)
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// Keys of the host requests written to link `gen`.
    pub(super) fn sent_on(&self, gen: u64) -> Vec<String> {
        self.pending
            .iter()
            .filter(|(_, p)| p.sent.as_ref().is_some_and(|s| s.gen == gen))
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// The host request whose progress token has the key `token`.
    pub(super) fn by_progress_token(&mut self, token: &str) -> Option<&mut Pending> {
        self.pending
            .values_mut()
            .find(|p| p.progress.as_deref() == Some(token))
    }

    /// True when a host request whose progress token has the key `token` was written to link
    /// `gen` and is not answered yet: the device on that link may report its progress.
    pub(super) fn progress_on(&self, token: &str, gen: u64) -> bool {
        self.pending.values().any(|p| {
            p.progress.as_deref() == Some(token) && p.sent.as_ref().is_some_and(|s| s.gen == gen)
        })
    }

    /// True when host request `key` was written to link `gen`.
    pub(super) fn awaits_on(&self, key: &str, gen: u64) -> bool {
        self.pending
            .get(key)
            .is_some_and(|p| p.sent.as_ref().is_some_and(|s| s.gen == gen))
    }
}
