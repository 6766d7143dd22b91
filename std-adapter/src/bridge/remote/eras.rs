//! What a remote link sends for each line the router writes, in the era the far side speaks,
//! and what it hands back. Without I/O: lines in, plans and lines out.
//!
//! - **2026-07-28** (the far side answers `server/discover` with `2026-07-28` among its
//!   `supportedVersions`): every request is a stateless POST. A request the router wrote in
//!   2026-07-28 form goes as it is, with `clientCapabilities` added when the lean hop left it
//!   out; a legacy one (`tools/list`, a legacy host's call) gets the `_meta` a 2026-07-28
//!   request needs, and its final answer is put back in the legacy form (no `resultType`, a
//!   `structuredContent` that is not an object wrapped as `{"result": …}`). The router's
//!   `initialize` is answered here from the discovery (the far side has no handshake), its
//!   `notifications/initialized` dropped, and a `notifications/cancelled` closes the cancelled
//!   request's stream (2026-07-28's cancel). List changes come on a `subscriptions/listen` stream.
//! - **Legacy** (anything else): the router's lines go as they are into one session, opened by
//!   the router's own `initialize` (`Mcp-Session-Id`, `MCP-Protocol-Version` from then on); list
//!   changes come on the session's GET stream.

use embedded_mcp::json::{Limits, Value as RawValue, MAX_DEPTH_LIMIT};
use embedded_mcp::protocol::Version;
use serde_json::Value;

use super::param_headers::{header_value, Marks};
use crate::bridge::message::splice::with_meta_defaults;
use crate::bridge::message::wrapping::{wrapped_result, ResultType};
use crate::bridge::message::{self, meta, method, Class};

/// The far side's era, as the probe found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Era {
    /// Stateless 2026-07-28 requests; what `initialize` is answered with.
    Modern(Discovery),
    /// One legacy session.
    Legacy,
}

/// What the far side's `server/discover` said (exact JSON texts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Discovery {
    /// Its `capabilities`.
    pub(super) capabilities: String,
    /// Its `serverInfo` (from `_meta`).
    pub(super) server_info: String,
}

/// One POST to make.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Post {
    /// The body.
    pub(super) body: Vec<u8>,
    /// Headers beyond the ones every POST has (`Content-Type`, `Accept`, `Authorization`).
    pub(super) headers: Vec<(&'static str, String)>,
    /// The request's id, when an answer is due.
    pub(super) id: Option<message::Id>,
    /// `Mcp-Param-*` headers (a 2026-07-28 call of a tool that marks arguments).
    pub(super) param_headers: Vec<(String, String)>,
    /// The final answer goes back in the legacy form.
    pub(super) to_legacy: bool,
    /// The answer lists tools (the link learns their `Mcp-Param-*` marks from it).
    pub(super) lists_tools: bool,
}

/// What to do with one line of the router.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Plan {
    /// Hand the router this line at once.
    Answer(Vec<u8>),
    /// Send it.
    Post(Post),
    /// Close the stream of the request whose id has this key (2026-07-28's cancel).
    Cancel(String),
    /// Nothing to do.
    Drop,
}

/// The revision of stateless requests.
const MODERN: &str = "2026-07-28";
/// `MCP-Protocol-Version`.
pub(super) const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";
/// `Mcp-Method`.
const METHOD_HEADER: &str = "mcp-method";
/// `Mcp-Name`.
const NAME_HEADER: &str = "mcp-name";
/// `Mcp-Session-Id`.
pub(super) const SESSION_HEADER: &str = "mcp-session-id";

fn client_meta() -> String {
    format!(
        "\"_meta\":{{\"{}\":\"{MODERN}\",\"{}\":{{}},\"{}\":{{\"name\":\"embedded-mcp-gateway-link\",\"version\":\"{}\"}}}}",
        meta::PROTOCOL_VERSION,
        meta::CLIENT_CAPABILITIES,
        meta::CLIENT_INFO,
        env!("CARGO_PKG_VERSION")
    )
}

/// The probe: a 2026-07-28 `server/discover`.
pub(super) fn discover_post() -> Post {
    let body = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":\"embedded-mcp-gateway-discover\",\"method\":\"{}\",\"params\":{{{}}}}}",
        method::DISCOVER,
        client_meta()
    );
    modern_post(body.into_bytes(), method::DISCOVER, None)
}

