//! The body of an answer as hyper sends it: a whole body, the SSE stream of a forwarded request
//! (its notifications, then its response), or a session's GET stream (with a keep-alive comment
//! after a silence). Each holds what must live until the answer is written: the connection's
//! [`Working`] mark and the session's [`InUse`] mark.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body, Frame};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::{Instant, Sleep};

use super::clock::now;
use super::connection_limit::Working;
use super::front_state::FrontState;
use super::multiplex::{Delivery, Ticket};
use super::session_table::InUse;
use super::sse;
use crate::bridge::clients::deadlines::{KeepAlive, ReplyWait, Waited};
use crate::bridge::message::{error_response, CONNECTION_CLOSED, REQUEST_TIMEOUT};

/// A GET stream silent this long gets a keep-alive comment.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// A forwarded request whose answer is awaited. Dropped unanswered (the client went away), a
/// 2026-07-28 request is cancelled; a legacy one goes on and its answer is dropped, as each
/// revision says.
pub(super) struct Waiting {
    front: Arc<FrontState>,
    ticket: Ticket,
    stateless: bool,
    /// The session the request belongs to, if any: busy while this lives.
    _session: Option<InUse>,
    answered: bool,
    /// How long it waits ([`crate::bridge::clients::deadlines`]).
    wait: ReplyWait,
}

/// What the router said next about a waited request.
pub(super) enum Next {
    /// A notification tied to it.
    Notification(Vec<u8>),
    /// Its response, or the front's error response when the router went silent or stopped.
    Response(Vec<u8>),
}

impl Waiting {
    /// Waits for `ticket`'s lines.
    pub(super) fn new(
        front: Arc<FrontState>,
        ticket: Ticket,
        stateless: bool,
        session: Option<InUse>,
    ) -> Self {
        let wait = ReplyWait::new(front.reply_idle, now());
        Self {
            front,
            ticket,
            stateless,
            _session: session,
            answered: false,
            wait,
        }
    }

    /// The next line, or `Pending`; `idle` sleeps until the instant the request's
    /// [`ReplyWait`] decides to look again.
    fn poll_next(&mut self, cx: &mut Context<'_>, idle: &mut Pin<Box<Sleep>>) -> Poll<Next> {
        match self.ticket.lines.poll_recv(cx) {
            Poll::Ready(Some(Delivery::Notification(line))) => {
                self.wait.on_line(now());
                Poll::Ready(Next::Notification(line))
            }
            Poll::Ready(Some(Delivery::Response(line))) => {
                self.answered = true;
                Poll::Ready(Next::Response(line))
            }
            Poll::Ready(None) => {
                self.answered = true;
                self.front.log.warn(format_args!(
                    "request {} got no answer: the router stopped",
                    self.ticket.id
                ));
                Poll::Ready(Next::Response(error_response(
                    Some(&self.ticket.client_id),
                    CONNECTION_CLOSED,
                    "the bridge stopped",
                )))
            }
            Poll::Pending => {
                // Past an instant the sleep said has come, whatever the clock's granularity.
                let mut reached = None;
                loop {
                    let now = now();
                    let now = reached.map_or(now, |at: std::time::Instant| now.max(at));
                    let person = self.front.mux.person_deadline(self.ticket.id);
                    match self.wait.decide(now, person) {
                        Waited::Until(at) => {
                            let at = Instant::from_std(at);
                            if idle.deadline() != at {
                                idle.as_mut().reset(at);
                            }
                            if idle.as_mut().poll(cx).is_pending() {
                                return Poll::Pending;
                            }
                            reached = Some(at.into_std());
                        }
                        Waited::PersonLate => {
                            // The shim answers the call on `lines`.
                            self.front.mux.person_late(self.ticket.id, now);
                            self.wait.on_line(now);
                            cx.waker().wake_by_ref();
                            return Poll::Pending;
                        }
                        Waited::GiveUp => {
                            self.answered = true;
                            self.front.mux.forget(self.ticket.id);
                            self.front.log.warn(format_args!(
                                "request {} got no answer from the router",
                                self.ticket.id
                            ));
                            return Poll::Ready(Next::Response(error_response(
                                Some(&self.ticket.client_id),
                                REQUEST_TIMEOUT,
                                "Request timed out: the device did not answer",
                            )));
                        }
                    }
                }
            }
        }
    }

