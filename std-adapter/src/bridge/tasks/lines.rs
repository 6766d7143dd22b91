//! What the task layer reads from and writes into JSON-RPC lines: the revision a request
//! names, id keys, exact member bytes, an id swapped in a response, and the extension spliced
//! into a `server/discover` answer (every other byte kept where it can be).

use serde_json::Value;

use super::EXTENSION;
use embedded_mcp::json::{Limits, Value as RawValue, MAX_DEPTH_LIMIT};

use crate::bridge::message::{self, push_json_string, splice};

/// True when a request's `_meta` names 2026-07-28 or a later revision.
pub(super) fn is_modern(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get(message::meta::KEY))
        .and_then(|m| m.get(message::meta::PROTOCOL_VERSION))
        .and_then(Value::as_str)
        .and_then(embedded_mcp::protocol::Version::parse)
        .is_some_and(|v| !v.is_legacy())
}

/// The canonical key (JSON text) of the string id `id`.
pub(super) fn quoted(id: &str) -> String {
    Value::String(id.to_owned()).to_string()
}

/// The canonical key of an id's exact text.
pub(super) fn canonical(raw: &str) -> String {
    serde_json::from_str::<Value>(raw)
        .map(|v| v.to_string())
        .unwrap_or_default()
}

/// A look at `line` without building it (the core's zero-copy reader); `None` if it is not
/// JSON.
pub(super) fn look(line: &[u8]) -> Option<RawValue<'_>> {
    RawValue::parse_with(
        line,
        Limits {
            max_depth: MAX_DEPTH_LIMIT,
        },
    )
    .ok()
}

/// True when a request's raw `params` declare the extension in their client capabilities
/// (the raw reading of [`super::calls::declares_extension`]).
pub(super) fn declares_extension_raw(params: Option<RawValue<'_>>) -> bool {
    params
        .and_then(|p| p.get(message::meta::KEY))
        .and_then(|m| m.get(message::meta::CLIENT_CAPABILITIES))
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(EXTENSION))
        .is_some_and(|v| !v.is_null())
}

/// The exact bytes of a top-level member of a JSON object (a JSON-RPC line).
pub(super) fn raw_member(line: &[u8], name: &str) -> Option<Vec<u8>> {
    Some(look(line)?.get(name)?.raw().as_bytes().to_vec())
}

/// A response `line` whose id (exact text `from`) becomes `to` (exact text); every other byte
/// is kept. A line whose id is not `from` is kept whole.
pub(super) fn with_id(line: &[u8], from: &str, to: &str) -> Vec<u8> {
    let is_from = look(line)
        .and_then(|doc| doc.get("id"))
        .is_some_and(|id| id.raw() == from);
    is_from
        .then(|| splice::with_id(line, to))
        .flatten()
        .unwrap_or_else(|| line.to_vec())
}

/// A `server/discover` answer with the extension in `capabilities.extensions`: put first in
/// `extensions`, or an `extensions` holding it put first in `capabilities`; every other byte
/// kept. An answer with no `capabilities` object, or that names the extension already, is
/// kept whole.
pub(super) fn with_extension(line: Vec<u8>, value: &Value) -> Vec<u8> {
    let capabilities = value.get("result").and_then(|r| r.get("capabilities"));
    let extensions = capabilities.and_then(|c| c.get("extensions"));
    if extensions.is_some_and(|e| e.get(EXTENSION).is_some()) {
        return line;
    }
    let mut member = Vec::new();
    push_json_string(&mut member, EXTENSION);
    member.extend_from_slice(b":{}");
    let edited = match extensions {
        Some(_) => {
            let member = String::from_utf8(member).unwrap_or_default();
            let path = ["result", "capabilities", "extensions"];
            splice::with_first_members(&line, &path, &member)
        }
        None => {
            let mut wrapped = b"\"extensions\":{".to_vec();
            wrapped.extend_from_slice(&member);
            wrapped.push(b'}');
            let wrapped = String::from_utf8(wrapped).unwrap_or_default();
            splice::with_first_members(&line, &["result", "capabilities"], &wrapped)
        }
    };
    edited.unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::with_extension;

    fn added(line: &str) -> String {
        let value = serde_json::from_str(line).unwrap();
        String::from_utf8(with_extension(line.as_bytes().to_vec(), &value)).unwrap()
    }

    /// The extension goes into the device's `server/discover` answer by a splice: the device's
    /// bytes (numbers, escapes, key order) stay, whatever `capabilities` held.
    #[test]
    fn the_extension_is_spliced_into_a_discover_answer_byte_for_byte() {
        let bare = r#"{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"n":1.0e2,"s":"\u00e9"},"capabilities":{"tools":{}}}}"#;
        assert_eq!(
            added(bare),
            r#"{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"n":1.0e2,"s":"\u00e9"},"capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}},"tools":{}}}}"#
        );
        let other = r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"z":1,"extensions":{"x/y":{"v":1.50}}}}}"#;
        assert_eq!(
            added(other),
            r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"z":1,"extensions":{"io.modelcontextprotocol/tasks":{},"x/y":{"v":1.50}}}}}"#
        );
        let empty = r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{}}}"#;
        assert_eq!(
            added(empty),
            r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}"#
        );
        // Named already, or no capabilities to put it in: the answer as it was.
        let named = r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}"#;
        assert_eq!(added(named), named);
        let none = r#"{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{}}}"#;
        assert_eq!(added(none), none);
    }
}