/// The 2026-07-28 listen stream for the far side's list changes.
pub(super) fn listen_post() -> Post {
    let body = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":\"embedded-mcp-gateway-listen\",\"method\":\"{}\",\"params\":{{\"notifications\":{{\"toolsListChanged\":true}},{}}}}}",
        method::SUBSCRIPTIONS_LISTEN,
        client_meta()
    );
    modern_post(body.into_bytes(), method::SUBSCRIPTIONS_LISTEN, None)
}

fn modern_post(body: Vec<u8>, method: &str, name: Option<String>) -> Post {
    let mut headers = vec![
        (PROTOCOL_VERSION_HEADER, MODERN.to_owned()),
        (METHOD_HEADER, method.to_owned()),
    ];
    if let Some(name) = name {
        headers.push((NAME_HEADER, name));
    }
    Post {
        body,
        headers,
        param_headers: Vec::new(),
        id: None,
        to_legacy: false,
        lists_tools: false,
    }
}

/// The era a `server/discover` answer (one JSON-RPC line) shows; `None` when it is no
/// 2026-07-28 answer (an error, or no such version).
pub(super) fn read_discovery(answer: &[u8]) -> Option<Discovery> {
    let value: Value = serde_json::from_slice(answer).ok()?;
    let result = value.get("result")?;
    let speaks = result
        .get("supportedVersions")?
        .as_array()?
        .iter()
        .any(|v| v.as_str() == Some(MODERN));
    if !speaks {
        return None;
    }
    let raw = parse_raw(answer)?;
    let raw_result = raw.get("result")?;
    let capabilities = raw_result
        .get("capabilities")
        .map_or("{}", |c| c.raw())
        .to_owned();
    let server_info = raw_result
        .get(meta::KEY)
        .and_then(|m| m.get(meta::SERVER_INFO))
        .or_else(|| raw_result.get("serverInfo"))
        .map_or("{\"name\":\"gateway\",\"version\":\"0\"}", |s| s.raw())
        .to_owned();
    Some(Discovery {
        capabilities,
        server_info,
    })
}

fn parse_raw(line: &[u8]) -> Option<RawValue<'_>> {
    RawValue::parse_with(
        line,
        Limits {
            max_depth: MAX_DEPTH_LIMIT,
        },
    )
    .ok()
}

/// The plan for `line` to a 2026-07-28 far side; `marks` gives a call's `Mcp-Param-*` headers.
pub(super) fn plan_modern(line: &[u8], discovery: &Discovery, marks: &Marks) -> Plan {
    let Some(parsed) = message::parse(line) else {
        return Plan::Drop;
    };
    match parsed.class {
        Class::Request { id, method } if method == method::INITIALIZE => {
            Plan::Answer(initialize_answer(&id.raw, &parsed.value, discovery))
        }
        Class::Request { id, method } => {
            let params = parsed.value.get("params");
            let declared = params
                .and_then(|p| p.get(meta::KEY))
                .and_then(|m| m.get(meta::PROTOCOL_VERSION))
                .and_then(Value::as_str)
                .filter(|v| Version::parse(v).is_some_and(|v| !v.is_legacy()));
            let version = declared.unwrap_or(MODERN).to_owned();
            let quoted = format!("\"{MODERN}\"");
            let defaults = [
                (meta::PROTOCOL_VERSION, quoted.as_str()),
                (meta::CLIENT_CAPABILITIES, "{}"),
            ];
            let Some(body) = with_meta_defaults(line, &defaults) else {
                return Plan::Answer(message::error_response(
                    Some(&id.raw),
                    message::INVALID_PARAMS,
                    "the request's params or _meta is not an object",
                ));
            };
            let name_of = |key: &str| {
                params
                    .and_then(|p| p.get(key))
                    .and_then(Value::as_str)
                    .map(header_value)
            };
            let name = match method.as_str() {
                "tools/call" | "prompts/get" => name_of("name"),
                "resources/read" => name_of("uri"),
                "tasks/get" | "tasks/update" | "tasks/cancel" => name_of("taskId"),
                _ => None,
            };
            let mut post = modern_post(body, &method, name);
            if method == method::TOOLS_CALL {
                let tool = params.and_then(|p| p.get("name")).and_then(Value::as_str);
                let arguments = params.and_then(|p| p.get("arguments"));
                post.param_headers = tool.map_or(Vec::new(), |t| marks.headers(t, arguments));
            }
            post.lists_tools = method == method::TOOLS_LIST;
            post.headers[0].1 = version;
            post.to_legacy = declared.is_none();
            post.id = Some(id);
            Plan::Post(post)
        }
        Class::Notification { method } if method == method::CANCELLED => parsed
            .value
            .get("params")
            .and_then(|p| p.get("requestId"))
            .and_then(|id| serde_json::to_string(id).ok())
            .map_or(Plan::Drop, Plan::Cancel),
        // The far side has no handshake and never asks: nothing else needs to reach it.
        _ => Plan::Drop,
    }
}

