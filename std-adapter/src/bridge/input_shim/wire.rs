//! The shim's wire forms: a legacy host's call in 2026-07-28 form and its later rounds, what a
//! device's answer to a round is, the `elicitation/create` (or other) requests put to the host,
//! and the device's final result reshaped for a legacy host.

use embedded_mcp::json::{Kind, Limits, Value as RawValue, MAX_DEPTH_LIMIT};
use embedded_mcp::protocol::Version;
use serde_json::{json, Value};

use crate::bridge::message::wrapping::{wrapped_result, ResultType};
use crate::bridge::message::{meta, method, push_json_string, MISSING_CLIENT_CAPABILITY};

/// `params` (the exact JSON text of a legacy host's `tools/call` params) as 2026-07-28 params
/// text: `_meta` (put last) gains that revision, the host's `initialize` capabilities and, when
/// the host set one with `logging/setLevel`, its log level (other keys the host put in `_meta`
/// are kept); a retry's members (`inputResponses`, `requestState`) are dropped, being the
/// shim's to add. Every other member is the host's text, byte for byte.
pub(super) fn modern_params(
    params: Option<&str>,
    capabilities: &Value,
    log_level: Option<&str>,
) -> String {
    let parsed = params.and_then(|p| RawValue::parse_with(p.as_bytes(), limits()).ok());
    let mut out = String::with_capacity(params.map_or(0, str::len) + 160);
    out.push('{');
    let mut host_meta = None;
    if let Some(members) = parsed.as_ref().and_then(RawValue::members) {
        for (key, value) in members {
            if key.eq_str(meta::KEY) {
                host_meta = Some(value);
                continue;
            }
            if key.eq_str("inputResponses") || key.eq_str("requestState") {
                continue;
            }
            push_member(&mut out, key.raw(), value.raw());
        }
    }
    push_member(&mut out, meta::KEY, "{");
    let ours = [
        meta::PROTOCOL_VERSION,
        meta::CLIENT_CAPABILITIES,
        meta::LOG_LEVEL,
    ];
    if let Some(members) = host_meta.as_ref().and_then(RawValue::members) {
        for (key, value) in members {
            if !ours.iter().any(|k| key.eq_str(k)) {
                push_member(&mut out, key.raw(), value.raw());
            }
        }
    }
    let version = format!("\"{}\"", Version::V2026_07_28.as_str());
    push_member(&mut out, meta::PROTOCOL_VERSION, &version);
    push_member(
        &mut out,
        meta::CLIENT_CAPABILITIES,
        &capabilities.to_string(),
    );
    if let Some(level) = log_level {
        let mut text = Vec::new();
        push_json_string(&mut text, level);
        push_member(&mut out, meta::LOG_LEVEL, &String::from_utf8_lossy(&text));
    }
    out.push_str("}}");
    out
}

/// Appends `"key":value` to the object being written in `out` (`key` as raw string content,
/// `value` exact JSON text, or `{` to open an object), with a comma when it is not the first.
fn push_member(out: &mut String, key: &str, value: &str) {
    if !out.ends_with('{') {
        out.push(',');
    }
    out.push('"');
    out.push_str(key);
    out.push_str("\":");
    out.push_str(value);
}

/// One round's request line under the host's id (`id_raw`, exactly as the host wrote it): the
/// call's `params` (JSON text), then `inputResponses` (JSON text) and `requestState` (the
/// device's exact JSON text) when the round answers an earlier one.
pub(super) fn round_line(
    id_raw: &str,
    params: &str,
    responses: Option<&str>,
    state: Option<&str>,
) -> Option<Vec<u8>> {
    let body = params.as_bytes();
    let mut out = Vec::with_capacity(body.len() + 96);
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id_raw.as_bytes());
    out.extend_from_slice(b",\"method\":");
    push_json_string(&mut out, method::TOOLS_CALL);
    out.extend_from_slice(b",\"params\":");
    let open = body.strip_suffix(b"}")?;
    out.extend_from_slice(open);
    let mut first = open == b"{";
    for (key, text) in [("inputResponses", responses), ("requestState", state)] {
        let Some(text) = text else { continue };
        if !first {
            out.push(b',');
        }
        first = false;
        push_json_string(&mut out, key);
        out.push(b':');
        out.extend_from_slice(text.as_bytes());
    }
    out.extend_from_slice(b"}}");
    Some(out)
}

/// One input request of an `input_required` result.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct InputRequest {
    /// Its key in `inputRequests` (decoded).
    pub(super) key: String,
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub(super) method: String,
    /// Its params, if any.
    pub(super) params: Option<Value>,
}

/// What the device answered to a round.
#[derive(Debug, PartialEq)]
pub(super) enum DeviceAnswer {
    /// `resultType: "input_required"`: ask the host, then retry.
    InputRequired {
        requests: Vec<InputRequest>,
        /// `requestState`'s exact JSON text (quotes and escapes included).
        state: Option<String>,
    },
    /// A final result, reshaped for a legacy host: the `result` JSON text.
    Complete(Vec<u8>),
    /// -32021: the device needs a client capability the host did not declare (its names).
    MissingCapability(Vec<String>),
    /// Anything else (another error response): the line goes to the host as it is.
    Other,
}

