//! 2026-07-28 over HTTP: no session, every request self-contained. The front checks what the
//! HTTP layer of that revision adds (the `_meta` it requires, `MCP-Protocol-Version`,
//! `Mcp-Method` and `Mcp-Name` equal to the body, `Mcp-Param-*` equal to the arguments they
//! mirror: [`super::param_headers`]) and turns away the methods the revision
//! removed; `subscriptions/listen` opens a listen stream served by the front itself; everything
//! else goes to the device as it came (under a bridge-side id).

use std::borrow::Cow;

use serde_json::Value;

use super::exchange::{stateless_status, Reply, Stopped};
use super::front_state::{Accepts, FrontState};
use super::handshake::Learnt;
use super::header_text;
use super::request::Request;
use crate::bridge::clients::{Event, Owner};
use crate::bridge::message::{
    method, Class, Id, Message, CONNECTION_CLOSED, HEADER_MISMATCH, INVALID_PARAMS,
    INVALID_REQUEST, METHOD_NOT_FOUND,
};
use crate::bridge::subscriptions::Filter;
use crate::bridge::tasks::{missing_capability, EXTENSION};
use crate::wire::meta::{
    CLIENT_CAPABILITIES as META_CLIENT_CAPABILITIES, PROTOCOL_VERSION as META_PROTOCOL_VERSION,
};

/// Legacy methods that do not exist in 2026-07-28 (answered 404 + -32601 here, whatever the
/// device would say).
const REMOVED: [&str; 3] = ["initialize", "ping", "logging/setLevel"];

/// A POST of a 2026-07-28 message.
pub(super) async fn post(
    front: &FrontState,
    request: &Request,
    msg: Message,
    accepts: Accepts,
) -> Reply {
    match &msg.class {
        Class::Request { id, method } => match check(request, &msg.value, id, method) {
            Err(reply) => reply,
            Ok(()) if method == "tools/call" => {
                let params = msg.value.get("params");
                match front
                    .tool_headers
                    .check(front.reply_idle, request, params)
                    .await
                {
                    Ok(()) => {
                        let id = id.clone();
                        forward(front, request, msg, &id, accepts)
                    }
                    Err(why) => Reply::error(
                        400,
                        Some(&id.raw),
                        HEADER_MISMATCH,
                        &format!("Header mismatch: {why}"),
                    ),
                }
            }
            Ok(()) if method == method::SUBSCRIPTIONS_LISTEN => {
                listen(front, request, &msg, id, accepts).await
            }
            Ok(()) => {
                let id = id.clone();
                forward(front, request, msg, &id, accepts)
            }
        },
        // Closing a request's stream cancels it; a posted notification changes nothing.
        Class::Notification { .. } => Reply::empty(202),
        Class::Response { id } => Reply::error(
            400,
            Some(&id.raw),
            INVALID_REQUEST,
            "Invalid request: clients never send responses in 2026-07-28",
        ),
        Class::ErrorWithoutId => Reply::error(
            400,
            None,
            INVALID_REQUEST,
            "Invalid request: clients never send responses in 2026-07-28",
        ),
        Class::Invalid { id } => Reply::error(
            400,
            id.as_ref().map(|id| id.raw.as_str()),
            INVALID_REQUEST,
            "Invalid request: not a JSON-RPC 2.0 request or notification",
        ),
    }
}

/// Hands the request to the clients layer with what was read of it (the engine reads it no
/// more).
fn forward(
    front: &FrontState,
    request: &Request,
    msg: Message,
    id: &Id,
    accepts: Accepts,
) -> Reply {
    let owner = Owner {
        session: None,
        id_raw: id.raw.clone(),
        id_key: id.key.clone(),
        peer: request.peer.clone(),
    };
    let tool = msg
        .value
        .pointer("/params/name")
        .and_then(Value::as_str)
        .map(str::to_owned);
    match front
        .layer
        .forward(request.body.to_vec(), Some(msg), owner, tool)
    {
        Ok(ticket) => Reply::Wait {
            ticket,
            sse: accepts.sse,
            stateless: true,
            headers: Vec::new(),
        },
        Err(Stopped) => Reply::error(
            503,
            Some(&id.raw),
            CONNECTION_CLOSED,
            "the bridge is stopping",
        ),
    }
}

