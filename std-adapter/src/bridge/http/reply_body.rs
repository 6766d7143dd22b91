//! The body of an answer as hyper sends it: a whole body, the SSE stream of a forwarded request
//! (its notifications, then its response), or a stream (a session's GET stream, a listen
//! stream, with a keep-alive comment after a silence). Each holds what must live until the
//! answer is written: the connection's [`Working`] mark; and tells the clients layer when its
//! client went away before the end.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body, Frame};
use tokio::time::{Instant, Sleep};

use super::clock::now;
use super::connection_limit::Working;
use super::front_state::FrontState;
use super::multiplex::Awaited;
use super::sse;
use crate::bridge::clients::deadlines::KeepAlive;
use crate::bridge::clients::{Answer, Delivery};
use crate::bridge::message::{error_response, CONNECTION_CLOSED};

/// A stream silent this long gets a keep-alive comment.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// An exchange handed to the clients layer whose deliveries are awaited. Dropped before its
/// end (the client went away), the layer is told: a 2026-07-28 request is cancelled, a legacy
/// one forgotten, a stream closed.
pub(super) struct Waiting {
    front: Arc<FrontState>,
    ticket: Awaited,
    ended: bool,
}

/// What the layer said next about an awaited exchange.
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
    /// Waits for `ticket`'s deliveries.
    pub(super) fn new(front: Arc<FrontState>, ticket: Awaited) -> Self {
        Self {
            front,
            ticket,
            ended: false,
        }
    }

    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Next> {
        let next = match self.ticket.lines.poll_recv(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Some(Delivery::Notification(line))) => Next::Notification(line),
            Poll::Ready(Some(Delivery::Line(line))) => Next::Line(line),
            Poll::Ready(Some(Delivery::Opened)) => Next::Opened,
            Poll::Ready(Some(Delivery::Response(line))) => {
                self.ended = true;
                Next::Response(line)
            }
            Poll::Ready(Some(Delivery::Answer(answer))) => {
                self.ended = true;
                Next::Answer(answer)
            }
            Poll::Ready(None) => {
                self.ended = true;
                Next::Response(error_response(
                    Some(&self.ticket.client_id),
                    CONNECTION_CLOSED,
                    "the bridge stopped",
                ))
            }
        };
        Poll::Ready(next)
    }

    /// The next delivery.
    pub(super) async fn next(&mut self) -> Next {
        std::future::poll_fn(|cx| self.poll_next(cx)).await
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if !self.ended {
            self.front.mux.dropped(self.ticket.id);
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
