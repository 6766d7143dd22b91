//! The legacy input-required shim ([`crate::bridge::input_shim`]) for HTTP sessions: one shim
//! per legacy session that declared `elicitation`. A `tools/call` POST that accepts an SSE
//! answer goes to the device in 2026-07-28 form; the device's questions go to the client as
//! requests on that POST's stream; the client answers them with POSTs of responses in its
//! session; each round goes to the router under the call's bridge-side id; the call's answer ends
//! the stream. The person's wait is bounded by the shim's deadline, which the waiting POST
//! checks when its idle timer fires.

use std::collections::HashMap;
use std::sync::MutexGuard;
use std::time::Instant;

use serde_json::{json, Value};

use super::clock::now;
use super::multiplex::{Delivery, ForwardError, Multiplex, Owner, Ticket};
use super::session_table::LegacySession;
use crate::bridge::input_shim::{Action, InputShim};
use crate::bridge::message::{splice, Id};

/// Prefix of the front's ids for its questions to a client.
const ASK_PREFIX: &str = "embedded-mcp-bridge-input-";

impl Multiplex {
    pub(super) fn shims(&self) -> MutexGuard<'_, HashMap<String, InputShim>> {
        self.shims.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forwards call `id` (`request`, a `tools/call`) of session `session_id` through the shim;
    /// `None` when the shim does not take it (the session did not declare `elicitation`, or the
    /// request names a revision itself).
    pub(super) fn forward_shimmed(
        &self,
        session: &LegacySession,
        session_id: &str,
        request: &Value,
        line: &[u8],
        id: &Id,
        owner: Owner,
    ) -> Option<Result<Ticket, ForwardError>> {
        let params = request.get("params");
        let modern = {
            let mut shims = self.shims();
            let shim = shims.entry(session_id.to_owned()).or_insert_with(|| {
                let mut shim = InputShim::new(self.input_timeout, ASK_PREFIX);
                let init = json!({"capabilities": session.capabilities});
                shim.initialized(session.version.as_str(), Some(&init));
                shim
            });
            if !shim.wants(params) {
                return None;
            }
            // The front filters log messages by the session's level: the device sends them all.
            let level = session.log_level.load(std::sync::atomic::Ordering::Relaxed);
            shim.set_log_level((level != 0).then_some("debug"));
            shim.begin(id, splice::member_text(line, "params"))?
        };
        Some(self.forward_with(&modern, owner, true))
    }

    /// The router answered a round of shim call `bridge_id` with `line`.
    pub(super) fn on_shim_answer(&self, owner: &Owner, line: &[u8]) {
        let session = owner.session.clone().unwrap_or_default();
        let actions = self
            .shims()
            .get_mut(&session)
            .map(|s| s.on_device_answer(&owner.id_key, line, now()))
            .unwrap_or_default();
        self.run_shim_actions(&session, actions);
    }

    /// A client response in `session` (`value`, id key `key`): true when it answered one of the
    /// shim's questions.
    pub(super) fn on_client_answer(&self, session: &str, key: &str, value: &Value) -> bool {
        let actions = {
            let mut shims = self.shims();
            let Some(shim) = shims.get_mut(session).filter(|s| s.owns(key)) else {
                return false;
            };
            shim.on_host_answer(key, value)
        };
        self.run_shim_actions(session, actions);
        true
    }

    /// The client cancelled its call `key` in `session`: true when the shim held it (its
    /// questions are withdrawn on the call's stream, which then ends without an answer).
    pub(super) fn cancel_shimmed(&self, session: &str, key: &str) -> bool {
        let actions = self.shims().get_mut(session).and_then(|s| s.cancel(key));
        let Some(actions) = actions else {
            return false;
        };
        self.run_shim_actions(session, actions);
        let mut state = self.state();
        if let Some(bridge_id) = state.id_of(&(session.to_owned(), key.to_owned())) {
            state.remove(bridge_id);
        }
        true
    }

