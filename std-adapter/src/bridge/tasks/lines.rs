//! What the task layer reads from and writes into JSON-RPC lines: the revision a request
//! names, id keys, exact member bytes, an id swapped in a response, and the extension spliced
//! into a `server/discover` answer (every other byte kept where it can be).

use serde_json::{Map, Value};

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

/// A `server/discover` answer with the extension in `capabilities.extensions`: spliced in
/// before the device's other capabilities when it has no `extensions` (every other byte kept),
/// else the answer re-serialised.
pub(super) fn with_extension(line: Vec<u8>, value: Value) -> Vec<u8> {
    let capabilities = value.get("result").and_then(|r| r.get("capabilities"));
    let has_extensions = capabilities.is_some_and(|c| c.get("extensions").is_some());
    if capabilities.is_some_and(Value::is_object) && !has_extensions {
        let raw = raw_member(&line, "result").and_then(|r| raw_member_of(&r, "capabilities"));
        if let Some(raw) = raw {
            let needle = [b"\"capabilities\":".as_slice(), &raw].concat();
            if let Some(at) = line
                .windows(needle.len())
                .position(|w| w == needle.as_slice())
            {
                let open = at + needle.len() - raw.len() + 1;
                let empty = raw.iter().skip(1).find(|b| !b.is_ascii_whitespace()) == Some(&b'}');
                let mut out = line[..open].to_vec();
                out.extend_from_slice(b"\"extensions\":{");
                push_json_string(&mut out, EXTENSION);
                out.extend_from_slice(if empty { b":{}}" } else { b":{}}," });
                out.extend_from_slice(&line[open..]);
                return out;
            }
        }
    }
    reserialised_with_extension(line, value)
}

/// The exact bytes of member `name` of the JSON object `object`.
pub(super) fn raw_member_of(object: &[u8], name: &str) -> Option<Vec<u8>> {
    raw_member(object, name)
}

pub(super) fn reserialised_with_extension(line: Vec<u8>, mut value: Value) -> Vec<u8> {
    let Some(capabilities) = value
        .get_mut("result")
        .and_then(|r| r.get_mut("capabilities"))
        .and_then(Value::as_object_mut)
    else {
        return line;
    };
    let extensions = capabilities
        .entry("extensions")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(extensions) = extensions.as_object_mut() else {
        return line;
    };
    extensions.insert(EXTENSION.into(), Value::Object(Map::new()));
    serde_json::to_vec(&value).unwrap_or(line)
}
