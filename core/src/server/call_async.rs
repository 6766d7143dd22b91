//! One async tool call: the handler's future, its notification lines and the reader's
//! look-ahead, polled together by a small hand-written select.

use core::future::{poll_fn, Future};
use core::pin::pin;
use core::task::Poll;

use crate::json::Limits;
use crate::protocol::{Envelope, Message, RequestId};
use crate::transport::{self, Frame, LineReader, Lookahead, WriteError};

use super::call::Prepared;
use super::context::{Link, Rate};
use super::reply::fallback;
use super::{AsyncHandler, Context, ServeError, Server};

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
    /// The call was cancelled and the handler did not finish at its next poll.
    Cancelled,
    /// The handler has a notification line to send.
    Line,
    /// The reader read (the look-ahead once, or a whole frame).
    Read(X),
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

/// Writes the mailbox's line and empties the mailbox.
// The tool, the mailbox's only other user, is not polled while its line is written (and uses
// `try_borrow` only), so holding the borrow across the write cannot conflict.
#[allow(clippy::await_holding_refcell_ref)]
async fn send_line<W: embedded_io_async::Write>(
    link: &Link,
    writer: &mut W,
) -> Result<(), WriteError<W::Error>> {
    if let Some(line) = link.line() {
        transport::write_message_async(writer, &line).await?;
    }
    link.clear();
    Ok(())
}

impl<H: AsyncHandler, const TOOLS: usize> Server<'_, H, TOOLS> {
    /// Runs a prepared call to its end: notifications written as the tool posts them, lines
    /// behind the request read (and looked at for a cancel) meanwhile, then the held progress
    /// line and the settled response written into `out`.
    pub(super) async fn run_async<R: embedded_io_async::Read, W: embedded_io_async::Write>(
        &mut self,
        prepared: &Prepared<'_>,
        ahead: &mut Lookahead<'_, R>,
        writer: &mut W,
        out: &mut [u8],
    ) -> Result<Outcome, ServeError<R::Error, W::Error>> {
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
            return Ok(Outcome::Finished(fallback(out, Some(prepared.id))));
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
                    let mut fill = pin!(ahead.fill());
                    loop {
                        let event = poll_fn(|task| {
                            if let Poll::Ready(done) = call.as_mut().poll(task) {
                                return Poll::Ready(Event::Done(done));
                            }
                            if link.is_cancelled() {
                                return Poll::Ready(Event::Cancelled);
                            }
                            if link.has_line() {
                                return Poll::Ready(Event::Line);
                            }
                            fill.as_mut().poll(task).map(Event::Read)
                        })
                        .await;
                        if !matches!(event, Event::Line) {
                            break event;
                        }
                        send_line(&link, writer).await?;
                    }
                };
                match event {
                    Event::Done(done) => break 'call Some(done),
                    Event::Cancelled => break 'call None,
                    Event::Read(Err(e)) => return Err(ServeError::Read(e)),
                    Event::Read(Ok(_)) | Event::Line => {}
                }
            }
        };
        let Some(done) = done.filter(|_| !link.is_cancelled()) else {
            return Ok(Outcome::Cancelled);
        };
        // A progress report held back by the rate limit goes out just before the response.
        if link.has_held() {
            send_line(&link, writer).await?;
        }
        Ok(Outcome::Finished(self.finish(prepared, done, out)))
    }

    /// The next frame (with the reader's look-ahead behind it), while the handler's
    /// [`AsyncHandler::idle`] runs and its log lines are written.
    pub(super) async fn next_frame_idle<
        'r,
        R: embedded_io_async::Read,
        W: embedded_io_async::Write,
        const N: usize,
    >(
        &mut self,
        reader: &'r mut LineReader<R, N>,
        writer: &mut W,
    ) -> Result<Option<(Frame<'r>, Lookahead<'r, R>)>, ServeError<R::Error, W::Error>> {
        let link = Link::new();
        // Outside a call, only a legacy stream after `initialize` takes log messages.
        let level = self.session.and(self.log_level);
        let rate = Rate {
            interval_ms: 0,
            clock: None,
        };
        let mut cx = Context::new(&link, None, level, rate);
        let mut read = pin!(reader.split_frame_async());
        loop {
            let mut idle = pin!(self.handler.idle(&mut cx));
            loop {
                let event = poll_fn(|task| {
                    if let Poll::Ready(next) = read.as_mut().poll(task) {
                        return Poll::Ready(Event::Read(next));
                    }
                    if link.has_line() {
                        return Poll::Ready(Event::Line);
                    }
                    idle.as_mut().poll(task).map(Event::Done)
                })
                .await;
                match event {
                    Event::Read(next) => return next.map_err(ServeError::Read),
                    Event::Line => send_line(&link, writer).await?,
                    Event::Done(()) | Event::Cancelled => break,
                }
            }
        }
    }
}