    /// The session and the client's id key of shim call `bridge_id`, while a person is asked.
    fn asked(&self, bridge_id: u64) -> Option<(String, String)> {
        let owner = self.state().get(bridge_id)?.owner.clone();
        let session = owner.session?;
        let asking = self
            .shims()
            .get(&session)
            .is_some_and(|shim| shim.asking(&owner.id_key));
        asking.then_some((session, owner.id_key))
    }

    /// While a person answers call `bridge_id`: the shim's deadline.
    pub(super) fn person_deadline(&self, bridge_id: u64) -> Option<Instant> {
        let (session, _) = self.asked(bridge_id)?;
        self.shims().get(&session)?.next_deadline()
    }

    /// The person asked for call `bridge_id` did not answer by the shim's deadline (`now` is
    /// past it): the shim answers the call (on the call's stream).
    pub(super) fn person_late(&self, bridge_id: u64, now: Instant) {
        let Some((session, _)) = self.asked(bridge_id) else {
            return;
        };
        let late = self
            .shims()
            .get_mut(&session)
            .map(|shim| shim.on_timeout(now))
            .unwrap_or_default();
        self.run_shim_actions(&session, late);
    }

    /// Forgets the shim of `session` (the session ended).
    pub(super) fn forget_shim(&self, session: &str) {
        self.shims().remove(session);
    }

    fn run_shim_actions(&self, session: &str, actions: Vec<Action>) {
        for action in actions {
            let key = match &action {
                Action::Host { key, .. }
                | Action::Device { key, .. }
                | Action::Complete { key, .. }
                | Action::Answer { key, .. } => key.clone(),
            };
            let mut state = self.state();
            let client = (session.to_owned(), key);
            let Some(bridge_id) = state.id_of(&client) else {
                continue;
            };
            let Some(route) = state.get(bridge_id) else {
                continue;
            };
            let tx = route.tx.clone();
            match action {
                Action::Host { line, .. } => {
                    let _ = tx.send(Delivery::Notification(line));
                }
                Action::Device { line, .. } => {
                    drop(state);
                    self.send_round(bridge_id, &line);
                }
                Action::Complete { id, result, .. } => {
                    let mut line = b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec();
                    line.extend_from_slice(id.as_bytes());
                    line.extend_from_slice(b",\"result\":");
                    line.extend_from_slice(&result);
                    line.push(b'}');
                    let _ = tx.send(Delivery::Response(line));
                    state.remove(bridge_id);
                }
                Action::Answer { line, .. } => {
                    let _ = tx.send(Delivery::Response(line));
                    state.remove(bridge_id);
                }
            }
        }
    }

