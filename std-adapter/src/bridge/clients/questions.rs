//! The legacy input-required shim ([`crate::bridge::input_shim`]) for HTTP sessions: one shim
//! per legacy session that declared `elicitation`. A `tools/call` POST that accepts an SSE
//! answer goes to the device in 2026-07-28 form; the device's questions go to the client as
//! requests on that POST's stream; the client answers them with POSTs of responses in its
//! session; each round goes to the router under the call's ticket; the call's answer ends the
//! stream. The person's wait is bounded by the shim's deadline, which the call's timer keeps
//! (`deadlines::ReplyWait`).

use std::time::Instant;

use serde_json::{json, Value};

use super::engine::Clients;
use super::event::{Answer, Delivery, Owner, Ticket};
use crate::bridge::input_shim::{Action, InputShim};
use crate::bridge::message::{splice, Id};

/// Prefix of the front's ids for its questions to a client.
const ASK_PREFIX: &str = "embedded-mcp-bridge-input-";

impl<R: Clone> Clients<R> {
    /// Forwards call `id` (`body`, a `tools/call` of session `session`) through the shim;
    /// `None` when the shim does not take it (the session did not declare `elicitation`, or the
    /// request names a revision itself).
    pub(super) fn forward_shimmed(
        &mut self,
        ticket: Ticket,
        session: &str,
        request: &Value,
        body: &[u8],
        owner: Owner,
        sink: R,
    ) -> Option<Result<(), Answer>> {
        let (version, capabilities, level) = {
            let s = self.sessions.peek(session)?;
            (s.version, s.capabilities.clone(), s.log_level)
        };
        let timeout = self.cfg.input_timeout;
        let shim = self.shims.entry(session.to_owned()).or_insert_with(|| {
            let mut shim = InputShim::new(timeout, ASK_PREFIX);
            let init = json!({ "capabilities": capabilities });
            shim.initialized(version.as_str(), Some(&init));
            shim
        });
        if !shim.wants(request.get("params")) {
            return None;
        }
        // The layer filters log messages by the session's level: the device sends them all.
        shim.set_log_level((level != 0).then_some("debug"));
        let id = Id {
            raw: owner.id_raw.clone(),
            key: owner.id_key.clone(),
        };
        let modern = shim.begin(&id, splice::member_text(body, "params"))?;
        let tool = request.pointer("/params/name").and_then(Value::as_str);
        let device = self.device_of(tool);
        Some(self.forward(ticket, &modern, owner, device, sink, true))
    }

    /// The router answered a round of shim call `ticket` with `line`.
    pub(super) fn on_shim_answer(&mut self, ticket: Ticket, line: &[u8]) {
        let Some(owner) = self.ids.get(ticket).map(|r| r.owner.clone()) else {
            return;
        };
        let session = owner.session.unwrap_or_default();
        let now = self.now;
        let actions = self
            .shims
            .get_mut(&session)
            .map(|s| s.on_device_answer(&owner.id_key, line, now))
            .unwrap_or_default();
        self.run_shim_actions(&session, actions);
    }

    /// A client response in `session` (`value`, id key `key`): true when it answered one of the
    /// shim's questions.
    pub(super) fn on_client_answer(&mut self, session: &str, key: &str, value: &Value) -> bool {
        let Some(shim) = self.shims.get_mut(session).filter(|s| s.owns(key)) else {
            return false;
        };
        let actions = shim.on_host_answer(key, value);
        self.run_shim_actions(session, actions);
        true
    }

    /// The client cancelled its call `key` in `session`: true when the shim held it (its
    /// questions are withdrawn on the call's stream, which then ends without an answer).
    pub(super) fn cancel_shimmed(&mut self, session: &str, key: &str) -> bool {
        let Some(actions) = self.shims.get_mut(session).and_then(|s| s.cancel(key)) else {
            return false;
        };
        self.run_shim_actions(session, actions);
        if let Some(ticket) = self.ids.id_of(&(session.to_owned(), key.to_owned())) {
            self.finish(ticket);
        }
        true
    }

    /// The session and the client's id key of shim call `ticket`, while a person is asked.
    fn asked(&self, ticket: Ticket) -> Option<(String, String)> {
        let owner = &self.ids.get(ticket).filter(|r| r.shim)?.owner;
        let session = owner.session.clone()?;
        let asking = self
            .shims
            .get(&session)
            .is_some_and(|shim| shim.asking(&owner.id_key));
        asking.then(|| (session, owner.id_key.clone()))
    }

    /// While a person answers call `ticket`: the shim's deadline.
    pub(super) fn person_deadline(&self, ticket: Ticket) -> Option<Instant> {
        let (session, _) = self.asked(ticket)?;
        self.shims.get(&session)?.next_deadline()
    }

    /// The person asked for call `ticket` did not answer by the shim's deadline (`now` is past
    /// it): the shim answers the call (on the call's stream).
    pub(super) fn person_late(&mut self, ticket: Ticket, now: Instant) {
        let Some((session, _)) = self.asked(ticket) else {
            return;
        };
        let late = self
            .shims
            .get_mut(&session)
            .map(|shim| shim.on_timeout(now))
            .unwrap_or_default();
        self.run_shim_actions(&session, late);
    }

    /// Forgets the shim of `session` (the session ended).
    pub(super) fn forget_shim(&mut self, session: &str) {
        self.shims.remove(session);
    }

    fn run_shim_actions(&mut self, session: &str, actions: Vec<Action>) {
        for action in actions {
            let key = match &action {
                Action::Host { key, .. }
                | Action::Device { key, .. }
                | Action::Complete { key, .. }
                | Action::Answer { key, .. } => key.clone(),
            };
            let Some(ticket) = self.ids.id_of(&(session.to_owned(), key)) else {
                continue;
            };
            match action {
                Action::Host { line, .. } => self.deliver(ticket, Delivery::Notification(line)),
                Action::Device { line, .. } => {
                    // A later round, under the same ticket (and progress token, when the call
                    // has one); every other byte is the shim's line.
                    let id = ticket.to_string();
                    if let Some((line, _)) = splice::with_id_and_token(&line, &id, &id) {
                        self.send_to_router(line);
                    }
                }
                Action::Complete { id, result, .. } => {
                    let mut line = b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec();
                    line.extend_from_slice(id.as_bytes());
                    line.extend_from_slice(b",\"result\":");
                    line.extend_from_slice(&result);
                    line.push(b'}');
                    if let Some(route) = self.finish(ticket) {
                        self.deliver_to(route.sink, Delivery::Response(line));
                    }
                }
                Action::Answer { line, .. } => {
                    if let Some(route) = self.finish(ticket) {
                        self.deliver_to(route.sink, Delivery::Response(line));
                    }
                }
            }
        }
    }
}
