//! One async tool call: the handler's future, its notification lines and the reader's
//! look-ahead, polled together by a small hand-written select.

use core::cell::Cell;
use core::convert::Infallible;
use core::future::{poll_fn, Future};
use core::pin::pin;
use core::task::Poll;

use crate::json::Limits;
use crate::park::{finish, or_park, park, Slot};
use crate::protocol::{Envelope, Message, RequestId};
use crate::transport::{self, LineReader, Lookahead, Split, WriteError};

use super::call::Prepared;
use super::context::{Link, Rate};
use super::reply::fallback;
use super::{AsyncHandler, Context, Done, ServeError, Server, ToolError};

/// How a call ended.
#[derive(Debug)]
pub(super) enum Outcome {
    /// The response line's length in the output buffer (`None`: nothing to send).
    Finished(Option<usize>),
    /// The host cancelled it: nothing more is sent for it.
    Cancelled,
}

/// What woke the serve loop while a call runs.
enum Event<T, X> {
    /// The handler returned.
    Done(T),
    /// A `#[tools]` dispatcher handed its outcome over (`Context::__hand_over`) and parked.
    Handed(Result<Done, ToolError>),
    /// The call was cancelled and the handler did not finish at its next poll.
    Cancelled,
    /// The handler has a notification line to send.
    Line,
    /// The reader read (the look-ahead once, or a whole frame).
    Read(X),
}

/// How a call's future settled.
enum Settled<E> {
    /// It completed.
    Handler(Result<Done, E>),
    /// A `#[tools]` dispatcher handed its outcome over and parked.
    Handed(Result<Done, ToolError>),
}

/// True when `line` is a `notifications/cancelled` naming request `id`.
fn cancels(line: &[u8], id: RequestId<'_>, limits: Limits) -> bool {
    let Ok(envelope) = Envelope::parse(line, limits) else {
        return false;
    };
    let Ok(Message::Notification { method, .. }) = envelope.classify() else {
        return false;
    };
    method.eq_str("notifications/cancelled")
        && envelope
            .request_id
            .and_then(RequestId::from_value)
            .is_some_and(|r| r.raw() == id.raw())
}

/// What [`Server::run_into`] gives.
pub(super) type Ran<RE, WE> = Result<Outcome, ServeError<RE, WE>>;

/// What [`Server::next_frame_idle_into`] gives: the next frame with the reader's look-ahead
/// behind it, `None` at end of stream, or why serving stopped.
pub(super) type Next<'r, R, WE> =
    Split<'r, R, ServeError<<R as embedded_io::ErrorType>::Error, WE>>;

/// Writes the mailbox's line and empties the mailbox. Never returns: the outcome goes into
/// `sent`, then the future stays pending (see `crate::park`).
// The tool, the mailbox's only other user, is not polled while its line is written (and uses
// `try_borrow` only), so holding the borrow across the write cannot conflict.
#[allow(clippy::await_holding_refcell_ref)]
async fn send_line_into<W: embedded_io_async::Write>(
    link: &Link,
    writer: &mut W,
    sent: &Slot<Result<(), WriteError<W::Error>>>,
) -> Infallible {
    let written = match link.line() {
        Some(line) => transport::write_in_place!(writer, &line),
        None => Ok(()),
    };
    if written.is_ok() {
        link.clear();
    }
    sent.set(Some(written));
    park!()
}