    /// A later round of call `bridge_id` to the router, under the same bridge-side id (and
    /// progress token, when the call has one); every other byte is the shim's line.
    fn send_round(&self, bridge_id: u64, line: &[u8]) {
        let id = bridge_id.to_string();
        if let Some((line, _)) = splice::with_id_and_token(line, &id, &id) {
            let _ = self.to_router.send(line);
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver as Receiver};

    use embedded_mcp::protocol::Version;

    use super::super::session_table::Sessions;
    use super::*;
    use crate::log::Logger;

    fn sent(router: &mut Receiver<Vec<u8>>) -> Value {
        serde_json::from_slice(&router.try_recv().expect("a line for the router")).unwrap()
    }

    #[test]
    fn a_session_call_asks_on_its_stream_and_every_round_keeps_its_bridge_id() {
        let (tx, mut router) = unbounded_channel();
        let mux = Multiplex::new(tx, Logger::to_writer(0, "t", Box::new(std::io::sink())));
        let sessions = Sessions::new(4);
        let caps = json!({"elicitation": {}});
        let opened = sessions
            .open(Version::V2025_11_25, caps, false, Instant::now())
            .unwrap();
        let session = sessions.get(&opened.id, Instant::now()).unwrap();
        let request = json!({"jsonrpc": "2.0", "id": "c", "method": "tools/call",
            "params": {"name": "set_relay", "arguments": {"relay": 1, "on": true}}});
        let id = Id {
            raw: "\"c\"".into(),
            key: "\"c\"".into(),
        };
        let owner = Owner {
            session: Some(opened.id.clone()),
            id_raw: id.raw.clone(),
            id_key: id.key.clone(),
            log_level: Some(session.log_level.clone()),
        };
        let mut ticket = mux
            .forward_shimmed(
                &session,
                &opened.id,
                &request,
                request.to_string().as_bytes(),
                &id,
                owner,
            )
            .expect("the shim takes it")
            .unwrap();
        let first = sent(&mut router);
        assert_eq!(first["id"], 1);
        assert_eq!(
            first["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        mux.on_router_line(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"approval":{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object"}}}},"requestState":"s"}}"#.to_vec());
        let Ok(Delivery::Notification(ask)) = ticket.lines.try_recv() else {
            panic!("a question on the call's stream");
        };
        assert_eq!(
            String::from_utf8(ask).unwrap(),
            r#"{"id":"embedded-mcp-bridge-input-1","jsonrpc":"2.0","method":"elicitation/create","params":{"message":"m","mode":"form","requestedSchema":{"type":"object"}}}"#
        );
        // A response to nothing the shim asked is not the shim's.
        assert!(!mux.on_client_answer(&opened.id, "\"x\"", &json!({"result": {}})));
        let accept = json!({"jsonrpc": "2.0", "id": "embedded-mcp-bridge-input-1",
            "result": {"action": "accept", "content": {"approve": true}}});
        assert!(mux.on_client_answer(&opened.id, "\"embedded-mcp-bridge-input-1\"", &accept));
        let second = sent(&mut router);
        assert_eq!(second["id"], 1, "the same bridge-side id");
        assert_eq!(second["params"]["requestState"], "s");
        assert_eq!(
            second["params"]["inputResponses"]["approval"]["action"],
            "accept"
        );
        mux.on_router_line(
            br#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"complete"}}"#.to_vec(),
        );
        let Ok(Delivery::Response(done)) = ticket.lines.try_recv() else {
            panic!("the answer");
        };
        assert_eq!(
            String::from_utf8(done).unwrap(),
            r#"{"jsonrpc":"2.0","id":"c","result":{"content":[]}}"#
        );
        assert_eq!(mux.in_flight(), 0);
    }

    #[test]
    fn a_session_that_cancels_while_the_person_thinks_gets_its_question_withdrawn() {
        let (tx, mut router) = unbounded_channel();
        let mux = Multiplex::new(tx, Logger::to_writer(0, "t", Box::new(std::io::sink())));
        let sessions = Sessions::new(4);
        let opened = sessions
            .open(
                Version::V2025_11_25,
                json!({"elicitation": {}}),
                false,
                Instant::now(),
            )
            .unwrap();
        let session = sessions.get(&opened.id, Instant::now()).unwrap();
        let request = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "set_relay", "arguments": {}}});
        let id = Id {
            raw: "4".into(),
            key: "4".into(),
        };
        let owner = Owner {
            session: Some(opened.id.clone()),
            id_raw: "4".into(),
            id_key: "4".into(),
            log_level: None,
        };
        let mut ticket = mux
            .forward_shimmed(
                &session,
                &opened.id,
                &request,
                request.to_string().as_bytes(),
                &id,
                owner,
            )
            .unwrap()
            .unwrap();
        sent(&mut router);
        mux.on_router_line(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object"}}}}}}"#.to_vec());
        assert!(matches!(
            ticket.lines.try_recv(),
            Ok(Delivery::Notification(_))
        ));
        mux.cancel_client(Some(&opened.id), "4", "user");
        let Ok(Delivery::Notification(withdrawn)) = ticket.lines.try_recv() else {
            panic!("the question withdrawn");
        };
        assert!(String::from_utf8(withdrawn)
            .unwrap()
            .contains(r#""requestId":"embedded-mcp-bridge-input-1""#));
        assert!(router.try_recv().is_err(), "nothing is on the device");
        assert_eq!(mux.in_flight(), 0);
    }
}
