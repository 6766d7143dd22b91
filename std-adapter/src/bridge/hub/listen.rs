//! The hub's list changes, told to its host: `notifications/tools/list_changed` to a legacy host
//! that initialized, and on every 2026-07-28 `subscriptions/listen` stream that asked for them,
//! tagged with the stream's id ([`crate::bridge::subscriptions`]). A listen stream ends when the
//! host cancels its request, or when the hub stops (it then sends `notifications/cancelled` with
//! the listen request's id); the hub never answers it.

use embedded_mcp::protocol::Version;
use serde_json::Value;

use super::Hub;
use crate::bridge::message::{self, error_response, Id, INVALID_PARAMS, METHOD_NOT_FOUND};
use crate::bridge::subscriptions::Filter;

impl Hub {
    /// A `subscriptions/listen` request; `meta_version`: the revision its `_meta` names.
    pub(super) fn on_listen(&mut self, id: Id, params: Option<&Value>, meta_version: Option<&str>) {
        let modern = meta_version
            .and_then(Version::parse)
            .is_some_and(|v| !v.is_legacy());
        if !modern {
            let text = "Method not found: subscriptions/listen is a 2026-07-28 request";
            self.emit(error_response(Some(&id.raw), METHOD_NOT_FOUND, text));
            return;
        }
        let Some(filter) = Filter::read(params) else {
            let text = "Invalid params: subscriptions/listen needs a \"notifications\" object";
            self.emit(error_response(Some(&id.raw), INVALID_PARAMS, text));
            return;
        };
        // `taskIds` are the task layer's (around the hub): it adds them to the acknowledgement.
        let filter = Filter {
            task_ids: None,
            ..filter
        };
        // The host's ids are its own: a listen re-using an open one's id replaces it.
        self.subscriptions.close(&id.key);
        let ack = self.subscriptions.open(id, filter, ());
        self.emit(ack);
    }

    /// Ends the listen stream of the request whose canonical id is `key`; false if none is open.
    pub(super) fn close_listen(&mut self, key: &str) -> bool {
        self.subscriptions.close(key)
    }

    /// The hub's tool list changed: tells the host, in the terms of its revision.
    pub(super) fn announce_list_changed(&mut self) {
        self.log.info(format_args!("the hub's tool list changed"));
        if self.initialized {
            self.emit(message::list_changed());
        }
        let mut lines = Vec::new();
        self.subscriptions.tools_list_changed(|(), line| {
            lines.push(line);
            true
        });
        for line in lines {
            self.emit(line);
        }
    }

    /// The hub stops: ends every listen stream, telling the host.
    pub(super) fn end_listens(&mut self) {
        for id in self.subscriptions.close_all() {
            self.emit(message::cancelled(&id.raw, "the bridge is stopping"));
        }
    }

    /// Whether a list change would reach anyone.
    pub(super) fn anyone_listens(&self) -> bool {
        self.initialized || !self.subscriptions.is_empty()
    }
}
