//! One HTTP exchange on hyper, in the order that keeps a hostile client cheap: hyper has bounded
//! the head and its deadline; here the declared body length is bounded, then the doors and the
//! path are checked on the head alone, then the body is read within its bound and deadline
//! (`Content-Length` or chunked), and only then does the MCP logic see the request. A refusal
//! before the body is read closes the connection (lingeringly: the client reads the answer).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Limited};
use hyper::body::{Body, Incoming};
use hyper::header::{HeaderName, HeaderValue, CONNECTION, CONTENT_LENGTH};
use hyper::{Response, StatusCode};

use super::connection_limit::{ConnectionLimit, Working};
use super::endpoint;
use super::front_state::FrontState;
use super::reply::{stateless_status, Reply};
use super::reply_body::{Next, ReplyBody, Waiting};
use super::request::Request;
use super::slots::SlotId;
use crate::bridge::clients::Answer;
use crate::bridge::message::{error_response, INVALID_REQUEST};

/// The bounds of one request's body.
#[derive(Debug, Clone, Copy)]
pub(super) struct BodyLimits {
    /// Longest body (413 past it).
    pub(super) max: usize,
    /// Longest time to receive the whole body (408 past it).
    pub(super) deadline: Duration,
}

/// Where the exchange runs: the shared state and the connection's place in the table.
#[derive(Clone)]
pub(super) struct Exchange {
    pub(super) front: Arc<FrontState>,
    pub(super) limit: Arc<ConnectionLimit>,
    pub(super) slot: SlotId,
    pub(super) body: BodyLimits,
    /// The client's address (its IP).
    pub(super) peer: String,
}

impl Exchange {
    /// The answer to `request`.
    pub(super) async fn answer(
        self,
        request: hyper::Request<Incoming>,
    ) -> Result<Response<ReplyBody>, Infallible> {
        let (parts, body) = request.into_parts();
        let Some(mut request) = head(&parts, &self.peer) else {
            return Ok(refusal(400, "Bad request: a header value is not UTF-8"));
        };
        let declared = parts
            .headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.body.max as u64) {
            return Ok(refusal(413, "Request body too large"));
        }
        if let Err(reply) = endpoint::admit(&self.front, &request) {
            let unread = !body.is_end_stream();
            let mut response = self.respond(reply, None).await;
            if unread {
                close(&mut response);
            }
            return Ok(response);
        }
        let limited = Limited::new(body, self.body.max);
        request.body = match tokio::time::timeout(self.body.deadline, limited.collect()).await {
            Ok(Ok(collected)) => collected.to_bytes().to_vec(),
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
        let working = self.limit.working(self.slot);
        let reply = endpoint::route(&self.front, &request).await;
        Ok(self.respond(reply, Some(working)).await)
    }

    /// Turns `reply` into a response, waiting for the layer's first delivery to know whether
    /// it is answered as JSON or as an SSE stream.
    async fn respond(&self, reply: Reply, working: Option<Working>) -> Response<ReplyBody> {
        match reply {
            Reply::Answer {
                status,
                headers,
                body,
            } => response(status, &headers, ReplyBody::whole(body, working)),
            Reply::Stream { ticket, headers } => {
                let mut waiting = Waiting::new(self.front.clone(), ticket);
                loop {
                    match waiting.next().await {
                        Next::Opened => {
                            let body = ReplyBody::stream(waiting, working);
                            return response(200, &sse_headers(headers), body);
                        }
                        Next::Answer(answer) => return answered(answer, headers, working),
                        Next::Response(line) => {
                            return json(503, headers, line, working);
                        }
                        Next::Notification(_) | Next::Line(_) => continue,
                    }
                }
            }
            Reply::Wait {
                ticket,
                sse,
                stateless,
                headers,
            } => {
                let mut waiting = Waiting::new(self.front.clone(), ticket);
                loop {
                    match waiting.next().await {
                        // A JSON answer cannot carry it (the client did not accept SSE).
                        Next::Notification(_) if !sse => continue,
                        Next::Notification(first) => {
                            let body = ReplyBody::forwarded(waiting, first, working);
                            return response(200, &sse_headers(headers), body);
                        }
                        Next::Response(line) => {
                            let status = if stateless {
                                stateless_status(&line)
                            } else {
                                200
                            };
                            return json(status, headers, line, working);
                        }
                        Next::Answer(answer) => return answered(answer, headers, working),
                        Next::Opened | Next::Line(_) => continue,
                    }
                }
            }
        }
    }
}

/// A JSON answer.
fn json(
    status: u16,
    mut headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
    working: Option<Working>,
) -> Response<ReplyBody> {
    headers.push(("Content-Type", "application/json".into()));
    response(status, &headers, ReplyBody::whole(body, working))
}

/// The clients layer's own answer.
fn answered(
    answer: Answer,
    mut headers: Vec<(&'static str, String)>,
    working: Option<Working>,
) -> Response<ReplyBody> {
    if !answer.body.is_empty() {
        headers.push(("Content-Type", "application/json".into()));
    }
    headers.extend(answer.headers);
    response(
        answer.status,
        &headers,
        ReplyBody::whole(answer.body, working),
    )
}

/// The request's head as the MCP logic reads it; `None` when a header value is not UTF-8.
fn head(parts: &hyper::http::request::Parts, peer: &str) -> Option<Request> {
    let mut headers = Vec::with_capacity(parts.headers.len());
    for (name, value) in &parts.headers {
        let value = std::str::from_utf8(value.as_bytes()).ok()?;
        headers.push((name.as_str().to_owned(), value.trim().to_owned()));
    }
    let path = parts
        .uri
        .path_and_query()
        .map_or_else(|| parts.uri.path().to_owned(), |p| p.as_str().to_owned());
    Some(Request {
        method: parts.method.as_str().to_owned(),
        path,
        headers,
        body: Vec::new(),
        peer: peer.to_owned(),
    })
}

fn sse_headers(mut headers: Vec<(&'static str, String)>) -> Vec<(&'static str, String)> {
    headers.splice(
        0..0,
        [
            ("Content-Type", "text/event-stream".to_owned()),
            ("Cache-Control", "no-cache".to_owned()),
            ("X-Accel-Buffering", "no".to_owned()),
        ],
    );
    headers
}

fn response(
    status: u16,
    headers: &[(&'static str, String)],
    body: ReplyBody,
) -> Response<ReplyBody> {
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    for (name, value) in headers {
        let name = HeaderName::from_bytes(name.as_bytes());
        if let (Ok(name), Ok(value)) = (name, HeaderValue::from_str(value)) {
            response.headers_mut().append(name, value);
        }
    }
    response
}

/// Asks hyper to close the connection after `response`.
fn close(response: &mut Response<ReplyBody>) {
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
}

/// A refusal before the body was read whole: a JSON-RPC error, and the connection closes.
fn refusal(status: u16, message: &str) -> Response<ReplyBody> {
    let body = error_response(None, INVALID_REQUEST, message);
    let mut response = response(
        status,
        &[("Content-Type", "application/json".to_owned())],
        ReplyBody::whole(body, None),
    );
    close(&mut response);
    response
}
