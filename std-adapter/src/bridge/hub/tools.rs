//! The hub's own answers: its `initialize` and `server/discover` results, the one-page tool list
//! of all devices (`NAME.tool`), and a device router's response re-addressed to the host's id.

use embedded_mcp::json::{Limits, Value as RawValue, MAX_DEPTH_LIMIT};
use embedded_mcp::protocol::Version;
use serde_json::{json, Value};

use serde::Deserialize;

use crate::bridge::message::meta;
use crate::bridge::message::typed::ToolEntry;
use crate::bridge::message::wrapping::{wrapped_result, wrapped_structured, ResultType};

/// Legacy revisions the hub answers in their own terms.
const LEGACY: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

fn server_info() -> Value {
    json!({"name": "embedded-mcp-hub", "version": env!("CARGO_PKG_VERSION")})
}

/// The hub's `initialize` result: the host's version when the hub knows it, else the newest
/// legacy one; tools that may change (`listChanged`).
pub(super) fn initialize_result(asked: Option<&str>, devices: &[String]) -> Value {
    let version = asked
        .filter(|v| LEGACY.contains(v))
        .unwrap_or(Version::LATEST_LEGACY.as_str());
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": true}},
        "serverInfo": server_info(),
        "instructions": format!(
            "Tools of the devices {} are named DEVICE.tool.",
            devices.join(", ")
        ),
    })
}

/// The hub's 2026-07-28 `server/discover` result.
pub(super) fn discover_result() -> Value {
    json!({
        "resultType": "complete",
        "supportedVersions": [Version::V2026_07_28.as_str()],
        "capabilities": {"tools": {"listChanged": true}},
        meta::KEY: {meta::SERVER_INFO: server_info()},
        "ttlMs": 0,
        "cacheScope": "public",
    })
}

/// The one page of every device's tools; a 2026-07-28 request (`meta_version`) gets the fields
/// that revision requires of a complete, cacheable result.
pub(super) fn list_result(tools: Vec<Value>, meta_version: Option<&str>) -> Value {
    let mut result = json!({ "tools": tools });
    if meta_version.is_some_and(|v| Version::parse(v).is_some_and(|v| !v.is_legacy())) {
        if let Some(object) = result.as_object_mut() {
            object.insert("resultType".into(), json!("complete"));
            object.insert("ttlMs".into(), json!(0));
            object.insert("cacheScope".into(), json!("public"));
            object.insert(meta::KEY.into(), json!({meta::SERVER_INFO: server_info()}));
        }
    }
    result
}

/// A device's tools named `NAME.tool`.
pub(super) fn prefixed(device: &str, tools: Vec<Value>) -> Vec<Value> {
    tools
        .into_iter()
        .filter_map(|mut tool| {
            let name = ToolEntry::deserialize(&tool).ok()?.name;
            tool.as_object_mut()?
                .insert("name".into(), json!(format!("{device}.{name}")));
            Some(tool)
        })
        .collect()
}

/// The bytes of a legacy `result` object as a 2026-07-28 one: `"resultType":"complete"` put
/// first unless it has one; the device's bytes are kept.
pub(super) fn as_modern_result(result: &RawValue<'_>) -> Vec<u8> {
    let raw = result.raw().as_bytes();
    if result.get("resultType").is_some() || raw.first() != Some(&b'{') {
        return raw.to_vec();
    }
    let rest = raw.get(1..).unwrap_or_default();
    let empty = rest.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'}');
    let mut out = b"{\"resultType\":\"complete\"".to_vec();
    if !empty {
        out.push(b',');
    }
    out.extend_from_slice(rest);
    out
}

