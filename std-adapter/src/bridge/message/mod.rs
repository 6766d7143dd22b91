//! Reading JSON-RPC lines just enough to route them, and writing the bridge's own messages.
//!
//! Lines are parsed with `serde_json` to look at them, but forwarded as the exact bytes that
//! arrived unless the bridge has a reason to change them (see `rewrite`). Ids keep their exact
//! text so that the bridge's own responses echo the host's id byte for byte.
//!
//! This module is the one home of what the bridge names on the wire: JSON-RPC error codes (here),
//! method names ([`method`]), `_meta` keys ([`meta`]), and the typed view of the messages the
//! bridge reads ([`typed`]).

pub use crate::wire::{meta, method};
pub mod splice;
pub mod typed;
pub mod wrapping;

use serde_json::Value;

use embedded_mcp::json::{Limits, Value as RawValue, MAX_DEPTH_LIMIT};
use embedded_mcp::protocol::ErrorCode;

/// JSON-RPC "parse error".
pub const PARSE_ERROR: i64 = ErrorCode::ParseError.code() as i64;
/// JSON-RPC "invalid request".
pub const INVALID_REQUEST: i64 = ErrorCode::InvalidRequest.code() as i64;
/// JSON-RPC "method not found".
pub const METHOD_NOT_FOUND: i64 = ErrorCode::MethodNotFound.code() as i64;
/// JSON-RPC "invalid params".
pub const INVALID_PARAMS: i64 = ErrorCode::InvalidParams.code() as i64;
/// The link to the device was lost or could not be made (the MCP SDKs' "connection closed").
pub const CONNECTION_CLOSED: i64 = -32000;
/// The device did not answer in time (the MCP SDKs' "request timeout").
pub const REQUEST_TIMEOUT: i64 = -32001;
/// JSON-RPC "internal error".
pub const INTERNAL_ERROR: i64 = ErrorCode::InternalError.code() as i64;
/// 2026-07-28: the HTTP headers do not say what the body says.
pub const HEADER_MISMATCH: i64 = -32020;
/// 2026-07-28: the request needs a client capability it did not declare.
pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
/// 2026-07-28: the `_meta` protocol version is not supported.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = ErrorCode::UnsupportedProtocolVersion.code() as i64;

/// A request id: its exact JSON text, and a canonical key to match responses with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Id {
    /// The id's JSON text as it appeared (for example `"a\u0062"` or `7`).
    pub raw: String,
    /// Canonical form: equal for ids that are the same JSON value.
    pub key: String,
}

impl Id {
    fn new(value: &Value, raw: Option<&str>) -> Option<Self> {
        if !(value.is_string() || value.is_number()) {
            return None;
        }
        let key = serde_json::to_string(value).ok()?;
        Some(Self {
            raw: raw.map_or_else(|| key.clone(), str::to_owned),
            key,
        })
    }
}

/// What a line is, as far as routing goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Class {
    /// Has `method` and a string or number `id`.
    Request {
        /// The id.
        id: Id,
        /// The method.
        method: String,
    },
    /// Has `method` and no `id`.
    Notification {
        /// The method.
        method: String,
    },
    /// Has `result` or `error` and a string or number `id`.
    Response {
        /// The id.
        id: Id,
    },
    /// An error response whose id is `null` or absent (the peer could not read the request).
    ErrorWithoutId,
    /// JSON, but not a JSON-RPC message this bridge can route; `id` if one could be read.
    Invalid {
        /// The id, when there is a usable one.
        id: Option<Id>,
    },
}

/// A parsed line.
#[derive(Debug, Clone)]
pub struct Message {
    /// The parsed JSON.
    pub value: Value,
    /// How to route it.
    pub class: Class,
}

/// Parses and classifies one line; `None` if it is not JSON.
pub fn parse(line: &[u8]) -> Option<Message> {
    let value: Value = serde_json::from_slice(line).ok()?;
    let class = classify(&value, line);
    Some(Message { value, class })
}

fn raw_id(line: &[u8]) -> Option<String> {
    let doc = RawValue::parse_with(
        line,
        Limits {
            max_depth: MAX_DEPTH_LIMIT,
        },
    )
    .ok()?;
    doc.get("id").map(|v| v.raw().to_owned())
}

fn classify(value: &Value, line: &[u8]) -> Class {
    let Some(object) = value.as_object() else {
        return Class::Invalid { id: None };
    };
    let id = object
        .get("id")
        .and_then(|id| Id::new(id, raw_id(line).as_deref()));
    let method = object
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let is_response = object.contains_key("result") || object.contains_key("error");
    match (method, id, is_response) {
        (Some(method), Some(id), false) => Class::Request { id, method },
        (Some(method), None, false) if !object.contains_key("id") => Class::Notification { method },
        (None, Some(id), true) => Class::Response { id },
        (None, None, true)
            if object.contains_key("error") && object.get("id").is_none_or(Value::is_null) =>
        {
            Class::ErrorWithoutId
        }
        (_, id, _) => Class::Invalid { id },
    }
}

