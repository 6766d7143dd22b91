//! One exchange of the front with the clients layer, and the answer made of it. What the front
//! decided to answer to one HTTP request ([`Reply`]) is a whole answer now, or a request or stream
//! handed to the layer under a ticket ([`LayerHandle`], which holds no state of any client: only
//! the next ticket), whose deliveries make the answer ([`Waiting`]): answered as JSON, as the SSE
//! stream of a forwarded request (its notifications, then its response), or as a stream (a
//! session's GET stream, a listen stream, with a keep-alive comment after a silence). An
//! answer's body ([`ReplyBody`]) holds what must live until it is written (the connection's
//! [`Working`] mark); dropped before its end (the client went away), the layer is told.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use embedded_mcp::json::{Limits, Value as RawValue, MAX_DEPTH_LIMIT};
use hyper::body::{Body, Frame};
use hyper::header::{HeaderName, HeaderValue, CONNECTION, CONTENT_TYPE};
use hyper::{Response, StatusCode};
use tokio::sync::mpsc::{channel, Receiver, UnboundedSender};
use tokio::time::{Instant, Sleep};

use super::clock::now;
use super::connection_limit::Working;
use super::sse;
use crate::bridge::clients::deadlines::KeepAlive;
use crate::bridge::clients::{Answer, Delivery, Event, Owner, Ticket};
use crate::bridge::message::{
    error_response, Message, CONNECTION_CLOSED, HEADER_MISMATCH, INVALID_PARAMS, INVALID_REQUEST,
    METHOD_NOT_FOUND, MISSING_CLIENT_CAPABILITY, PARSE_ERROR, UNSUPPORTED_PROTOCOL_VERSION,
};
use crate::bridge::shell::{Sink, DELIVERY_QUEUE};

/// A stream silent this long gets a keep-alive comment.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// An event of the clients layer, as the front sends it.
pub(super) type ClientEvent = Event<Sink>;

/// The engine stopped: nothing can be handed to the layer any more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stopped;

/// The front's handle on the clients layer ([`crate::bridge::clients`]): every request of every
/// HTTP client becomes an event for the one task that owns the layer (with the routing loop),
/// and its deliveries arrive on a channel of its own.
pub(super) struct LayerHandle {
    events: UnboundedSender<ClientEvent>,
    next: AtomicU64,
}

impl LayerHandle {
    /// A handle sending to the layer's task through `events`.
    pub(super) fn new(events: UnboundedSender<ClientEvent>) -> Self {
        Self {
            events,
            next: AtomicU64::new(1),
        }
    }

    /// A new ticket (`client_id`: the client's id, exact JSON text, `null` if none), awaited,
    /// and where the layer delivers to it.
    pub(super) fn ticket(&self, client_id: &str) -> (Waiting, Sink) {
        let (tx, lines) = channel(DELIVERY_QUEUE);
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let waiting = Waiting {
            id,
            client_id: client_id.to_owned(),
            lines,
            events: self.events.clone(),
            ended: false,
        };
        (waiting, Sink { ticket: id, tx })
    }

    /// Hands `event` to the layer.
    pub(super) fn send(&self, event: ClientEvent) -> Result<(), Stopped> {
        self.events.send(event).map_err(|_| Stopped)
    }

    /// Forwards `request` (a JSON-RPC request line, exactly as the client wrote it) of `owner`;
    /// `tool` is the name of a `tools/call`'s tool (a hub routes it by its prefix).
    pub(super) fn forward(
        &self,
        request: Vec<u8>,
        msg: Option<Message>,
        owner: Owner,
        tool: Option<String>,
    ) -> Result<Waiting, Stopped> {
        let (waiting, route) = self.ticket(&owner.id_raw);
        self.send(Event::Forward {
            ticket: waiting.id,
            line: request,
            msg,
            owner,
            tool,
            route,
        })?;
        Ok(waiting)
    }

    /// Sends a notification line as it is (nothing comes back for it).
    pub(super) fn notify(&self, line: Vec<u8>) -> Result<(), Stopped> {
        self.send(Event::Notify(line))
    }
}

/// A ticket handed to the clients layer whose deliveries are awaited. Dropped before its end
/// (the client went away, or gave up waiting), the layer is told: a 2026-07-28 request is
/// cancelled, a legacy one forgotten, a stream closed.
pub(super) struct Waiting {
    pub(super) id: Ticket,
    /// The client's id, exact JSON text (for the front's own error answers; `null` if none).
    client_id: String,
    lines: Receiver<Delivery>,
    /// The layer's inbox, to tell it the client went away.
    events: UnboundedSender<ClientEvent>,
    ended: bool,
}

/// What the layer said next about an awaited ticket.
pub(super) enum Next {
    /// A notification tied to the request.
    Notification(Vec<u8>),
    /// Its response, or the front's error response when the router stopped.
    Response(Vec<u8>),
    /// The layer's own HTTP answer.
    Answer(Answer),
    /// The stream is open.
    Opened,
    /// A line of the stream.
    Line(Vec<u8>),
}