/// `subscriptions/listen`: served by the front itself, as an SSE stream that opens with the
/// acknowledgement and then carries the list changes asked for (and agreed to: the device, or
/// hub, declares `tools.listChanged`); closing it is the client's cancel. The bridge never ends
/// it but by ending the connection.
async fn listen(
    front: &FrontState,
    request: &Request,
    msg: &Message,
    id: &Id,
    accepts: Accepts,
) -> Reply {
    if !accepts.sse {
        return Reply::error(
            406,
            Some(&id.raw),
            INVALID_REQUEST,
            "Not acceptable: a listen stream is text/event-stream",
        );
    }
    let Some(filter) = Filter::read(msg.value.get("params")) else {
        return Reply::error(
            400,
            Some(&id.raw),
            INVALID_PARAMS,
            "Invalid params: subscriptions/listen needs a \"notifications\" object",
        );
    };
    let asks_tasks = filter.task_ids.is_some();
    if asks_tasks && !declares_tasks(msg.value.get("params")) {
        let body = missing_capability(
            &id.raw,
            "taskIds on subscriptions/listen need the tasks extension",
        );
        return Reply::json(stateless_status(&body), body);
    }
    let filter = Filter {
        tools_list_changed: filter.tools_list_changed && declares_list_changed(front).await,
        ..filter
    };
    let (ticket, route) = front.layer.ticket(&id.raw);
    let event = Event::Listen {
        ticket: ticket.id,
        id: id.clone(),
        filter,
        peer: request.peer.clone(),
        route,
    };
    match front.layer.send(event) {
        Ok(()) => Reply::Stream {
            ticket,
            headers: Vec::new(),
        },
        Err(_) => Reply::error(
            503,
            Some(&id.raw),
            CONNECTION_CLOSED,
            "the bridge is stopping",
        ),
    }
}

/// The request's `_meta` client capabilities declare the tasks extension.
fn declares_tasks(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_CLIENT_CAPABILITIES))
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(EXTENSION))
        .is_some_and(|v| !v.is_null())
}

/// The device (or hub) declares `tools.listChanged` in its `initialize` result; true when the
/// handshake did not succeed (a device still away may declare it once back).
async fn declares_list_changed(front: &FrontState) -> bool {
    match front.handshake.result(&front.layer, front.reply_idle).await {
        Learnt::Result(result) => {
            serde_json::from_str::<Value>(&result)
                .ok()
                .and_then(|r| r.pointer("/capabilities/tools/listChanged").cloned())
                == Some(Value::Bool(true))
        }
        Learnt::Error(_) => true,
    }
}