/// A device router's response with the host's id (`raw_id`, exactly as the host wrote it); the
/// `result` or `error` bytes are kept as they came, except that a result for a 2026-07-28 host
/// (`modern`) gets its `resultType` ([`as_modern_result`]).
pub(super) fn reply_as(line: &[u8], raw_id: &str, modern: bool) -> Option<Vec<u8>> {
    let limits = Limits {
        max_depth: MAX_DEPTH_LIMIT,
    };
    let doc = RawValue::parse_with(line, limits).ok()?;
    let (key, body) = match doc.get("result") {
        Some(result) => ("result", result),
        None => ("error", doc.get("error")?),
    };
    let mut out = Vec::with_capacity(line.len() + raw_id.len());
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(raw_id.as_bytes());
    out.extend_from_slice(format!(",\"{key}\":").as_bytes());
    if modern && key == "result" {
        // A 2026-07-28 result whose `structuredContent` is not an object (the device answers a
        // 2026-07-28 call unwrapped) shows it as the hub's list does: the legacy wrapping.
        if wrapped_structured(&body).is_some() {
            out.extend_from_slice(&wrapped_result(&body, ResultType::Ensure, false));
        } else {
            out.extend_from_slice(&as_modern_result(&body));
        }
    } else {
        out.extend_from_slice(body.raw().as_bytes());
    }
    out.push(b'}');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modern_meta_is_dropped_and_the_rest_kept() {
        use crate::bridge::message::splice::with_member;
        let params = r#"{"name":"d.t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":3}}"#;
        let drop = Some(meta::PROTOCOL_PREFIX);
        assert_eq!(
            with_member(params, "name", r#""t""#, drop).unwrap(),
            r#"{"name":"t","_meta":{"progressToken":3}}"#
        );
        let bare =
            r#"{"name":"d.t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#;
        assert_eq!(
            with_member(bare, "name", r#""t""#, drop).unwrap(),
            r#"{"name":"t"}"#
        );
    }

    #[test]
    fn replies_keep_the_device_bytes_and_the_host_id() {
        let line = br#"{"jsonrpc":"2.0","id":"hub-3","result":{"x":1.50}}"#;
        assert_eq!(
            reply_as(line, r#""a\u0062""#, false).unwrap(),
            br#"{"jsonrpc":"2.0","id":"a\u0062","result":{"x":1.50}}"#.to_vec()
        );
        assert_eq!(
            reply_as(line, "7", true).unwrap(),
            br#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","x":1.50}}"#.to_vec()
        );
        let empty = br#"{"jsonrpc":"2.0","id":"hub-4","result":{ }}"#;
        assert_eq!(
            reply_as(empty, "8", true).unwrap(),
            br#"{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete" }}"#.to_vec()
        );
        let error = br#"{"jsonrpc":"2.0","id":"hub-5","error":{"code":-32000,"message":"x"}}"#;
        assert_eq!(
            reply_as(error, "9", true).unwrap(),
            br#"{"jsonrpc":"2.0","id":9,"error":{"code":-32000,"message":"x"}}"#.to_vec()
        );
        let array = br#"{"jsonrpc":"2.0","id":"hub-6","result":{"resultType":"complete","content":[],"structuredContent":[1.0e2,18446744073709551617]}}"#;
        assert_eq!(
            String::from_utf8(reply_as(array, "10", true).unwrap()).unwrap(),
            r#"{"jsonrpc":"2.0","id":10,"result":{"resultType":"complete","content":[],"structuredContent":{"result":[1.0e2,18446744073709551617]}}}"#
        );
        // Without a `resultType`, it is put first.
        let bare = br#"{"jsonrpc":"2.0","id":"hub-7","result":{"structuredContent":"x"}}"#;
        assert_eq!(
            String::from_utf8(reply_as(bare, "11", true).unwrap()).unwrap(),
            r#"{"jsonrpc":"2.0","id":11,"result":{"resultType":"complete","structuredContent":{"result":"x"}}}"#
        );
        let tools = prefixed("m1", vec![json!({"name": "t", "inputSchema": {}})]);
        assert_eq!(tools, vec![json!({"name": "m1.t", "inputSchema": {}})]);
    }
}