/// `{"jsonrpc":"2.0","id":<id>,"error":{"code":<code>,"message":<message>}}`; `id` is the exact
/// id text, or `None` for `null`.
pub fn error_response(id: Option<&str>, code: i64, message: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + message.len());
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id.unwrap_or("null").as_bytes());
    out.extend_from_slice(b",\"error\":{\"code\":");
    out.extend_from_slice(code.to_string().as_bytes());
    out.extend_from_slice(b",\"message\":");
    push_json_string(&mut out, message);
    out.extend_from_slice(b"}}");
    out
}

/// `notifications/tools/list_changed`, as the bridge sends it.
pub fn list_changed() -> Vec<u8> {
    let mut out = b"{\"jsonrpc\":\"2.0\",\"method\":".to_vec();
    push_json_string(&mut out, method::TOOLS_LIST_CHANGED);
    out.push(b'}');
    out
}

/// `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":<id>,"reason":…}}`;
/// `id` is the exact id text.
pub fn cancelled(id: &str, reason: &str) -> Vec<u8> {
    let mut out = b"{\"jsonrpc\":\"2.0\",\"method\":".to_vec();
    push_json_string(&mut out, method::CANCELLED);
    out.extend_from_slice(b",\"params\":{\"requestId\":");
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(b",\"reason\":");
    push_json_string(&mut out, reason);
    out.extend_from_slice(b"}}");
    out
}

/// `{"jsonrpc":"2.0","id":<raw id>,"result":<result>}`.
pub fn success_line(raw_id: &str, result: &Value) -> Option<Vec<u8>> {
    let result = serde_json::to_vec(result).ok()?;
    let mut out = Vec::with_capacity(40 + raw_id.len() + result.len());
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(raw_id.as_bytes());
    out.extend_from_slice(b",\"result\":");
    out.extend_from_slice(&result);
    out.push(b'}');
    Some(out)
}

/// A successful response carrying a tool error: `{"content":[{"type":"text","text":…}],
/// "isError":true}` (plus `"resultType":"complete"` when `result_type` is set, as 2026-07-28
/// requires).
pub fn tool_error_response(id: &str, text: &str, result_type: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(96 + text.len());
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(b",\"result\":{\"content\":[{\"type\":\"text\",\"text\":");
    push_json_string(&mut out, text);
    out.extend_from_slice(b"}],\"isError\":true");
    if result_type {
        out.extend_from_slice(b",\"resultType\":\"complete\"");
    }
    out.extend_from_slice(b"}}");
    out
}

/// Appends `text` as a JSON string (RFC 8259 escaping, never a raw newline).
pub fn push_json_string(out: &mut Vec<u8>, text: &str) {
    // Writing into a Vec cannot fail; the core writer reports only sink errors.
    let mut sink = VecSink(out);
    let _ = embedded_mcp::json::write_string(&mut sink, text);
}

struct VecSink<'a>(&'a mut Vec<u8>);

impl embedded_mcp::json::Sink for VecSink<'_> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), embedded_mcp::json::EncodeError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_messages_and_keeps_raw_ids() {
        let m = parse(br#"{"jsonrpc":"2.0","id":"a\u0062","method":"ping"}"#).unwrap();
        assert_eq!(
            m.class,
            Class::Request {
                id: Id {
                    raw: r#""a\u0062""#.into(),
                    key: r#""ab""#.into()
                },
                method: "ping".into()
            }
        );
        let m = parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
        assert!(matches!(m.class, Class::Notification { .. }));
        let m = parse(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#).unwrap();
        assert!(matches!(m.class, Class::Response { id } if id.key == "7"));
        let m =
            parse(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#).unwrap();
        assert_eq!(m.class, Class::ErrorWithoutId);
        let m = parse(br#"{"jsonrpc":"2.0","id":null,"method":"x"}"#).unwrap();
        assert_eq!(m.class, Class::Invalid { id: None });
        assert_eq!(parse(b"[1]").unwrap().class, Class::Invalid { id: None });
        assert!(parse(b"{oops").is_none());
    }

    #[test]
    fn writes_error_and_tool_error_responses() {
        assert_eq!(
            error_response(Some("\"x\""), -32001, "late \"again\"\n"),
            br#"{"jsonrpc":"2.0","id":"x","error":{"code":-32001,"message":"late \"again\"\n"}}"#
                .to_vec()
        );
        assert_eq!(
            error_response(None, -32700, "bad"),
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}"#.to_vec()
        );
        assert_eq!(
            list_changed(),
            br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.to_vec()
        );
        assert_eq!(
            cancelled("\"a\"", "timeout"),
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a","reason":"timeout"}}"#.to_vec()
        );
        assert_eq!(
            tool_error_response("3", "no", true),
            br#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"no"}],"isError":true,"resultType":"complete"}}"#.to_vec()
        );
    }
}