impl<H: AsyncHandler, const TOOLS: usize> Server<'_, H, TOOLS> {
    /// Runs a prepared call to its end: notifications written as the tool posts them, lines
    /// behind the request read (and looked at for a cancel) meanwhile, then the held progress
    /// line and the settled response written into `out`. Never returns: the outcome goes into
    /// `ran`, then the future stays pending (see `crate::park`).
    pub(super) async fn run_into<R: embedded_io_async::Read, W: embedded_io_async::Write>(
        &mut self,
        prepared: &Prepared<'_>,
        ahead: &mut Lookahead<'_, R>,
        writer: &mut W,
        out: &mut [u8],
        ran: &Cell<Option<Ran<R::Error, W::Error>>>,
    ) -> Infallible {
        let limits = Limits {
            max_depth: self.config.max_depth,
        };
        let link = Link::new();
        let rate = Rate {
            interval_ms: self.config.progress_interval_ms,
            clock: self.config.clock,
        };
        let mut cx = Context::new(&link, prepared.progress_token, prepared.log_level, rate);
        let Some(output) = prepared.output(out) else {
            ran.set(Some(Ok(Outcome::Finished(fallback(
                out,
                Some(prepared.id),
            )))));
            park!()
        };
        let done = {
            let mut call = pin!(self.handler.call(&prepared.call, output, &mut cx));
            'call: loop {
                // Lines that arrived behind the request: a cancel of this call ends it.
                while !link.is_cancelled() {
                    let Some(line) = ahead.peek_line() else {
                        break;
                    };
                    if cancels(line, prepared.id, limits) {
                        link.cancel();
                    }
                }
                let event = {
                    let read = Cell::new(None);
                    let mut fill = pin!(ahead.fill_into(&read));
                    loop {
                        let event = poll_fn(|task| {
                            if let Poll::Ready(done) = call.as_mut().poll(task) {
                                return Poll::Ready(Event::Done(done));
                            }
                            if let Some(done) = link.take_handed() {
                                return Poll::Ready(Event::Handed(done));
                            }
                            if link.is_cancelled() {
                                return Poll::Ready(Event::Cancelled);
                            }
                            if link.has_line() {
                                return Poll::Ready(Event::Line);
                            }
                            if let Poll::Ready(never) = fill.as_mut().poll(task) {
                                match never {}
                            }
                            read.take()
                                .map_or(Poll::Pending, |r| Poll::Ready(Event::Read(r)))
                        })
                        .await;
                        if !matches!(event, Event::Line) {
                            break event;
                        }
                        or_park!(finish!(sent => send_line_into(&link, writer, &sent)), ran);
                    }
                };
                match event {
                    Event::Done(done) => break 'call Some(Settled::Handler(done)),
                    Event::Handed(done) => break 'call Some(Settled::Handed(done)),
                    Event::Cancelled => break 'call None,
                    Event::Read(Err(e)) => {
                        ran.set(Some(Err(ServeError::Read(e))));
                        park!()
                    }
                    Event::Read(Ok(_)) | Event::Line => {}
                }
            }
        };
        let Some(done) = done.filter(|_| !link.is_cancelled()) else {
            ran.set(Some(Ok(Outcome::Cancelled)));
            park!()
        };
        // A progress report held back by the rate limit goes out just before the response.
        if link.has_held() {
            or_park!(finish!(sent => send_line_into(&link, writer, &sent)), ran);
        }
        let n = match done {
            Settled::Handler(done) => self.finish(prepared, done, out),
            Settled::Handed(done) => self.finish(prepared, done, out),
        };
        ran.set(Some(Ok(Outcome::Finished(n))));
        park!()
    }

    /// The next frame (with the reader's look-ahead behind it), while the handler's
    /// [`AsyncHandler::idle`] runs and its log lines are written. Never returns: the outcome
    /// goes into `next`, then the future stays pending (see `crate::park`).
    pub(super) async fn next_frame_idle_into<
        'r,
        R: embedded_io_async::Read,
        W: embedded_io_async::Write,
        const N: usize,
    >(
        &mut self,
        reader: &'r mut LineReader<R, N>,
        writer: &mut W,
        next: &Slot<Next<'r, R, W::Error>>,
    ) -> Infallible {
        let link = Link::new();
        // Outside a call, only a legacy stream after `initialize` takes log messages.
        let level = self.session.and(self.log_level);
        let rate = Rate {
            interval_ms: 0,
            clock: None,
        };
        let mut cx = Context::new(&link, None, level, rate);
        let arrived = Cell::new(false);
        let mut read = pin!(reader.split_frame_into(next, ServeError::Read, &arrived));
        loop {
            let mut idle = pin!(self.handler.idle(&mut cx));
            loop {
                let event = poll_fn(|task| {
                    if let Poll::Ready(never) = read.as_mut().poll(task) {
                        match never {}
                    }
                    if arrived.get() {
                        return Poll::Ready(Event::Read(()));
                    }
                    if link.has_line() {
                        return Poll::Ready(Event::Line);
                    }
                    idle.as_mut().poll(task).map(Event::Done)
                })
                .await;
                match event {
                    // `next` holds the frame, the end of stream or the read error.
                    Event::Read(()) => park!(),
                    Event::Line => {
                        or_park!(finish!(sent => send_line_into(&link, writer, &sent)), next)
                    }
                    Event::Done(()) | Event::Handed(_) | Event::Cancelled => break,
                }
            }
        }
    }
}