impl Waiting {
    /// Marks the end of the ticket when `delivery` ends it (or the layer is gone).
    fn seen(&mut self, delivery: &Option<Delivery>) {
        if matches!(
            delivery,
            None | Some(Delivery::Response(_) | Delivery::Answer(_))
        ) {
            self.ended = true;
        }
    }

    /// The next delivery as the layer made it; `None` when the engine stopped.
    pub(super) async fn recv(&mut self) -> Option<Delivery> {
        let delivery = self.lines.recv().await;
        self.seen(&delivery);
        delivery
    }

    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Next> {
        let Poll::Ready(delivery) = self.lines.poll_recv(cx) else {
            return Poll::Pending;
        };
        self.seen(&delivery);
        Poll::Ready(match delivery {
            Some(Delivery::Notification(line)) => Next::Notification(line),
            Some(Delivery::Line(line)) => Next::Line(line),
            Some(Delivery::Opened) => Next::Opened,
            Some(Delivery::Response(line)) => Next::Response(line),
            Some(Delivery::Answer(answer)) => Next::Answer(answer),
            None => Next::Response(error_response(
                Some(&self.client_id),
                CONNECTION_CLOSED,
                "the bridge stopped",
            )),
        })
    }

    /// The next delivery.
    async fn next(&mut self) -> Next {
        std::future::poll_fn(|cx| self.poll_next(cx)).await
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if !self.ended {
            let _ = self.events.send(Event::Dropped { ticket: self.id });
        }
    }
}

