//! 2025-06-18 and 2025-11-25 over HTTP, the HTTP side: `initialize` answered by the front from
//! the device's cached handshake (echoing the client's version when the bridge supports it; a
//! session at another version than the device's gets the result translated: that version's
//! `protocolVersion`, no `serverInfo` fields it lacks), and every request of a session handed
//! to the clients layer, which keeps the sessions (`clients::session_posts`).

use embedded_mcp::protocol::Version;
use serde_json::{json, Value};

use super::exchange::{ClientEvent, Reply, Waiting};
use super::front_state::{Accepts, FrontState};
use super::handshake::Learnt;
use super::request::Request;
use crate::bridge::clients::{Event, NewSession, SessionPost};
use crate::bridge::message::{
    Class, Id, Message, CONNECTION_CLOSED, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST,
};

/// A POST without `Mcp-Session-Id` in a legacy era: only `initialize` may come so.
pub(super) async fn post_without_session(
    front: &FrontState,
    request: &Request,
    msg: &Message,
) -> Reply {
    match &msg.class {
        Class::Request { id, method } if method == "initialize" => {
            initialize(front, request, msg, id).await
        }
        Class::Request { id, .. } => Reply::error(
            400,
            Some(&id.raw),
            INVALID_REQUEST,
            "Bad request: send the Mcp-Session-Id header that initialize returned",
        ),
        _ => Reply::error(
            400,
            None,
            INVALID_REQUEST,
            "Bad request: send the Mcp-Session-Id header that initialize returned",
        ),
    }
}

/// True when an `MCP-Protocol-Version` header, if present, names a legacy version.
fn version_header_ok(request: &Request) -> bool {
    request
        .header("mcp-protocol-version")
        .is_none_or(|h| Version::parse(h).is_some_and(Version::is_legacy))
}

async fn initialize(front: &FrontState, request: &Request, msg: &Message, id: &Id) -> Reply {
    if !version_header_ok(request) {
        return Reply::error(
            400,
            Some(&id.raw),
            INVALID_REQUEST,
            "Bad request: unsupported MCP-Protocol-Version",
        );
    }
    let params = msg.value.get("params");
    let Some(requested) = params
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str)
    else {
        return Reply::error(
            200,
            Some(&id.raw),
            INVALID_PARAMS,
            "Invalid params: \"protocolVersion\" must be a string",
        );
    };
    let requested = Version::parse(requested).filter(|v| v.is_legacy());
    let capabilities = params
        .and_then(|p| p.get("capabilities"))
        .filter(|c| c.is_object())
        .cloned()
        .unwrap_or_else(|| json!({}));
    let result = match front.handshake.result(&front.layer, front.reply_idle).await {
        Learnt::Result(result) => result,
        Learnt::Error(error) => return Reply::json(200, envelope(&id.raw, "error", &error)),
    };
    let agreed = device_version(&result);
    let Some(version) = requested.or(agreed) else {
        return Reply::error(
            200,
            Some(&id.raw),
            INTERNAL_ERROR,
            "Internal error: the device agreed to no legacy protocol version",
        );
    };
    let translate = Some(version) != agreed;
    let result: std::borrow::Cow<'_, str> = if translate {
        translated(&result, version).into()
    } else {
        (*result).into()
    };
    let Some(session_id) = new_session_id() else {
        return Reply::error(
            500,
            Some(&id.raw),
            INTERNAL_ERROR,
            "Internal error: no random bytes for a session id",
        );
    };
    front.log.info(format_args!(
        "session opened at {} ({})",
        version.as_str(),
        client_name(params)
    ));
    let (ticket, route) = front.layer.ticket(&id.raw);
    let new = NewSession {
        id: session_id,
        version,
        capabilities,
        translate,
        id_raw: id.raw.clone(),
        response: envelope(&id.raw, "result", &result),
        route,
    };
    wait(front, ticket, Event::OpenSession(new), false, &id.raw)
}

