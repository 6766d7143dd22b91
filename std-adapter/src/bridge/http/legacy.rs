//! 2025-06-18 and 2025-11-25 over HTTP: sessions opened by `initialize` (answered by the front
//! from the device's cached handshake, echoing the client's version when the bridge supports
//! it), `Mcp-Session-Id` and `MCP-Protocol-Version` checked on every later request, and
//! `logging/setLevel` kept per session.
//!
//! A session at the version of the front's own handshake (2025-11-25 with a current device)
//! sends its requests to the device unchanged. A session at another version (2025-06-18) gets
//! the handshake's result translated (that version's `protocolVersion`, no `serverInfo` fields it
//! lacks), and its requests carry that version and the client's capabilities in `_meta`, which an
//! embedded-mcp device answers with that version's rules, whatever other sessions agreed to.

use std::sync::Arc;
use std::time::Instant;

use embedded_mcp::protocol::{LogLevel, Version};
use serde_json::{json, Value};

use super::front_state::{Accepts, FrontState};
use super::handshake::Learnt;
use super::multiplex::{ForwardError, Owner};
use super::reply::Reply;
use super::request::Request;
use super::session_table::{InUse, LegacySession, OpenError};
use crate::bridge::message::{
    splice, Class, Id, Message, CONNECTION_CLOSED, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST,
};
use crate::wire::meta::{
    CLIENT_CAPABILITIES as META_CLIENT_CAPABILITIES, PROTOCOL_VERSION as META_PROTOCOL_VERSION,
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
    let result = match front.handshake.result(&front.mux, front.reply_idle).await {
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
    let opened = match front
        .sessions
        .open(version, capabilities, translate, Instant::now())
    {
        Ok(opened) => opened,
        Err(OpenError::Full) => {
            return Reply::error(
                503,
                Some(&id.raw),
                INVALID_REQUEST,
                "Service unavailable: every session has a request in flight",
            )
            .with_header("Retry-After", "1".into())
        }
        Err(OpenError::NoRandomness) => {
            return Reply::error(
                500,
                Some(&id.raw),
                INTERNAL_ERROR,
                "Internal error: no random bytes for a session id",
            )
        }
    };
    if let Some(evicted) = &opened.evicted {
        front.mux.unlisten(evicted);
        front.log.info(format_args!(
            "session table full: evicted the least recently used idle session"
        ));
    }
    front.log.info(format_args!(
        "session opened at {} ({})",
        version.as_str(),
        client_name(params)
    ));
    Reply::json(200, envelope(&id.raw, "result", &result)).with_header("Mcp-Session-Id", opened.id)
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

/// Session `session_id`, if it is open and the request's `MCP-Protocol-Version` (if any) is a
/// legacy one; else the 404 or 400 to answer.
fn live_session(
    front: &FrontState,
    request: &Request,
    session_id: &str,
) -> Result<Arc<LegacySession>, Reply> {
    let Some(session) = front.sessions.get(session_id, Instant::now()) else {
        return Err(Reply::error(
            404,
            None,
            INVALID_REQUEST,
            "Not found: no such session (initialize again)",
        ));
    };
    if !version_header_ok(request) {
        return Err(Reply::error(
            400,
            None,
            INVALID_REQUEST,
            "Bad request: unsupported MCP-Protocol-Version",
        ));
    }
    Ok(session)
}

/// A POST in session `session_id`.
pub(super) fn post(
    front: &FrontState,
    request: &Request,
    session_id: &str,
    msg: &Message,
    accepts: Accepts,
) -> Reply {
    let session = match live_session(front, request, session_id) {
        Ok(session) => session,
        Err(reply) => return reply,
    };
    match &msg.class {
        Class::Request { id, method } => match method.as_str() {
            "initialize" => Reply::error(
                400,
                Some(&id.raw),
                INVALID_REQUEST,
                "Bad request: this session is initialized already",
            ),
            "logging/setLevel" => set_level(&session, msg, id),
            _ => {
                let owner = Owner {
                    session: Some(session_id.to_owned()),
                    id_raw: id.raw.clone(),
                    id_key: id.key.clone(),
                    log_level: Some(session.log_level.clone()),
                };
                let line = if session.translate {
                    self_contained(&request.body, &session)
                } else {
                    request.body.clone()
                };
                let in_use = InUse::new(session.clone());
                // A call that may need a person's answer: through the shim, which asks on the
                // POST's event stream (only a client that takes one can be asked).
                let shimmed = (method == "tools/call" && accepts.sse)
                    .then(|| {
                        front.mux.forward_shimmed(
                            &session,
                            session_id,
                            &msg.value,
                            &request.body,
                            id,
                            owner.clone(),
                        )
                    })
                    .flatten();
                match shimmed.unwrap_or_else(|| front.mux.forward(&line, owner)) {
                    Ok(ticket) => Reply::Wait {
                        ticket,
                        sse: accepts.sse,
                        stateless: false,
                        headers: Vec::new(),
                        session: Some(in_use),
                    },
                    Err(ForwardError::DuplicateId) => Reply::error(
                        400,
                        Some(&id.raw),
                        INVALID_REQUEST,
                        "Invalid request: this id is already used by a request in flight",
                    ),
                    Err(ForwardError::RouterGone) => Reply::error(
                        503,
                        Some(&id.raw),
                        CONNECTION_CLOSED,
                        "the bridge is stopping",
                    ),
                }
            }
        },
        Class::Notification { method } => {
            if method == "notifications/cancelled" {
                let params = msg.value.get("params");
                let key = params
                    .and_then(|p| p.get("requestId"))
                    .and_then(|id| serde_json::to_string(id).ok());
                let reason = params
                    .and_then(|p| p.get("reason"))
                    .and_then(Value::as_str)
                    .unwrap_or("cancelled by the client");
                if let Some(key) = key {
                    front.mux.cancel_client(Some(session_id), &key, reason);
                }
            }
            // `notifications/initialized` was sent to the device by the front's own handshake;
            // other client notifications mean nothing to a tools device.
            Reply::empty(202)
        }
        // A response answers one of the shim's questions, or nothing.
        Class::Response { id } => {
            front.mux.on_client_answer(session_id, &id.key, &msg.value);
            Reply::empty(202)
        }
        Class::ErrorWithoutId => Reply::empty(202),
        Class::Invalid { id } => Reply::error(
            400,
            id.as_ref().map(|id| id.raw.as_str()),
            INVALID_REQUEST,
            "Invalid request: not a JSON-RPC 2.0 request, notification or response",
        ),
    }
}

fn set_level(session: &LegacySession, msg: &Message, id: &Id) -> Reply {
    let level = msg
        .value
        .get("params")
        .and_then(|p| p.get("level"))
        .and_then(Value::as_str)
        .and_then(LogLevel::from_name);
    match level {
        Some(level) => {
            session
                .log_level
                .store(level.rank(), std::sync::atomic::Ordering::Relaxed);
            Reply::json(200, envelope(&id.raw, "result", "{}"))
        }
        None => Reply::error(
            200,
            Some(&id.raw),
            INVALID_PARAMS,
            "Invalid params: unknown log level",
        ),
    }
}

/// The request `line` with the session's protocol version and client capabilities added to
/// `params._meta` (keys the client set itself are kept, and no other byte changes).
fn self_contained(line: &[u8], session: &LegacySession) -> Vec<u8> {
    let version = format!("\"{}\"", session.version.as_str());
    let capabilities = session.capabilities.to_string();
    let members = [
        (META_PROTOCOL_VERSION, version.as_str()),
        (META_CLIENT_CAPABILITIES, capabilities.as_str()),
    ];
    splice::with_meta_defaults(line, &members).unwrap_or_else(|| line.to_vec())
}

/// GET with `Mcp-Session-Id`: the session's stream of messages tied to no request (the
/// device's `notifications/tools/list_changed`, its log lines between requests). One per
/// session: a new GET ends the previous stream.
pub(super) fn listen(front: &FrontState, request: &Request, session_id: &str) -> Reply {
    let session = match live_session(front, request, session_id) {
        Ok(session) => session,
        Err(reply) => return reply,
    };
    if !Accepts::of(request).sse {
        return Reply::error(
            406,
            None,
            INVALID_REQUEST,
            "Not acceptable: a GET stream is text/event-stream",
        );
    }
    let lines = front.mux.listen(session_id, session.log_level.clone());
    Reply::Listen {
        lines,
        headers: Vec::new(),
    }
}

/// DELETE with `Mcp-Session-Id`: ends the session (and its GET stream).
pub(super) fn delete(front: &FrontState, request: &Request) -> Reply {
    let id = request.header("mcp-session-id").unwrap_or_default();
    front.mux.unlisten(id);
    if front.sessions.close(id) {
        front.log.info(format_args!("session ended by the client"));
        Reply::empty(200)
    } else {
        Reply::error(404, None, INVALID_REQUEST, "Not found: no such session")
    }
}