/// The front's answer to one HTTP request.
pub(super) enum Reply {
    /// Answer now.
    Answer {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: Vec<u8>,
    },
    /// Wait for the clients layer's deliveries: an answer of its own, or the router's lines.
    Wait {
        ticket: Waiting,
        /// The client accepts `text/event-stream` (notifications can be sent).
        sse: bool,
        /// A 2026-07-28 request: error codes map to HTTP statuses.
        stateless: bool,
        headers: Vec<(&'static str, String)>,
    },
    /// A stream (a session's GET stream, a 2026-07-28 listen stream) once the layer opened it,
    /// or the layer's refusal.
    Stream {
        ticket: Waiting,
        headers: Vec<(&'static str, String)>,
    },
}

impl Reply {
    /// An answer without a body.
    pub(super) fn empty(status: u16) -> Self {
        Self::Answer {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// A JSON body.
    pub(super) fn json(status: u16, body: Vec<u8>) -> Self {
        Self::Answer {
            status,
            headers: vec![("Content-Type", "application/json".into())],
            body,
        }
    }

    /// A JSON-RPC error response (`id`: exact id text, `None` for `null`).
    pub(super) fn error(status: u16, id: Option<&str>, code: i64, message: &str) -> Self {
        Self::json(status, error_response(id, code, message))
    }

    /// The same reply with one more header.
    pub(super) fn with_header(mut self, name: &'static str, value: String) -> Self {
        match &mut self {
            Self::Answer { headers, .. }
            | Self::Wait { headers, .. }
            | Self::Stream { headers, .. } => {
                headers.push((name, value));
            }
        }
        self
    }
}

/// The HTTP status of a 2026-07-28 response answered as JSON, from its error code.
pub(super) fn stateless_status(response: &[u8]) -> u16 {
    // Read in place: a success (the usual answer) costs one scan and no tree.
    let limits = Limits {
        max_depth: MAX_DEPTH_LIMIT,
    };
    let code = RawValue::parse_with(response, limits)
        .ok()
        .and_then(|v| v.get("error")?.get("code")?.raw().parse::<i64>().ok());
    match code {
        Some(METHOD_NOT_FOUND) => 404,
        Some(
            PARSE_ERROR
            | INVALID_REQUEST
            | INVALID_PARAMS
            | HEADER_MISMATCH
            | MISSING_CLIENT_CAPABILITY
            | UNSUPPORTED_PROTOCOL_VERSION,
        ) => 400,
        _ => 200,
    }
}

/// Turns `reply` into a response, waiting for the layer's first delivery to know whether
/// it is answered as JSON or as an SSE stream.
pub(super) async fn respond(reply: Reply, working: Option<Working>) -> Response<ReplyBody> {
    match reply {
        Reply::Answer {
            status,
            headers,
            body,
        } => response(status, &headers, ReplyBody::whole(body, working)),
        Reply::Stream {
            ticket: mut waiting,
            headers,
        } => loop {
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
        },
        Reply::Wait {
            ticket: mut waiting,
            sse,
            stateless,
            headers,
        } => {
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

/// A JSON answer (its `Content-Type` after `headers`).
fn json(
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
    working: Option<Working>,
) -> Response<ReplyBody> {
    let mut response = response(status, &headers, ReplyBody::whole(body, working));
    response
        .headers_mut()
        .append(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
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
pub(super) fn close(response: &mut Response<ReplyBody>) {
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
}

/// A refusal before the body was read whole: a JSON-RPC error, and the connection closes.
pub(super) fn refusal(status: u16, message: &str) -> Response<ReplyBody> {
    let body = error_response(None, INVALID_REQUEST, message);
    let mut response = response(
        status,
        &[("Content-Type", "application/json".to_owned())],
        ReplyBody::whole(body, None),
    );
    close(&mut response);
    response
}

/// An answer's body.
pub(super) struct ReplyBody {
    source: Source,
    /// Held until the body is written (or dropped).
    _working: Option<Working>,
}

enum Source {
    Whole(Option<Bytes>),
    Forwarded {
        waiting: Box<Waiting>,
        /// The notification that opened the stream, not sent yet.
        first: Option<Vec<u8>>,
        done: bool,
    },
    Stream {
        waiting: Box<Waiting>,
        clock: KeepAlive,
        keep_alive: Pin<Box<Sleep>>,
    },
}

impl ReplyBody {
    /// A whole body.
    pub(super) fn whole(body: Vec<u8>, working: Option<Working>) -> Self {
        Self {
            source: Source::Whole((!body.is_empty()).then(|| Bytes::from(body))),
            _working: working,
        }
    }

    /// The SSE stream of a forwarded request, opened by its notification `first`.
    pub(super) fn forwarded(waiting: Waiting, first: Vec<u8>, working: Option<Working>) -> Self {
        Self {
            source: Source::Forwarded {
                waiting: Box::new(waiting),
                first: Some(first),
                done: false,
            },
            _working: working,
        }
    }

    /// An open stream's lines, until the layer drops its route.
    pub(super) fn stream(waiting: Waiting, working: Option<Working>) -> Self {
        Self {
            source: Source::Stream {
                waiting: Box::new(waiting),
                clock: KeepAlive::new(KEEP_ALIVE, now()),
                keep_alive: Box::pin(tokio::time::sleep(KEEP_ALIVE)),
            },
            _working: working,
        }
    }
}

fn frame(bytes: Vec<u8>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
    Poll::Ready(Some(Ok(Frame::data(Bytes::from(bytes)))))
}

impl Body for ReplyBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        match &mut self.get_mut().source {
            Source::Whole(body) => Poll::Ready(body.take().map(|b| Ok(Frame::data(b)))),
            Source::Forwarded {
                waiting,
                first,
                done,
            } => {
                if let Some(first) = first.take() {
                    return frame(sse::event(&first));
                }
                if *done {
                    return Poll::Ready(None);
                }
                loop {
                    return match waiting.poll_next(cx) {
                        Poll::Pending => Poll::Pending,
                        Poll::Ready(Next::Notification(line) | Next::Line(line)) => {
                            frame(sse::event(&line))
                        }
                        Poll::Ready(Next::Opened) => continue,
                        Poll::Ready(Next::Response(line)) => {
                            *done = true;
                            frame(sse::event(&line))
                        }
                        Poll::Ready(Next::Answer(answer)) => {
                            *done = true;
                            frame(sse::event(&answer.body))
                        }
                    };
                }
            }
            Source::Stream {
                waiting,
                clock,
                keep_alive,
            } => loop {
                return match waiting.poll_next(cx) {
                    Poll::Ready(Next::Line(line) | Next::Notification(line)) => {
                        clock.sent(now());
                        frame(sse::event(&line))
                    }
                    Poll::Ready(Next::Opened) => continue,
                    // The layer dropped the stream (the session ended, another GET replaced
                    // it, the bridge stops).
                    Poll::Ready(Next::Response(_) | Next::Answer(_)) => Poll::Ready(None),
                    Poll::Pending => {
                        let now = now();
                        if !clock.is_due(now) {
                            let due = Instant::from_std(clock.due());
                            if keep_alive.deadline() != due {
                                keep_alive.as_mut().reset(due);
                            }
                            if keep_alive.as_mut().poll(cx).is_pending() {
                                return Poll::Pending;
                            }
                        }
                        clock.sent(now.max(clock.due()));
                        frame(sse::comment("keep-alive"))
                    }
                };
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(&self.source, Source::Whole(None))
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        match &self.source {
            Source::Whole(body) => {
                hyper::body::SizeHint::with_exact(body.as_ref().map_or(0, |b| b.len() as u64))
            }
            _ => hyper::body::SizeHint::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_of_stateless_errors() {
        assert_eq!(
            stateless_status(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            200
        );
        assert_eq!(
            stateless_status(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":""}}"#),
            404
        );
        assert_eq!(
            stateless_status(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":""}}"#),
            400
        );
        assert_eq!(
            stateless_status(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":""}}"#),
            200
        );
    }
}
