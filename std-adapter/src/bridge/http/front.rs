//! One HTTP request, from its doors to the era that answers it: legacy sessions
//! ([`super::legacy`]) or 2026-07-28 self-contained requests ([`super::stateless`]).

use std::time::Duration;

use embedded_mcp::protocol::Version;
use serde_json::Value;

use super::doors::Doors;
use super::handshake::Handshake;
use super::hub::Hub;
use super::param_headers::ToolHeaders;
use super::reply::Reply;
use super::session::Sessions;
use super::wire::Request;
use super::{legacy, stateless};
use crate::bridge::message::{self, Message, INVALID_REQUEST, PARSE_ERROR};
use crate::device::client::META_PROTOCOL_VERSION;
use crate::device::Logger;

/// The path the front serves.
pub(super) const ENDPOINT: &str = "/mcp";

/// Everything the connection threads share.
pub(super) struct Front {
    pub(super) hub: Hub,
    pub(super) sessions: Sessions,
    pub(super) handshake: Handshake,
    /// The `Mcp-Param-*` marks of the device's tools (2026-07-28 calls are checked against them).
    pub(super) tool_headers: ToolHeaders,
    pub(super) doors: Doors,
    /// Longest wait for the device's answer to one request (the router answers every request
    /// within its own timeout; this is the safety net behind it).
    pub(super) reply_wait: Duration,
    pub(super) log: Logger,
}

/// How a request's answer may be sent, from its `Accept` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Accepts {
    /// `application/json` (or no `Accept` at all).
    pub(super) json: bool,
    /// `text/event-stream`.
    pub(super) sse: bool,
}

impl Accepts {
    pub(super) fn of(request: &Request) -> Self {
        let Some(accept) = request.header("accept") else {
            return Self {
                json: true,
                sse: false,
            };
        };
        let types: Vec<String> = accept
            .split(',')
            .map(|t| {
                t.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            })
            .collect();
        let any = types.iter().any(|t| t == "*/*");
        Self {
            json: any
                || types
                    .iter()
                    .any(|t| t == "application/json" || t == "application/*"),
            sse: any
                || types
                    .iter()
                    .any(|t| t == "text/event-stream" || t == "text/*"),
        }
    }
}

impl Front {
    /// The answer to `request`, which has been read whole.
    pub(super) fn route(&self, request: &Request) -> Reply {
        let refused = self.doors.check(
            request.header("host"),
            request.header("origin"),
            request.header("authorization"),
        );
        if let Err(refusal) = refused {
            // Never log the Authorization header: only the reason.
            self.log.info(format_args!(
                "refused {} {}: {}",
                request.method,
                request.path,
                refusal.message()
            ));
            let reply = Reply::error(refusal.status(), None, INVALID_REQUEST, refusal.message());
            return match refusal.challenge() {
                Some(challenge) => reply.with_header("WWW-Authenticate", challenge.into()),
                None => reply,
            };
        }
        if request.path.split('?').next() != Some(ENDPOINT) {
            return Reply::error(
                404,
                None,
                INVALID_REQUEST,
                "Not found: the MCP endpoint is /mcp",
            );
        }
        if request.too_large {
            return Reply::error(413, None, INVALID_REQUEST, "Request body too large");
        }
        match request.method.as_str() {
            "POST" => self.post(request),
            "DELETE" if request.header("mcp-session-id").is_some() => legacy::delete(self, request),
            "GET" => match request.header("mcp-session-id") {
                Some(session) => legacy::listen(self, request, session),
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

    fn post(&self, request: &Request) -> Reply {
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
            return legacy::post(self, request, session, &msg, accepts);
        }
        if is_stateless(request, &msg) {
            return stateless::post(self, request, &msg, accepts);
        }
        legacy::post_without_session(self, request, &msg)
    }
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
    fn accept_header() {
        let a = Accepts::of(&request(&[(
            "accept",
            "application/json, text/event-stream",
        )]));
        assert_eq!(
            a,
            Accepts {
                json: true,
                sse: true
            }
        );
        let a = Accepts::of(&request(&[("accept", "text/event-stream;q=1")]));
        assert_eq!(
            a,
            Accepts {
                json: false,
                sse: true
            }
        );
        let a = Accepts::of(&request(&[]));
        assert_eq!(
            a,
            Accepts {
                json: true,
                sse: false
            }
        );
        let a = Accepts::of(&request(&[("accept", "text/html")]));
        assert_eq!(
            a,
            Accepts {
                json: false,
                sse: false
            }
        );
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
