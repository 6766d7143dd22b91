//! Hosts of old revisions, whatever serves them (one device or a hub): the answers reshaped for
//! a host of 2024-11-05 or 2025-03-26 ([`downgrade`]) and the JSON-RPC batches of 2025-03-26
//! (split on the way in, answered as one array), as one layer of the engine
//! ([`RevisionLayer`]).

mod downgrade;
mod layer;

use std::collections::{HashMap, HashSet};

use embedded_mcp::json::{Limits, Value as RawValue, MAX_DEPTH_LIMIT};
use serde_json::Value;

use crate::bridge::message::{self, error_response, method, success_line, Class, INVALID_REQUEST};
use downgrade::{downgrade_notification, downgrade_result, OldEra};
pub(super) use layer::RevisionLayer;

/// One batch line of the host, waiting for the answers of its requests.
struct Batch {
    /// Keys of the requests not answered yet.
    waiting: HashSet<String>,
    /// The answers so far (lines).
    answers: Vec<Vec<u8>>,
}

/// What old revisions need: the host's revision, the method of each request in flight, open
/// batches.
#[derive(Default)]
pub(super) struct RevisionAdapter {
    /// Set when the host's `initialize` asked for an old revision.
    era: Option<OldEra>,
    /// Method of each host request in flight (by id key), to know what a response answers.
    methods: HashMap<String, String>,
    batches: Vec<Batch>,
    /// The batch whose messages are being handled right now: everything answered at once
    /// belongs to it.
    collecting: Option<usize>,
}

/// What to do with a host line that is a JSON array.
pub(super) enum BatchStart {
    /// Write this error response to the host and do nothing else.
    Refused(Vec<u8>),
    /// Handle each message as a line of its own, then call [`RevisionAdapter::close_batch`].
    Messages(Vec<Vec<u8>>),
}

/// True when the line is a JSON array (a batch), by its first byte that is not whitespace.
pub(super) fn is_batch(line: &[u8]) -> bool {
    line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
}

impl RevisionAdapter {
    /// True when the host's `initialize` asked for an old revision.
    pub(super) fn is_old(&self) -> bool {
        self.era.is_some()
    }

    /// A host request is on its way (its `method` decides how the answer is reshaped).
    pub(super) fn request(&mut self, key: &str, method: &str, params: Option<&Value>) {
        if method == method::INITIALIZE {
            let asked = params
                .and_then(|p| p.get("protocolVersion"))
                .and_then(Value::as_str);
            self.era = asked.and_then(OldEra::parse);
        }
        self.methods.insert(key.to_owned(), method.to_owned());
        if let Some(batch) = self.collecting.and_then(|i| self.batches.get_mut(i)) {
            batch.waiting.insert(key.to_owned());
        }
    }

    /// A host request that will never be answered (cancelled).
    pub(super) fn forget(&mut self, key: &str) {
        self.methods.remove(key);
        for batch in &mut self.batches {
            batch.waiting.remove(key);
        }
    }

    /// Starts a batch line (see [`BatchStart`]).
    pub(super) fn open_batch(&mut self, line: &[u8]) -> BatchStart {
        let limits = Limits {
            max_depth: MAX_DEPTH_LIMIT,
        };
        let Ok(doc) = RawValue::parse_with(line, limits) else {
            return BatchStart::Refused(error_response(
                None,
                message::PARSE_ERROR,
                "Parse error: the line is not JSON",
            ));
        };
        let items: Vec<Vec<u8>> = doc
            .elements()
            .map(|e| e.map(|v| v.raw().as_bytes().to_vec()).collect())
            .unwrap_or_default();
        if items.is_empty() {
            return BatchStart::Refused(error_response(
                None,
                INVALID_REQUEST,
                "Invalid request: an empty batch",
            ));
        }
        // Batches exist in 2025-03-26 only; elsewhere an array is no message at all.
        if self.era != Some(OldEra::V2025_03_26) {
            return BatchStart::Refused(error_response(
                None,
                INVALID_REQUEST,
                "Invalid request: not a JSON-RPC 2.0 request, notification or response",
            ));
        }
        let mut batch = Batch {
            waiting: HashSet::new(),
            answers: Vec::new(),
        };
        let mut messages = Vec::new();
        for item in items {
            match message::parse(&item).map(|m| m.class) {
                Some(Class::Request { id, method: name }) if name == method::INITIALIZE => {
                    batch.answers.push(error_response(
                        Some(&id.raw),
                        INVALID_REQUEST,
                        "Invalid request: initialize must not be part of a JSON-RPC batch",
                    ));
                }
                _ => messages.push(item),
            }
        }
        self.batches.push(batch);
        self.collecting = Some(self.batches.len() - 1);
        BatchStart::Messages(messages)
    }