/// Hands `event` to the clients layer and waits for its answer.
fn wait(front: &FrontState, ticket: Waiting, event: ClientEvent, sse: bool, id_raw: &str) -> Reply {
    match front.layer.send(event) {
        Ok(()) => Reply::Wait {
            ticket,
            sse,
            stateless: false,
            headers: Vec::new(),
        },
        Err(_) => Reply::error(
            503,
            Some(id_raw),
            CONNECTION_CLOSED,
            "the bridge is stopping",
        ),
    }
}

/// 128 random bits as 32 lower-case hex digits (visible ASCII, as the spec asks).
fn new_session_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The `protocolVersion` of the device's `InitializeResult`.
fn device_version(result: &str) -> Option<Version> {
    let value: Value = serde_json::from_str(result).ok()?;
    Version::parse(value.get("protocolVersion")?.as_str()?)
}

/// The device's `InitializeResult` as `version` has it: that `protocolVersion`, and for
/// 2025-06-18 no `serverInfo` `description`, `websiteUrl` or `icons` (2025-11-25 added them).
fn translated(result: &str, version: Version) -> String {
    let Ok(mut value) = serde_json::from_str::<Value>(result) else {
        return result.to_owned();
    };
    value["protocolVersion"] = json!(version.as_str());
    if !version.has_icons() {
        if let Some(info) = value.get_mut("serverInfo").and_then(Value::as_object_mut) {
            for key in ["description", "websiteUrl", "icons"] {
                info.remove(key);
            }
        }
    }
    value.to_string()
}

fn client_name(params: Option<&Value>) -> String {
    params
        .and_then(|p| p.get("clientInfo"))
        .and_then(|c| c.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("unnamed client")
        .chars()
        .filter(|c| !c.is_control())
        .take(64)
        .collect()
}

/// `{"jsonrpc":"2.0","id":ID,"KEY":VALUE}` from exact JSON texts.
fn envelope(id: &str, key: &str, value: &str) -> Vec<u8> {
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"{key}\":{value}}}").into_bytes()
}

/// A POST in session `session_id`: the clients layer decides.
pub(super) fn post(
    front: &FrontState,
    request: &Request,
    session_id: &str,
    msg: Message,
    accepts: Accepts,
) -> Reply {
    let id_raw = match &msg.class {
        Class::Request { id, .. } => id.raw.clone(),
        _ => "null".to_owned(),
    };
    let (ticket, route) = front.layer.ticket(&id_raw);
    let post = SessionPost {
        ticket: ticket.id,
        session: session_id.to_owned(),
        version_ok: version_header_ok(request),
        msg,
        body: request.body.to_vec(),
        sse: accepts.sse,
        peer: request.peer.clone(),
        route,
    };
    wait(
        front,
        ticket,
        Event::SessionPost(post),
        accepts.sse,
        &id_raw,
    )
}

/// GET with `Mcp-Session-Id`: the session's stream of messages tied to no request (the
/// device's `notifications/tools/list_changed`, its log lines between requests). One per
/// session: a new GET ends the previous stream.
pub(super) fn listen(front: &FrontState, request: &Request, session_id: &str) -> Reply {
    if !Accepts::of(request).sse {
        return Reply::error(
            406,
            None,
            INVALID_REQUEST,
            "Not acceptable: a GET stream is text/event-stream",
        );
    }
    let (ticket, route) = front.layer.ticket("null");
    let event = Event::SessionStream {
        ticket: ticket.id,
        session: session_id.to_owned(),
        version_ok: version_header_ok(request),
        peer: request.peer.clone(),
        route,
    };
    match front.layer.send(event) {
        Ok(()) => Reply::Stream {
            ticket,
            headers: Vec::new(),
        },
        Err(_) => Reply::error(503, None, CONNECTION_CLOSED, "the bridge is stopping"),
    }
}

/// DELETE with `Mcp-Session-Id`: ends the session (and its GET stream).
pub(super) fn delete(front: &FrontState, request: &Request) -> Reply {
    let session = request
        .header("mcp-session-id")
        .unwrap_or_default()
        .to_owned();
    let (ticket, route) = front.layer.ticket("null");
    wait(
        front,
        ticket,
        Event::CloseSession { session, route },
        false,
        "null",
    )
}
