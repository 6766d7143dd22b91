//! What the layer keeps per task besides the table: the device call (its `tools/call` params,
//! the id of the round in flight) and the rounds of `input_required` (the keys the client sees
//! for the device's keys, the answers so far, the device's `requestState`).
//!
//! Each round is a `tools/call` of the layer's own id, `embedded-mcp-task-N`, which is also its
//! `progressToken`: the device's answer and progress for it come back to the layer and never to
//! the client. Its `_meta` has no `logLevel`, so a 2026-07-28 device sends no log for it.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::bridge::message::meta;

/// `_meta` key of a request's log level (2026-07-28).
const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// Prefix of the layer's ids (never shown to a client).
pub(super) const CALL_ID_PREFIX: &str = "embedded-mcp-task-";

/// One task's call to the device.
#[derive(Debug, Clone, Default)]
pub(super) struct TaskCall {
    /// The client's `tools/call` params, without the client's `progressToken`, `logLevel`,
    /// legacy `task` hint, `inputResponses` and `requestState`.
    pub(super) params: Map<String, Value>,
    /// The exact id text of the round the device has, if one is in flight.
    pub(super) in_flight: Option<String>,
    /// Rounds of input so far.
    pub(super) round: u32,
    /// For the outstanding input requests: the key the client sees → the device's key.
    pub(super) keys: HashMap<String, String>,
    /// Every key shown to the client so far (a key is never shown for two requests).
    pub(super) shown: HashSet<String>,
    /// The answers so far, by the device's key.
    pub(super) answers: Map<String, Value>,
    /// The device's `requestState` of the outstanding round.
    pub(super) request_state: Option<Value>,
}

impl TaskCall {
    /// The call of a client's `tools/call` `params`.
    pub(super) fn new(params: Option<&Value>) -> Self {
        let mut params = params
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        for member in ["task", "inputResponses", "requestState"] {
            params.remove(member);
        }
        if let Some(m) = params.get_mut(meta::KEY).and_then(Value::as_object_mut) {
            m.remove(meta::PROGRESS_TOKEN);
            m.remove(LOG_LEVEL);
        }
        Self {
            params,
            ..Self::default()
        }
    }

    /// The `tools/call` line of a round with id (and progress token) `id`: the first round
    /// carries what the client sent (its own `inputResponses` and `requestState` of a
    /// multi round-trip included, `first`), later ones the answers collected for the device.
    pub(super) fn line(&self, id: &str, first: Option<&Value>) -> Vec<u8> {
        let mut params = self.params.clone();
        let round_input = [
            ("inputResponses", Some(Value::Object(self.answers.clone()))),
            ("requestState", self.request_state.clone()),
        ];
        for (member, ours) in round_input {
            let value = match first {
                Some(client) => client.get(member).cloned(),
                None if self.round > 0 => ours,
                None => None,
            };
            if let Some(value) = value {
                params.insert(member.into(), value);
            }
        }
        let meta_object = params
            .entry(meta::KEY)
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(m) = meta_object.as_object_mut() {
            m.insert(meta::PROGRESS_TOKEN.into(), Value::String(id.into()));
        }
        let request = serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "tools/call",
            "params": params,
        });
        serde_json::to_vec(&request).unwrap_or_default()
    }

    /// The device asked for input: its `inputRequests` under keys never shown before, and
    /// the round's `requestState` kept for the retry.
    pub(super) fn ask(
        &mut self,
        asked: &Map<String, Value>,
        state: Option<Value>,
    ) -> Map<String, Value> {
        self.round += 1;
        self.keys.clear();
        self.answers.clear();
        self.request_state = state;
        let mut shown = Map::new();
        for (key, request) in asked {
            let mut seen = key.clone();
            let mut n = 1;
            while self.shown.contains(&seen) {
                n += 1;
                seen = format!("{key}~{n}");
            }
            self.shown.insert(seen.clone());
            self.keys.insert(seen.clone(), key.clone());
            shown.insert(seen, request.clone());
        }
        shown
    }

    /// The client answered key `seen` with `answer`; false when it is not outstanding.
    pub(super) fn answer(&mut self, seen: &str, answer: &Value) -> bool {
        let Some(key) = self.keys.remove(seen) else {
            return false;
        };
        self.answers.insert(key, answer.clone());
        true
    }
}

/// True when a request's `params` declare the extension in their client capabilities.
pub(super) fn declares_extension(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get(meta::KEY))
        .and_then(|m| m.get(meta::CLIENT_CAPABILITIES))
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(super::EXTENSION))
        .is_some_and(|v| !v.is_null())
}

/// True when a `tools/call`'s `params` carry `inputResponses` (the retry of a multi
/// round-trip).
pub(super) fn carries_input(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get("inputResponses"))
        .is_some_and(|v| !v.is_null())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn rounds_carry_the_layer_token_and_the_collected_answers() {
        let params = json!({"name": "set_relay", "arguments": {"on": true}, "task": {"ttl": 5},
            "_meta": {"progressToken": 9, "io.modelcontextprotocol/logLevel": "debug",
                "io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
        let mut call = TaskCall::new(Some(&params));
        assert_eq!(
            String::from_utf8(call.line("embedded-mcp-task-1", Some(&params))).unwrap(),
            r#"{"id":"embedded-mcp-task-1","jsonrpc":"2.0","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"embedded-mcp-task-1"},"arguments":{"on":true},"name":"set_relay"}}"#
        );
        let asked = json!({"ok": {"method": "elicitation/create"}});
        let shown = call.ask(asked.as_object().unwrap(), Some(json!("s1")));
        assert_eq!(Value::Object(shown), asked);
        assert!(!call.answer("nope", &json!(1)));
        assert!(call.answer("ok", &json!({"action": "accept"})));
        assert!(
            !call.answer("ok", &json!({"action": "accept"})),
            "answered once"
        );
        assert_eq!(
            String::from_utf8(call.line("embedded-mcp-task-2", None)).unwrap(),
            r#"{"id":"embedded-mcp-task-2","jsonrpc":"2.0","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"embedded-mcp-task-2"},"arguments":{"on":true},"inputResponses":{"ok":{"action":"accept"}},"name":"set_relay","requestState":"s1"}}"#
        );
        // The device asks with the same key again: the client sees a key it never saw.
        let shown = call.ask(asked.as_object().unwrap(), None);
        assert_eq!(shown.keys().collect::<Vec<_>>(), ["ok~2"]);
        assert!(call.answer("ok~2", &json!({"action": "decline"})));
        assert_eq!(
            call.answers,
            *json!({"ok": {"action": "decline"}}).as_object().unwrap()
        );
    }

    #[test]
    fn the_extension_is_read_from_the_request_capabilities() {
        let with = json!({"_meta": {"io.modelcontextprotocol/clientCapabilities":
            {"extensions": {"io.modelcontextprotocol/tasks": {}}}}});
        assert!(declares_extension(Some(&with)));
        let without = json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}});
        assert!(!declares_extension(Some(&without)));
        assert!(!declares_extension(None));
    }
}