fn limits() -> Limits {
    Limits {
        max_depth: MAX_DEPTH_LIMIT,
    }
}

/// Reads the device's response line to a round.
pub(super) fn read_device_answer(line: &[u8]) -> DeviceAnswer {
    let Ok(doc) = RawValue::parse_with(line, limits()) else {
        return DeviceAnswer::Other;
    };
    if let Some(error) = doc.get("error") {
        let missing = error
            .get("code")
            .and_then(|c| c.as_number())
            .is_some_and(|n| n.raw() == MISSING_CLIENT_CAPABILITY.to_string());
        if !missing {
            return DeviceAnswer::Other;
        }
        let names = error
            .get("data")
            .and_then(|d| d.get("requiredCapabilities"))
            .and_then(|c| c.members())
            .into_iter()
            .flatten()
            .map(|(name, _)| name.chars().collect::<String>())
            .collect();
        return DeviceAnswer::MissingCapability(names);
    }
    let Some(result) = doc.get("result") else {
        return DeviceAnswer::Other;
    };
    let input_required = result
        .get("resultType")
        .and_then(|t| t.as_str())
        .is_some_and(|t| t.eq_str("input_required"));
    if !input_required {
        return DeviceAnswer::Complete(legacy_result(&result));
    }
    let requests = result
        .get("inputRequests")
        .and_then(|r| r.members())
        .into_iter()
        .flatten()
        .map(|(key, entry)| InputRequest {
            key: key.chars().collect(),
            method: entry
                .get("method")
                .and_then(|m| m.as_str())
                .map(|m| m.chars().collect())
                .unwrap_or_default(),
            params: entry
                .get("params")
                .and_then(|p| serde_json::from_str(p.raw()).ok()),
        })
        .collect();
    let state = result
        .get("requestState")
        .filter(|s| s.kind() == Kind::String)
        .map(|s| s.raw().to_owned());
    DeviceAnswer::InputRequired { requests, state }
}

/// A 2026-07-28 `CallToolResult` as the legacy revisions have it: no `resultType`, and a
/// `structuredContent` that is not an object wrapped in both channels
/// ([`crate::bridge::message::wrapping`]). Every other byte is the device's.
pub(super) fn legacy_result(result: &RawValue<'_>) -> Vec<u8> {
    wrapped_result(result, ResultType::Drop, true)
}

/// The client capability an input request needs (`None`: a kind the shim does not know), as a
/// member name and, for URL elicitation, the sub-capability.
fn needed(request: &InputRequest) -> Option<(&'static str, Option<&'static str>)> {
    match request.method.as_str() {
        "elicitation/create" => {
            let url = request
                .params
                .as_ref()
                .and_then(|p| p.get("mode"))
                .and_then(Value::as_str)
                == Some("url");
            Some(("elicitation", Some(if url { "url" } else { "form" })))
        }
        "sampling/createMessage" => Some(("sampling", None)),
        "roots/list" => Some(("roots", None)),
        _ => None,
    }
}

/// True when `capabilities` (the host's `initialize` ones) let the bridge put `request` to the
/// host. An `elicitation: {}` declares form mode only (2025-11-25).
pub(super) fn host_can(capabilities: &Value, request: &InputRequest) -> bool {
    let Some((name, sub)) = needed(request) else {
        return false;
    };
    let Some(declared) = capabilities.get(name).and_then(Value::as_object) else {
        return false;
    };
    match sub {
        Some("form") => declared.is_empty() || declared.contains_key("form"),
        Some(sub) => declared.contains_key(sub),
        None => true,
    }
}