    /// The next line (see [`Self::poll_next`]).
    pub(super) async fn next(&mut self, idle: &mut Pin<Box<Sleep>>) -> Next {
        std::future::poll_fn(|cx| self.poll_next(cx, idle)).await
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if !self.answered && self.stateless {
            self.front
                .mux
                .cancel(self.ticket.id, "the client closed the stream");
        }
    }
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
        idle: Pin<Box<Sleep>>,
        done: bool,
    },
    Listen {
        lines: UnboundedReceiver<Vec<u8>>,
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
    pub(super) fn forwarded(
        waiting: Waiting,
        first: Vec<u8>,
        idle: Pin<Box<Sleep>>,
        working: Option<Working>,
    ) -> Self {
        Self {
            source: Source::Forwarded {
                waiting: Box::new(waiting),
                first: Some(first),
                idle,
                done: false,
            },
            _working: working,
        }
    }

    /// A session's GET stream of `lines`, until the sender is dropped.
    pub(super) fn listen(lines: UnboundedReceiver<Vec<u8>>, working: Option<Working>) -> Self {
        Self {
            source: Source::Listen {
                lines,
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
                idle,
                done,
            } => {
                if let Some(first) = first.take() {
                    return frame(sse::event(&first));
                }
                if *done {
                    return Poll::Ready(None);
                }
                match waiting.poll_next(cx, idle) {
                    Poll::Pending => Poll::Pending,
                    Poll::Ready(Next::Notification(line)) => frame(sse::event(&line)),
                    Poll::Ready(Next::Response(line)) => {
                        *done = true;
                        frame(sse::event(&line))
                    }
                }
            }
            Source::Listen {
                lines,
                clock,
                keep_alive,
            } => match lines.poll_recv(cx) {
                Poll::Ready(Some(line)) => {
                    clock.sent(now());
                    frame(sse::event(&line))
                }
                Poll::Ready(None) => Poll::Ready(None),
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
    use crate::bridge::http::doors::Doors;
    use crate::bridge::http::handshake::Handshake;
    use crate::bridge::http::multiplex::{Multiplex, Owner};
    use crate::bridge::http::param_headers::ToolHeaders;
    use crate::bridge::http::session_table::Sessions;
    use crate::log::Logger;
    use serde_json::json;

    /// A front whose router is this test: lines sent to it are dropped.
    fn front(reply_idle: Duration) -> Arc<FrontState> {
        let (to_router, router) = tokio::sync::mpsc::unbounded_channel();
        std::mem::forget(router);
        Arc::new(FrontState {
            mux: Multiplex::new(
                to_router,
                Logger::to_writer(0, "t", Box::new(std::io::sink())),
            ),
            sessions: Sessions::new(1),
            handshake: Handshake::new(),
            tool_headers: ToolHeaders::new(),
            doors: Doors::new("127.0.0.1:1".parse().unwrap(), &[], None),
            reply_idle,
            log: Logger::to_writer(0, "t", Box::new(std::io::sink())),
        })
    }

    fn call(front: &Arc<FrontState>) -> Waiting {
        let owner = Owner {
            session: None,
            id_raw: "\"c\"".into(),
            id_key: "\"c\"".into(),
            log_level: None,
        };
        let request = json!({"jsonrpc":"2.0","id":"c","method":"tools/call",
            "params":{"name":"slow","_meta":{"progressToken":"p"}}});
        let ticket = front
            .mux
            .forward(request.to_string().as_bytes(), owner)
            .unwrap();
        Waiting::new(front.clone(), ticket, true, None)
    }

    /// A tool that reports progress every 20 s for 10 minutes finishes: the front's wait restarts
    /// with each line and never cuts a call the router keeps alive (simulated time).
    #[tokio::test(start_paused = true)]
    async fn progress_keeps_a_long_call_waiting_past_the_idle_bound() {
        let front = front(Duration::from_secs(25));
        let mut waiting = call(&front);
        let id = waiting.ticket.id;
        let device = front.clone();
        tokio::spawn(async move {
            for n in 0..30 {
                tokio::time::sleep(Duration::from_secs(20)).await;
                let line = format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{id},"progress":{n}}}}}"#
                );
                device.mux.on_router_line(line.into_bytes());
            }
            tokio::time::sleep(Duration::from_secs(20)).await;
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[]}}}}"#);
            device.mux.on_router_line(line.into_bytes());
        });
        let start = Instant::now();
        let mut idle = Box::pin(tokio::time::sleep(front.reply_idle));
        let mut progress = 0;
        let response = loop {
            match waiting.next(&mut idle).await {
                Next::Notification(line) => {
                    assert!(line.starts_with(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p""#));
                    progress += 1;
                }
                Next::Response(line) => break line,
            }
        };
        assert_eq!(progress, 30);
        assert_eq!(
            response,
            br#"{"jsonrpc":"2.0","id":"c","result":{"content":[]}}"#
        );
        assert_eq!(start.elapsed(), Duration::from_secs(620));
    }

    /// A person asked through the input shim who never answers: the call's wait holds past the
    /// router's silence bound until the person's deadline, and then, not a moment later, the
    /// shim answers the call with a tool error (simulated time).
    #[tokio::test(start_paused = true)]
    async fn a_person_who_never_answers_gets_the_call_answered_at_the_input_timeout() {
        let (to_router, mut router) = tokio::sync::mpsc::unbounded_channel();
        let log = || Logger::to_writer(0, "t", Box::new(std::io::sink()));
        let front = Arc::new(FrontState {
            mux: Multiplex::new(to_router, log()).with_input_timeout(Duration::from_secs(120)),
            sessions: Sessions::new(1),
            handshake: Handshake::new(),
            tool_headers: ToolHeaders::new(),
            doors: Doors::new("127.0.0.1:1".parse().unwrap(), &[], None),
            reply_idle: Duration::from_secs(25),
            log: log(),
        });
        let opened = front
            .sessions
            .open(
                embedded_mcp::protocol::Version::V2025_11_25,
                json!({"elicitation": {}}),
                false,
                now(),
            )
            .unwrap();
        let session = front.sessions.get(&opened.id, now()).unwrap();
        let request = br#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"set_relay","arguments":{}}}"#;
        let value: serde_json::Value = serde_json::from_slice(request).unwrap();
        let id = crate::bridge::message::Id {
            raw: "\"c\"".into(),
            key: "\"c\"".into(),
        };
        let owner = Owner {
            session: Some(opened.id.clone()),
            id_raw: id.raw.clone(),
            id_key: id.key.clone(),
            log_level: Some(session.log_level.clone()),
        };
        let ticket = front
            .mux
            .forward_shimmed(&session, &opened.id, &value, request, &id, owner)
            .expect("the shim takes it")
            .unwrap();
        assert!(router.try_recv().is_ok(), "the first round");
        front.mux.on_router_line(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"approval":{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object"}}}},"requestState":"s"}}"#.to_vec());
        let mut waiting = Waiting::new(front.clone(), ticket, false, None);
        let start = Instant::now();
        let mut idle = Box::pin(tokio::time::sleep(front.reply_idle));
        let Next::Notification(ask) = waiting.next(&mut idle).await else {
            panic!("the question first");
        };
        assert!(ask.starts_with(br#"{"id":"embedded-mcp-bridge-input-1""#));
        // At the deadline the question is withdrawn, then the call is answered.
        let Next::Notification(withdrawn) = waiting.next(&mut idle).await else {
            panic!("the question withdrawn");
        };
        assert!(
            withdrawn.starts_with(br#"{"jsonrpc":"2.0","method":"notifications/cancelled""#),
            "{}",
            String::from_utf8_lossy(&withdrawn)
        );
        assert_eq!(start.elapsed(), Duration::from_secs(120));
        let Next::Response(line) = waiting.next(&mut idle).await else {
            panic!("then the answer");
        };
        assert_eq!(start.elapsed(), Duration::from_secs(120));
        let answer: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(answer["id"], "c");
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        assert_eq!(front.mux.in_flight(), 0);
    }

    /// A router silent past the idle bound: the client gets -32001 and the request is forgotten.
    #[tokio::test(start_paused = true)]
    async fn a_silent_router_gets_a_timeout_answer() {
        let front = front(Duration::from_secs(25));
        let mut waiting = call(&front);
        let start = Instant::now();
        let mut idle = Box::pin(tokio::time::sleep(front.reply_idle));
        let Next::Response(line) = waiting.next(&mut idle).await else {
            panic!("a notification from nowhere");
        };
        assert_eq!(start.elapsed(), Duration::from_secs(25));
        assert_eq!(
            line,
            br#"{"jsonrpc":"2.0","id":"c","error":{"code":-32001,"message":"Request timed out: the device did not answer"}}"#
        );
        assert_eq!(front.mux.in_flight(), 0);
    }
}
