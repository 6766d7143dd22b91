//! The futures of [`Context`]'s methods, written by hand: an `async fn` would carry the
//! compiler's "resumed after completion" panic (see `crate::park`). Polled again after they
//! completed, they stay pending.

use core::future::Future;
use core::pin::Pin;
use core::task::Poll;

use crate::json::ToJson;
use crate::protocol::{write_log_json, write_progress, LogLevel};

use super::{Context, Link, Slot};

/// Resolves once the host cancelled the call.
pub(super) struct Cancelled<'l>(pub(super) &'l Link);

impl Future for Cancelled<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _: &mut core::task::Context<'_>) -> Poll<()> {
        if self.0.is_cancelled() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

/// Where a notification's future is.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Not polled yet: nothing decided.
    Start,
    /// Waiting for the mailbox to be free; `hold`: the line is held (progress under the rate
    /// limit), `now`: the clock when the report was decided.
    Free { hold: bool, now: Option<u64> },
    /// The line is in the mailbox: waiting until it is written.
    Sending,
    /// Completed.
    Done,
}

/// [`Context::progress`]'s future.
pub(super) struct Progress<'a, 'c> {
    pub(super) cx: &'a mut Context<'c>,
    pub(super) progress: u32,
    pub(super) total: Option<u32>,
    pub(super) message: Option<&'a str>,
    step: Step,
}

impl<'a, 'c> Progress<'a, 'c> {
    pub(super) fn new(
        cx: &'a mut Context<'c>,
        progress: u32,
        total: Option<u32>,
        message: Option<&'a str>,
    ) -> Self {
        Self {
            cx,
            progress,
            total,
            message,
            step: Step::Start,
        }
    }

    /// Completes with `accepted`.
    fn done(&mut self, accepted: bool) -> Poll<bool> {
        self.step = Step::Done;
        Poll::Ready(accepted)
    }
}

impl Future for Progress<'_, '_> {
    type Output = bool;

    fn poll(self: Pin<&mut Self>, _: &mut core::task::Context<'_>) -> Poll<bool> {
        let this = self.get_mut();
        loop {
            match this.step {
                Step::Start => {
                    let cx = &*this.cx;
                    if cx.token.is_none()
                        || cx.is_cancelled()
                        || cx.last.is_some_and(|last| this.progress <= last)
                    {
                        return this.done(false);
                    }
                    let now = cx.rate.clock.map(|c| c.now_ms());
                    let hold = match (now, cx.last_sent_ms) {
                        (Some(now), Some(sent)) if cx.rate.interval_ms > 0 => {
                            now.wrapping_sub(sent) < u64::from(cx.rate.interval_ms)
                        }
                        _ => false,
                    };
                    this.step = Step::Free { hold, now };
                }
                // A line to send now must not wait behind another one.
                Step::Free { hold, now } => {
                    let cx = &mut *this.cx;
                    if cx.link.has_line() {
                        return Poll::Pending;
                    }
                    let Some(token) = cx.token else {
                        return this.done(false);
                    };
                    let slot = if hold { Slot::Held } else { Slot::Send };
                    let (progress, total) = (this.progress, this.total.map(u64::from));
                    let message = this.message;
                    if !cx.link.put(slot, |s| {
                        write_progress(s, token, u64::from(progress), total, message)
                    }) {
                        return this.done(false);
                    }
                    cx.last = Some(progress);
                    if hold {
                        return this.done(true);
                    }
                    cx.last_sent_ms = now;
                    this.step = Step::Sending;
                }
                Step::Sending => {
                    if this.cx.link.has_line() {
                        return Poll::Pending;
                    }
                    return this.done(true);
                }
                Step::Done => return Poll::Pending,
            }
        }
    }
}

/// [`Context::log`]'s and [`Context::log_json`]'s future.
pub(super) struct LogLine<'a, 'c, D> {
    cx: &'a mut Context<'c>,
    level: LogLevel,
    logger: Option<&'a str>,
    data: D,
    step: Step,
}

impl<'a, 'c, D: ToJson> LogLine<'a, 'c, D> {
    pub(super) fn new(
        cx: &'a mut Context<'c>,
        level: LogLevel,
        logger: Option<&'a str>,
        data: D,
    ) -> Self {
        Self {
            cx,
            level,
            logger,
            data,
            step: Step::Start,
        }
    }

    /// Completes with `sent`.
    fn done(&mut self, sent: bool) -> Poll<bool> {
        self.step = Step::Done;
        Poll::Ready(sent)
    }
}

impl<D: ToJson + Unpin> Future for LogLine<'_, '_, D> {
    type Output = bool;

    fn poll(self: Pin<&mut Self>, _: &mut core::task::Context<'_>) -> Poll<bool> {
        let this = self.get_mut();
        loop {
            match this.step {
                Step::Start => {
                    if !this.cx.logs(this.level) {
                        return this.done(false);
                    }
                    // A held progress line goes first, so that this line cannot overwrite it.
                    this.cx.link.release_held();
                    this.step = Step::Free {
                        hold: false,
                        now: None,
                    };
                }
                Step::Free { .. } => {
                    let link = this.cx.link;
                    if link.has_line() {
                        return Poll::Pending;
                    }
                    let (level, logger, data) = (this.level, this.logger, &this.data);
                    if !link.put(Slot::Send, |s| write_log_json(s, level, logger, data)) {
                        return this.done(false);
                    }
                    this.step = Step::Sending;
                }
                Step::Sending => {
                    if this.cx.link.has_line() {
                        return Poll::Pending;
                    }
                    return this.done(true);
                }
                Step::Done => return Poll::Pending,
            }
        }
    }
}