/// The request line put to a host of `version` for `request` under the bridge's id `id`
/// (a JSON string). 2025-06-18 has no elicitation `mode`; 2025-11-25's URL mode needs an
/// `elicitationId`, made from the bridge's id.
pub(super) fn host_request(id: &str, request: &InputRequest, version: &str) -> Option<Vec<u8>> {
    let mut params = request.params.clone();
    if request.method == "elicitation/create" {
        if let Some(p) = params.as_mut().and_then(Value::as_object_mut) {
            let url = p.get("mode").and_then(Value::as_str) == Some("url");
            if version < "2025-11-25" {
                p.remove("mode");
            } else if url && !p.contains_key("elicitationId") {
                p.insert("elicitationId".into(), json!(id));
            }
        }
    }
    let mut message = json!({"jsonrpc": "2.0", "id": id, "method": request.method});
    if let (Some(params), Some(object)) = (params, message.as_object_mut()) {
        object.insert("params".into(), params);
    }
    serde_json::to_vec(&message).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> RawValue<'_> {
        RawValue::parse_with(text.as_bytes(), limits()).unwrap()
    }

    #[test]
    fn a_call_becomes_a_2026_request_and_its_retry_echoes_the_state_byte_for_byte() {
        let params = r#"{"name":"set_relay","arguments":{"relay":1,"on":true,"n":18446744073709551617},"_meta":{"progressToken":4,"io.modelcontextprotocol/protocolVersion":"2025-11-25"},"requestState":"forged"}"#;
        let caps = json!({"elicitation": {}});
        let modern = modern_params(Some(params), &caps, Some("info"));
        assert_eq!(
            String::from_utf8(round_line("\"a\\u0062\"", &modern, None, None).unwrap()).unwrap(),
            r#"{"jsonrpc":"2.0","id":"a\u0062","method":"tools/call","params":{"name":"set_relay","arguments":{"relay":1,"on":true,"n":18446744073709551617},"_meta":{"progressToken":4,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/logLevel":"info"}}}"#
        );
        assert_eq!(
            modern_params(None, &caps, None),
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}"#
        );
        let retry = round_line(
            "7",
            "{}",
            Some(r#"{"approval":{"action":"accept","content":{"approve":true}}}"#),
            Some(r#""ab\/c""#),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(retry).unwrap(),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"inputResponses":{"approval":{"action":"accept","content":{"approve":true}}},"requestState":"ab\/c"}}"#
        );
    }

    #[test]
    fn device_answers_are_read() {
        let asked = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"approval":{"method":"elicitation/create","params":{"mode":"form","message":"Switch?","requestedSchema":{"type":"object"}}}},"requestState":"s\/1"}}"#;
        assert_eq!(
            read_device_answer(asked),
            DeviceAnswer::InputRequired {
                requests: vec![InputRequest {
                    key: "approval".into(),
                    method: "elicitation/create".into(),
                    params: Some(
                        json!({"mode":"form","message":"Switch?","requestedSchema":{"type":"object"}})
                    ),
                }],
                state: Some(r#""s\/1""#.into()),
            }
        );
        let refused = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing","data":{"requiredCapabilities":{"elicitation":{}}}}}"#;
        assert_eq!(
            read_device_answer(refused),
            DeviceAnswer::MissingCapability(vec!["elicitation".into()])
        );
        let other = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}"#;
        assert_eq!(read_device_answer(other), DeviceAnswer::Other);
        let done = br#"{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"on":true,"t":1.50},"content":[{"type":"text","text":"{\"on\":true,\"t\":1.50}"}],"resultType":"complete"}}"#;
        assert_eq!(
            read_device_answer(done),
            DeviceAnswer::Complete(
                br#"{"structuredContent":{"on":true,"t":1.50},"content":[{"type":"text","text":"{\"on\":true,\"t\":1.50}"}]}"#.to_vec()
            )
        );
    }

    #[test]
    fn a_structured_value_that_is_not_an_object_is_wrapped_as_legacy_requires() {
        let modern = raw(
            r#"{"structuredContent":[1,2],"content":[{"type":"text","text":"[1,2]"},{"type":"text","text":"note"}],"resultType":"complete"}"#,
        );
        assert_eq!(
            String::from_utf8(legacy_result(&modern)).unwrap(),
            r#"{"structuredContent":{"result":[1,2]},"content":[{"type":"text","text":"{\"result\":[1,2]}"},{"type":"text","text":"note"}]}"#
        );
        let error = raw(
            r#"{"content":[{"type":"text","text":"no"}],"isError":true,"resultType":"complete"}"#,
        );
        assert_eq!(
            String::from_utf8(legacy_result(&error)).unwrap(),
            r#"{"content":[{"type":"text","text":"no"}],"isError":true}"#
        );
    }

    #[test]
    fn host_capabilities_gate_each_kind() {
        let form = InputRequest {
            key: "a".into(),
            method: "elicitation/create".into(),
            params: Some(json!({"mode": "form", "message": "m"})),
        };
        let url = InputRequest {
            params: Some(json!({"mode": "url", "message": "m", "url": "https://x"})),
            ..form.clone()
        };
        let sampling = InputRequest {
            method: "sampling/createMessage".into(),
            ..form.clone()
        };
        assert!(host_can(&json!({"elicitation": {}}), &form));
        assert!(host_can(&json!({"elicitation": {"form": {}}}), &form));
        assert!(!host_can(&json!({"elicitation": {"url": {}}}), &form));
        assert!(!host_can(&json!({"elicitation": {}}), &url));
        assert!(host_can(&json!({"elicitation": {"url": {}}}), &url));
        assert!(!host_can(&json!({"elicitation": {}}), &sampling));
        assert!(host_can(&json!({"sampling": {}}), &sampling));
        assert!(!host_can(&json!({}), &form));
        assert_eq!(
            String::from_utf8(
                host_request("\"b-1\"".trim_matches('"'), &form, "2025-06-18").unwrap()
            )
            .unwrap(),
            r#"{"id":"b-1","jsonrpc":"2.0","method":"elicitation/create","params":{"message":"m"}}"#
        );
        assert_eq!(
            String::from_utf8(host_request("b-2", &url, "2025-11-25").unwrap()).unwrap(),
            r#"{"id":"b-2","jsonrpc":"2.0","method":"elicitation/create","params":{"elicitationId":"b-2","message":"m","mode":"url","url":"https://x"}}"#
        );
    }
}
