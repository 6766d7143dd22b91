//! The HTTP server: connections accepted into the connection table ([`super::slots`]), served by
//! hyper's HTTP/1.1 (keep-alive, pipelining, chunked bodies; the head bounded in size with 431
//! and in time), shed when a newer connection needs its place while it waits, and closed
//! lingeringly ([`super::linger`]); and each request taken to the era that answers it.
//!
//! A request goes in the order that keeps a hostile client cheap: hyper has bounded the head and
//! its deadline; here the declared body length is bounded, then the doors ([`super::doors`]) and
//! the path (`/mcp`) are checked on the head alone, then the body is read within its bound and
//! deadline (`Content-Length` or chunked), and only then does the MCP logic see it: legacy
//! sessions ([`super::legacy`]) or 2026-07-28 self-contained requests ([`super::stateless`]).
//! A refusal before the body is read closes the connection (lingeringly: the client reads the
//! answer).

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use embedded_mcp::protocol::Version;
use http_body_util::{BodyExt, Limited};
use hyper::body::{Body, Incoming};
use hyper::header::CONTENT_LENGTH;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::Response;
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

use super::connection_limit::{ConnectionLimit, Shed};
use super::exchange::{close, refusal, respond, Reply, ReplyBody};
use super::front_state::{Accepts, FrontState};
use super::linger::Lingering;
use super::request::Request;
use super::slots::SlotId;
use super::{legacy, stateless, HttpConfig};
use crate::bridge::message::{self, error_response, Message, INVALID_REQUEST, PARSE_ERROR};
use crate::wire::meta::PROTOCOL_VERSION as META_PROTOCOL_VERSION;

/// hyper's read buffer bound per connection (hyper's minimum is 8 KiB).
const READ_BUFFER: usize = 64 * 1024;

/// The path the front serves.
const ENDPOINT: &str = "/mcp";

/// One connection, as each of its requests sees it.
struct Connection {
    front: Arc<FrontState>,
    limit: Arc<ConnectionLimit>,
    slot: SlotId,
    /// Longest body (413 past it).
    max_body: usize,
    /// Longest time to receive a whole body (408 past it).
    body_deadline: Duration,
    /// The client's address (its IP).
    peer: String,
}

/// Accepts connections on `listener` until the task is dropped, within the bounds of `http`
/// (connections, head and body).
pub(super) async fn accept(listener: TcpListener, front: Arc<FrontState>, http: &HttpConfig) {
    let limit = Arc::new(ConnectionLimit::new(http.max_connections));
    let lingering = Arc::new(AtomicUsize::new(0));
    let mut server = http1::Builder::new();
    server
        .timer(TokioTimer::new())
        .header_read_timeout(http.head_timeout)
        .max_header_size(http.max_head)
        .max_buf_size(READ_BUFFER.max(http.max_head));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok((stream, peer)) => (stream, peer.ip().to_string()),
            Err(e) => {
                // Out of file descriptors, or the peer left before the accept: wait a little
                // rather than spin.
                front
                    .log
                    .warn(format_args!("accepting a connection failed: {e}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let shed = Arc::new(Shed::default());
        let Some(slot) = limit.admit(shed.clone()) else {
            tokio::spawn(turn_away(stream, shed, lingering.clone()));
            continue;
        };
        let io = TokioIo::new(Lingering::new(
            stream,
            shed.abrupt.clone(),
            lingering.clone(),
        ));
        let connection = Arc::new(Connection {
            front: front.clone(),
            limit: limit.clone(),
            slot,
            max_body: http.max_body,
            body_deadline: http.body_timeout,
            peer,
        });
        let served =
            server.serve_connection(io, service_fn(move |r| answer(connection.clone(), r)));
        let limit = limit.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = served => {}
                () = shed.now.notified() => {}
            }
            limit.close(slot);
        });
    }
}

/// Every connection is answering a request: a 503 to the newcomer, and close.
async fn turn_away(mut stream: TcpStream, shed: Arc<Shed>, lingering: Arc<AtomicUsize>) {
    let body = error_response(
        None,
        INVALID_REQUEST,
        "Service unavailable: too many connections",
    );
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut answer = head.into_bytes();
    answer.extend_from_slice(&body);
    let write = stream.write_all(&answer);
    if tokio::time::timeout(Duration::from_secs(1), write)
        .await
        .is_err()
    {
        shed.abrupt.store(true, Ordering::SeqCst);
    }
    drop(Lingering::new(stream, shed.abrupt.clone(), lingering));
}

/// The answer to `request` on `connection`.
async fn answer(
    connection: Arc<Connection>,
    request: hyper::Request<Incoming>,
) -> Result<Response<ReplyBody>, Infallible> {
    let (parts, body) = request.into_parts();
    let declared = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let Some(mut request) = Request::of(parts, &connection.peer) else {
        return Ok(refusal(400, "Bad request: a header value is not UTF-8"));
    };
    if declared.is_some_and(|n| n > connection.max_body as u64) {
        return Ok(refusal(413, "Request body too large"));
    }
    let front = &connection.front;
    if let Err(reply) = admit(front, &request) {
        let unread = !body.is_end_stream();
        let mut response = respond(reply, None).await;
        if unread {
            close(&mut response);
        }
        return Ok(response);
    }
    let limited = Limited::new(body, connection.max_body);
    request.body = match tokio::time::timeout(connection.body_deadline, limited.collect()).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
            return Ok(refusal(413, "Request body too large"))
        }
        Ok(Err(_)) => return Ok(refusal(400, "Bad request: the body could not be read")),
        Err(_) => {
            return Ok(refusal(
                408,
                "Request timeout: the body did not arrive in time",
            ))
        }
    };
    let working = connection.limit.working(connection.slot);
    let reply = route(front, &request).await;
    Ok(respond(reply, Some(working)).await)
}

/// The doors (`Host`, `Origin`, the bearer token) and the path, checked on the head alone:
/// `Err` is the answer, and the body is never read.
fn admit(front: &FrontState, request: &Request) -> Result<(), Reply> {
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

/// The answer to `request`, admitted by [`admit`] and read whole: which era answers it.
async fn route(front: &FrontState, request: &Request) -> Reply {
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
        return stateless::post(front, request, msg, accepts).await;
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