    /// The batch's messages were all handled: returns its answer line if it is complete now.
    pub(super) fn close_batch(&mut self) -> Option<Vec<u8>> {
        let index = self.collecting.take()?;
        self.finish_if_done(index)
    }

    fn finish_if_done(&mut self, index: usize) -> Option<Vec<u8>> {
        if !self.batches.get(index)?.waiting.is_empty() || self.collecting == Some(index) {
            return None;
        }
        let batch = self.batches.remove(index);
        if batch.answers.is_empty() {
            return None; // notifications and responses only: nothing is sent
        }
        let mut out = vec![b'['];
        for (n, answer) in batch.answers.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            out.extend_from_slice(answer);
        }
        out.push(b']');
        Some(out)
    }

    /// A line for the host: reshaped for its revision, and held back while it belongs to a
    /// batch that is not complete. Returns the line to write, if any.
    pub(super) fn outgoing(&mut self, line: Vec<u8>) -> Option<Vec<u8>> {
        let Some(msg) = message::parse(&line) else {
            return Some(line);
        };
        let (key, line) = match msg.class {
            Class::Response { id } => {
                let method = self.methods.remove(&id.key);
                let line = match (self.era, method, msg.value.get("result")) {
                    (Some(era), Some(method), Some(result)) => {
                        let mut result = result.clone();
                        if downgrade_result(&mut result, &method, era) {
                            success_line(&id.raw, &result).unwrap_or(line)
                        } else {
                            line
                        }
                    }
                    _ => line,
                };
                (Some(id.key), line)
            }
            Class::Notification { .. } => {
                let mut value = msg.value;
                let line = match self.era {
                    Some(era) if downgrade_notification(&mut value, era) => {
                        serde_json::to_vec(&value).unwrap_or(line)
                    }
                    _ => line,
                };
                return Some(line);
            }
            Class::ErrorWithoutId | Class::Invalid { .. } => (None, line),
            Class::Request { .. } => return Some(line),
        };
        if let Some(index) = self.collecting {
            if let Some(batch) = self.batches.get_mut(index) {
                if let Some(key) = &key {
                    batch.waiting.remove(key);
                }
                batch.answers.push(line);
                return None;
            }
        }
        let Some(key) = key else {
            return Some(line);
        };
        let index = self.batches.iter().position(|b| b.waiting.contains(&key));
        let Some(index) = index else {
            return Some(line);
        };
        if let Some(batch) = self.batches.get_mut(index) {
            batch.waiting.remove(&key);
            batch.answers.push(line);
        }
        self.finish_if_done(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A front whose host initialized in `version`.
    fn front(version: &str) -> RevisionAdapter {
        let mut f = RevisionAdapter::default();
        f.request(
            "0",
            "initialize",
            Some(&json!({"protocolVersion": version})),
        );
        let answer = br#"{"jsonrpc":"2.0","id":0,"result":{}}"#.to_vec();
        assert!(f.outgoing(answer).is_some());
        f
    }

    fn refused(start: BatchStart) -> String {
        match start {
            BatchStart::Refused(line) => String::from_utf8(line).unwrap(),
            BatchStart::Messages(m) => panic!("split into {} messages", m.len()),
        }
    }

    fn messages(start: BatchStart) -> Vec<String> {
        match start {
            BatchStart::Messages(m) => m
                .into_iter()
                .map(|l| String::from_utf8(l).unwrap())
                .collect(),
            BatchStart::Refused(line) => panic!("refused: {}", String::from_utf8_lossy(&line)),
        }
    }

    #[test]
    fn an_empty_batch_is_one_invalid_request() {
        for version in ["2025-03-26", "2024-11-05", "2025-11-25"] {
            let mut f = front(version);
            assert_eq!(
                refused(f.open_batch(b" [ ] ")),
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: an empty batch"}}"#
            );
            assert_eq!(f.close_batch(), None);
        }
    }

    #[test]
    fn a_batch_outside_2025_03_26_is_no_message() {
        for version in ["2024-11-05", "2025-06-18", "2025-11-25"] {
            let mut f = front(version);
            let line = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
            assert_eq!(
                refused(f.open_batch(line)),
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: not a JSON-RPC 2.0 request, notification or response"}}"#
            );
        }
    }

    #[test]
    fn a_batch_that_is_not_json_is_a_parse_error() {
        let mut f = front("2025-03-26");
        let answer = refused(f.open_batch(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}"#));
        assert!(answer.contains(r#""code":-32700"#), "{answer}");
    }

    #[test]
    fn notifications_only_are_answered_with_nothing() {
        let mut f = front("2025-03-26");
        let line = br#"[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}]"#;
        let parts = messages(f.open_batch(line));
        assert_eq!(
            parts,
            [
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#
            ]
        );
        assert_eq!(f.close_batch(), None);
        // Nothing is held back afterwards.
        let later = br#"{"jsonrpc":"2.0","id":5,"result":{}}"#.to_vec();
        assert_eq!(f.outgoing(later.clone()), Some(later));
    }

    #[test]
    fn initialize_in_a_batch_is_an_error_entry_and_the_rest_is_answered_as_one_array() {
        let mut f = front("2025-03-26");
        let line = br#"[{"jsonrpc":"2.0","id":"i","method":"initialize","params":{}}, {"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]"#;
        let parts = messages(f.open_batch(line));
        assert_eq!(
            parts,
            [
                r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#
            ]
        );
        f.request("1", "ping", None);
        f.request("2", "tools/list", None);
        // The ping is answered at once (inside the batch), the list later.
        assert_eq!(
            f.outgoing(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec()),
            None
        );
        assert_eq!(f.close_batch(), None);
        // A message of no batch goes out meanwhile.
        let other = br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.to_vec();
        assert_eq!(f.outgoing(other.clone()), Some(other));
        let last = f.outgoing(br#"{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}"#.to_vec());
        assert_eq!(
            String::from_utf8(last.unwrap()).unwrap(),
            r#"[{"jsonrpc":"2.0","id":"i","error":{"code":-32600,"message":"Invalid request: initialize must not be part of a JSON-RPC batch"}},{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}]"#
        );
        // The initialize in the batch did not change the host's revision.
        assert_eq!(f.era, Some(OldEra::V2025_03_26));
    }

    #[test]
    fn a_batch_of_one_initialize_is_answered_as_a_batch_of_one_error() {
        let mut f = front("2025-03-26");
        let parts = messages(f.open_batch(br#"[{"jsonrpc":"2.0","id":3,"method":"initialize"}]"#));
        assert!(parts.is_empty());
        let answer = String::from_utf8(f.close_batch().unwrap()).unwrap();
        assert!(answer.starts_with(r#"[{"jsonrpc":"2.0","id":3,"error":{"code":-32600"#));
        assert!(answer.ends_with("}]"), "{answer}");
    }
}