/// The checks, in the order the revision's errors are told apart: `_meta` (-32602), then the
/// headers against the body (-32020), then removed methods (404 + -32601).
fn check(request: &Request, value: &Value, id: &Id, method: &str) -> Result<(), Reply> {
    let raw = Some(id.raw.as_str());
    let params = value.get("params");
    let meta = params.and_then(|p| p.get("_meta"));
    let version = meta
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .and_then(Value::as_str);
    let capabilities = meta
        .and_then(|m| m.get(META_CLIENT_CAPABILITIES))
        .is_some_and(Value::is_object);
    let Some(version) = version.filter(|_| capabilities) else {
        return Err(Reply::error(
            400,
            raw,
            INVALID_PARAMS,
            "Invalid params: _meta[\"io.modelcontextprotocol/protocolVersion\"] (a string) and [\"io.modelcontextprotocol/clientCapabilities\"] (an object) are required",
        ));
    };
    let mismatch = |what: &str| {
        Err(Reply::error(
            400,
            raw,
            HEADER_MISMATCH,
            &format!("Header mismatch: {what}"),
        ))
    };
    match header(request, "mcp-protocol-version") {
        None => return mismatch("MCP-Protocol-Version is required"),
        Some(h) if h != version => {
            return mismatch("MCP-Protocol-Version differs from _meta's protocolVersion")
        }
        Some(_) => {}
    }
    match header(request, "mcp-method") {
        None => return mismatch("Mcp-Method is required"),
        Some(h) if h != method => return mismatch("Mcp-Method differs from the body's method"),
        Some(_) => {}
    }
    let named = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        // The tasks extension routes its requests by task.
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    };
    if let Some(member) = named {
        let body = params.and_then(|p| p.get(member)).and_then(Value::as_str);
        match (header(request, "mcp-name"), body) {
            (None, _) => return mismatch("Mcp-Name is required"),
            (Some(h), Some(b)) if h == b => {}
            _ => return mismatch("Mcp-Name differs from the body"),
        }
    }
    if REMOVED.contains(&method) {
        return Err(Reply::error(
            404,
            raw,
            METHOD_NOT_FOUND,
            &format!("Method not found: {method} does not exist in 2026-07-28"),
        ));
    }
    Ok(())
}

/// A header's value as the revision encodes it: trimmed, `=?base64?…?=` decoded; `None` when
/// absent, repeated or undecodable.
fn header<'a>(request: &'a Request, name: &str) -> Option<Cow<'a, str>> {
    header_text::decoded(request, name).ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::message;

    fn request(headers: &[(&str, &str)]) -> Request {
        Request::post_for_test(headers)
    }

    fn status_and_code(result: Result<(), Reply>) -> Option<(u16, i64)> {
        match result {
            Ok(()) => None,
            Err(Reply::Answer { status, body, .. }) => {
                let v: Value = serde_json::from_slice(&body).unwrap();
                Some((status, v["error"]["code"].as_i64().unwrap()))
            }
            Err(Reply::Wait { .. } | Reply::Stream { .. }) => panic!("a check never waits"),
        }
    }

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn run(body: &str, headers: &[(&str, &str)]) -> Option<(u16, i64)> {
        let msg = message::parse(body.as_bytes()).unwrap();
        let Class::Request { id, method } = &msg.class else {
            panic!("not a request")
        };
        status_and_code(check(&request(headers), &msg.value, id, method))
    }

    #[test]
    fn meta_then_headers_then_removed_methods() {
        let std = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/list"),
        ];
        let list =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META}}}}}"#);
        assert_eq!(run(&list, &std), None);
        assert_eq!(
            run(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
                &std
            ),
            Some((400, -32602))
        );
        assert_eq!(
            run(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
                &std
            ),
            Some((400, -32602))
        );
        assert_eq!(
            run(
                &list,
                &[
                    ("mcp-protocol-version", "2025-11-25"),
                    ("mcp-method", "tools/list")
                ]
            ),
            Some((400, -32020))
        );
        assert_eq!(
            run(&list, &[("mcp-protocol-version", "2026-07-28")]),
            Some((400, -32020))
        );
        assert_eq!(
            run(
                &list,
                &[
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", "tools/call")
                ]
            ),
            Some((400, -32020))
        );
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"héllo",{META}}}}}"#
        );
        let call_headers = |name: &'static str| {
            [
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", name),
            ]
        };
        assert_eq!(run(&call, &call_headers("=?base64?aMOpbGxv?=")), None);
        assert_eq!(run(&call, &call_headers("hello")), Some((400, -32020)));
        assert_eq!(run(&call, &std), Some((400, -32020)));
        let ping = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{{META}}}}}"#);
        assert_eq!(
            run(
                &ping,
                &[
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", "ping")
                ]
            ),
            Some((404, -32601))
        );
    }
}
