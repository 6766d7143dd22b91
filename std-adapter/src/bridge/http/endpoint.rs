//! The `/mcp` endpoint: the doors and the path first (before the body is read), then which era
//! answers a request: legacy sessions ([`super::legacy`]) or 2026-07-28 self-contained requests
//! ([`super::stateless`]).

use embedded_mcp::protocol::Version;
use serde_json::Value;

use super::front_state::{Accepts, FrontState};
use super::reply::Reply;
use super::request::Request;
use super::{legacy, stateless};
use crate::bridge::message::{self, Message, INVALID_REQUEST, PARSE_ERROR};
use crate::wire::meta::PROTOCOL_VERSION as META_PROTOCOL_VERSION;

/// The path the front serves.
const ENDPOINT: &str = "/mcp";

/// The doors (`Host`, `Origin`, the bearer token) and the path, checked on the head alone:
/// `Err` is the answer, and the body is never read.
pub(super) fn admit(front: &FrontState, request: &Request) -> Result<(), Reply> {
    let refused = front.doors.check(
        request.header("host"),
        request.header("origin"),
        request.header("authorization"),
    );
    if let Err(refusal) = refused {
        // Never log the Authorization header: only the reason.
        front.log.info(format_args!(
            "refused {} {}: {}",
            request.method,
            request.path,
            refusal.message()
        ));
        let reply = Reply::error(refusal.status(), None, INVALID_REQUEST, refusal.message());
        return Err(match refusal.challenge() {
            Some(challenge) => reply.with_header("WWW-Authenticate", challenge.into()),
            None => reply,
        });
    }
    if request.path.split('?').next() != Some(ENDPOINT) {
        return Err(Reply::error(
            404,
            None,
            INVALID_REQUEST,
            "Not found: the MCP endpoint is /mcp",
        ));
    }
    Ok(())
}

/// The answer to `request`, admitted by [`admit`] and read whole.
pub(super) async fn route(front: &FrontState, request: &Request) -> Reply {
    match request.method.as_str() {
        "POST" => post(front, request).await,
        "DELETE" if request.header("mcp-session-id").is_some() => legacy::delete(front, request),
        "GET" => match request.header("mcp-session-id") {
            Some(session) => legacy::listen(front, request, session),
            // 2026-07-28 has no GET; a legacy GET belongs to a session.
            None => Reply::error(
                405,
                None,
                INVALID_REQUEST,
                "Method not allowed: POST a JSON-RPC message (a session's GET stream needs its Mcp-Session-Id)",
            )
            .with_header("Allow", "POST".into()),
        },
        _ => Reply::error(
            405,
            None,
            INVALID_REQUEST,
            "Method not allowed: POST a JSON-RPC message (GET opens a session's stream, DELETE ends a session)",
        )
        .with_header("Allow", "GET, POST, DELETE".into()),
    }
}

async fn post(front: &FrontState, request: &Request) -> Reply {
    if let Some(kind) = request.header("content-type") {
        let kind = kind.split(';').next().unwrap_or("").trim();
        if !kind.eq_ignore_ascii_case("application/json") {
            return Reply::error(
                415,
                None,
                INVALID_REQUEST,
                "Unsupported media type: send Content-Type: application/json",
            );
        }
    }
    let accepts = Accepts::of(request);
    if !accepts.json && !accepts.sse {
        return Reply::error(
            406,
            None,
            INVALID_REQUEST,
            "Not acceptable: accept application/json or text/event-stream",
        );
    }
    let Some(msg) = message::parse(&request.body) else {
        return Reply::error(400, None, PARSE_ERROR, "Parse error: the body is not JSON");
    };
    if let Some(session) = request.header("mcp-session-id") {
        return legacy::post(front, request, session, msg, accepts);
    }
    if is_stateless(request, &msg) {
        return stateless::post(front, request, &msg, accepts).await;
    }
    legacy::post_without_session(front, request, &msg).await
}

/// A request without a session is a 2026-07-28 one when its `MCP-Protocol-Version` header is
/// not a legacy version, or its `_meta` declares a version (legacy `initialize` included only
/// when it declares so).
fn is_stateless(request: &Request, msg: &Message) -> bool {
    let header = request.header("mcp-protocol-version");
    let declared = msg
        .value
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .is_some();
    let header_modern = header.is_some_and(|h| !Version::parse(h).is_some_and(Version::is_legacy));
    let initialize = msg.value.get("method").and_then(Value::as_str) == Some("initialize");
    if initialize {
        return declared
            || header
                .and_then(Version::parse)
                .is_some_and(|v| !v.is_legacy());
    }
    header_modern || declared
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(headers: &[(&str, &str)]) -> Request {
        Request::post_for_test(headers)
    }

    #[test]
    fn era_of_a_request_without_session() {
        let msg = |text: &str| message::parse(text.as_bytes()).unwrap();
        let modern = request(&[("mcp-protocol-version", "2026-07-28")]);
        let legacy = request(&[("mcp-protocol-version", "2025-11-25")]);
        let unknown = request(&[("mcp-protocol-version", "v999.0.0")]);
        let init = msg(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#);
        let list = msg(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
        let declared = msg(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        );
        assert!(is_stateless(&modern, &init));
        assert!(!is_stateless(&legacy, &init));
        assert!(!is_stateless(&unknown, &init));
        assert!(!is_stateless(&request(&[]), &init));
        assert!(is_stateless(&modern, &list));
        assert!(is_stateless(&unknown, &list));
        assert!(!is_stateless(&legacy, &list));
        assert!(is_stateless(&request(&[]), &declared));
    }
}