/// The router's `initialize` answered from the discovery: the revision it asked for (legacy),
/// the far side's capabilities and server info.
fn initialize_answer(raw_id: &str, request: &Value, discovery: &Discovery) -> Vec<u8> {
    let asked = request
        .get("params")
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str)
        .filter(|v| Version::parse(v).is_some_and(Version::is_legacy))
        .unwrap_or(Version::LATEST_LEGACY.as_str());
    let mut out =
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{raw_id},\"result\":{{\"protocolVersion\":")
            .into_bytes();
    message::push_json_string(&mut out, asked);
    out.extend_from_slice(b",\"capabilities\":");
    out.extend_from_slice(discovery.capabilities.as_bytes());
    out.extend_from_slice(b",\"serverInfo\":");
    out.extend_from_slice(discovery.server_info.as_bytes());
    out.extend_from_slice(b"}}");
    out
}

/// The legacy session: what its headers need, and whether it is open.
#[derive(Debug, Default)]
pub(super) struct Session {
    /// `Mcp-Session-Id`, once the far side gave one.
    pub(super) id: Option<String>,
    /// The revision the far side agreed to.
    pub(super) version: Option<String>,
    /// The router's `initialize` was answered.
    pub(super) opened: bool,
}

impl Session {
    /// `Mcp-Session-Id` and `MCP-Protocol-Version`, once known.
    pub(super) fn headers(&self) -> Vec<(&'static str, String)> {
        let mut headers = Vec::new();
        if let Some(id) = &self.id {
            headers.push((SESSION_HEADER, id.clone()));
        }
        if let Some(version) = &self.version {
            headers.push((PROTOCOL_VERSION_HEADER, version.clone()));
        }
        headers
    }
}

/// The plan for `line` in a legacy session: everything goes as it is.
pub(super) fn plan_legacy(line: &[u8], session: &Session) -> Plan {
    let Some(parsed) = message::parse(line) else {
        return Plan::Drop;
    };
    let headers = session.headers();
    let id = match parsed.class {
        Class::Request { id, .. } => Some(id),
        _ => None,
    };
    Plan::Post(Post {
        body: line.to_vec(),
        headers,
        param_headers: Vec::new(),
        id,
        to_legacy: false,
        lists_tools: false,
    })
}

/// The revision an `initialize` answer agreed to.
pub(super) fn agreed_version(answer: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(answer).ok()?;
    Some(
        value
            .get("result")?
            .get("protocolVersion")?
            .as_str()?
            .to_owned(),
    )
}

/// Whether `line` is the final answer to the request with id key `key`.
pub(super) fn is_answer_to(line: &[u8], key: &str) -> bool {
    matches!(message::parse(line), Some(message::Message { class: Class::Response { id }, .. }) if id.key == key)
}

/// A 2026-07-28 answer in the legacy form: no `resultType`, a `structuredContent` that is not
/// an object wrapped (the text block carrying it too); an error or anything unreadable as it is.
pub(super) fn legacy_answer(line: &[u8]) -> Vec<u8> {
    let Some(raw) = parse_raw(line) else {
        return line.to_vec();
    };
    let (Some(id), Some(result)) = (raw.get("id"), raw.get("result")) else {
        return line.to_vec();
    };
    let mut out = format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":", id.raw()).into_bytes();
    out.extend_from_slice(&wrapped_result(&result, ResultType::Drop, true));
    out.push(b'}');
    out
}

/// The line a listen stream's event means for the router: `notifications/tools/list_changed`
/// (the subscription's tag left out) or nothing.
pub(super) fn listen_event(line: &[u8]) -> Option<Vec<u8>> {
    match message::parse(line)?.class {
        Class::Notification { method } if method == method::TOOLS_LIST_CHANGED => {
            Some(message::list_changed())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
