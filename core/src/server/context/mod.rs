//! What an async tool can do while it runs: report progress, log to the host, and see that the
//! host cancelled the call.
//!
//! A [`Context`] never writes to the stream itself: it formats one notification line into a
//! small mailbox ([`NOTIFICATION_LEN`] bytes) that the serve loop writes out before it polls
//! the tool again. So `Context` is not generic over the writer, and a tool awaiting
//! [`Context::progress`] resumes once its line is on the wire.

mod notify;

use core::cell::{Cell, RefCell};
use core::future::Future;

use serde::Serialize;

use crate::json::{EncodeError, Serde, Sink, SliceSink, ToJson};
use crate::protocol::LogLevel;

use super::config::Clock;
use super::{Done, ToolError};

/// Room for one notification line (LF included). A progress report or log message that does
/// not fit is not sent (its method returns `false`).
pub const NOTIFICATION_LEN: usize = 256;

/// What the mailbox holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// Nothing.
    Empty,
    /// A line the serve loop writes before it polls the tool again.
    Send,
    /// A progress line held back by the rate limit: replaced by the next report, sent before
    /// anything else, or sent just before the response.
    Held,
}

/// The one notification line between a tool and the serve loop.
#[derive(Debug)]
struct Mailbox {
    bytes: [u8; NOTIFICATION_LEN],
    len: usize,
    slot: Slot,
}

/// What a running call shares with the serve loop: the mailbox and the cancelled flag.
pub(super) struct Link {
    mailbox: RefCell<Mailbox>,
    cancelled: Cell<bool>,
    /// The outcome a `#[tools]` dispatcher handed over before parking (see
    /// [`Context::__hand_over`]).
    handed: Cell<Option<Result<Done, ToolError>>>,
}

impl core::fmt::Debug for Link {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Link")
            .field("mailbox", &self.mailbox)
            .field("cancelled", &self.cancelled)
            .finish_non_exhaustive()
    }
}

impl Link {
    pub(super) const fn new() -> Self {
        Self {
            mailbox: RefCell::new(Mailbox {
                bytes: [0; NOTIFICATION_LEN],
                len: 0,
                slot: Slot::Empty,
            }),
            cancelled: Cell::new(false),
            handed: Cell::new(None),
        }
    }

    /// The outcome a dispatcher handed over, once.
    pub(super) fn take_handed(&self) -> Option<Result<Done, ToolError>> {
        self.handed.take()
    }

    fn slot(&self) -> Slot {
        self.mailbox.try_borrow().map_or(Slot::Empty, |m| m.slot)
    }

    /// A line is waiting to be written now.
    pub(super) fn has_line(&self) -> bool {
        self.slot() == Slot::Send
    }

    /// A held progress line is waiting for the response.
    pub(super) fn has_held(&self) -> bool {
        self.slot() == Slot::Held
    }

    /// The waiting line: `None` when there is none. The borrow must end before the tool is
    /// polled again.
    pub(super) fn line(&self) -> Option<core::cell::Ref<'_, [u8]>> {
        let mailbox = self.mailbox.try_borrow().ok()?;
        if mailbox.slot == Slot::Empty {
            return None;
        }
        let len = mailbox.len;
        Some(core::cell::Ref::map(mailbox, |m| {
            m.bytes.get(..len).unwrap_or_default()
        }))
    }

    /// The waiting line was written (or is to be forgotten).
    pub(super) fn clear(&self) {
        if let Ok(mut mailbox) = self.mailbox.try_borrow_mut() {
            mailbox.slot = Slot::Empty;
            mailbox.len = 0;
        }
    }

    /// The host cancelled the call.
    pub(super) fn cancel(&self) {
        self.cancelled.set(true);
        self.clear();
    }

    pub(super) fn is_cancelled(&self) -> bool {
        self.cancelled.get()
    }

    /// Formats a line into the mailbox as `slot`; false when it does not fit (the mailbox is
    /// then empty).
    fn put(
        &self,
        slot: Slot,
        write: impl FnOnce(&mut SliceSink<'_>) -> Result<(), EncodeError>,
    ) -> bool {
        let Ok(mut mailbox) = self.mailbox.try_borrow_mut() else {
            return false;
        };
        let mut sink = SliceSink::new(&mut mailbox.bytes);
        let written = write(&mut sink).and_then(|()| sink.put_byte(b'\n'));
        match written.and_then(|()| sink.finish()) {
            Ok(len) => {
                mailbox.len = len;
                mailbox.slot = slot;
                true
            }
            Err(_) => {
                mailbox.len = 0;
                mailbox.slot = Slot::Empty;
                false
            }
        }
    }

    /// Turns a held line into one to send now (so that a new line cannot overwrite it).
    fn release_held(&self) {
        if let Ok(mut mailbox) = self.mailbox.try_borrow_mut() {
            if mailbox.slot == Slot::Held {
                mailbox.slot = Slot::Send;
            }
        }
    }
}

/// The rate limit of progress reports.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rate {
    pub(super) interval_ms: u32,
    pub(super) clock: Option<Clock>,
}

/// What a running async tool can do besides computing its result: report progress
/// (`notifications/progress`), log (`notifications/message`) and see a cancellation.
///
/// Every notification goes out before the call's response and never after it. Without a
/// `progressToken` in the request, progress reports do nothing; without a log level for the
/// request (legacy: `logging/setLevel` or [`Config::log_level`](super::Config::log_level);
/// 2026-07-28: `_meta["io.modelcontextprotocol/logLevel"]`), log messages do nothing. After the
/// host cancelled the call, nothing is sent.
#[derive(Debug)]
pub struct Context<'c> {
    link: &'c Link,
    /// The request's `_meta.progressToken`, its raw JSON text.
    token: Option<&'c str>,
    /// The least severe level sent for this request.
    level: Option<LogLevel>,
    /// The last progress value accepted (sent or held).
    last: Option<u32>,
    /// When the last progress line was sent (clock milliseconds).
    last_sent_ms: Option<u64>,
    rate: Rate,
}

impl<'c> Context<'c> {
    pub(super) fn new(
        link: &'c Link,
        token: Option<&'c str>,
        level: Option<LogLevel>,
        rate: Rate,
    ) -> Self {
        Self {
            link,
            token,
            level,
            last: None,
            last_sent_ms: None,
            rate,
        }
    }

    /// True when the request asked for progress (it carries a `progressToken`).
    pub fn wants_progress(&self) -> bool {
        self.token.is_some() && !self.is_cancelled()
    }

    /// Reports progress: writes one `notifications/progress` line (echoing the request's
    /// token) and resumes once it is written. Returns whether the report was accepted.
    ///
    /// Not sent (returns `false`): the request has no token, `progress` is not larger than the
    /// last report (progress must strictly increase), the call was cancelled, or the line does
    /// not fit [`NOTIFICATION_LEN`]. Under the rate limit
    /// ([`Config::progress_interval_ms`](super::Config::progress_interval_ms)) a report that
    /// comes too soon is held instead (returns `true` at once): a later report replaces it,
    /// and the one still held at the end is sent just before the response.
    pub fn progress<'a>(
        &'a mut self,
        progress: u32,
        total: Option<u32>,
        message: Option<&'a str>,
    ) -> impl Future<Output = bool> + use<'a, 'c> {
        notify::Progress::new(self, progress, total, message)
    }

    /// True when a message at `level` would be sent for this request.
    pub fn logs(&self, level: LogLevel) -> bool {
        !self.is_cancelled() && self.level.is_some_and(|t| level.admitted_by(t))
    }

    /// Logs `data` (any value serde serialises, written as JSON without allocation) at
    /// `level`, from `logger` when given: one `notifications/message` line, written before the
    /// tool resumes. Returns whether it was sent: a message below the request's level, a
    /// request without a level, a cancelled call, or a line longer than [`NOTIFICATION_LEN`]
    /// send nothing.
    pub fn log<'a, T: Serialize + ?Sized>(
        &'a mut self,
        level: LogLevel,
        logger: Option<&'a str>,
        data: &'a T,
    ) -> impl Future<Output = bool> + use<'a, 'c, T> {
        notify::LogLine::new(self, level, logger, Serde(data))
    }

    /// [`Context::log`] for data that writes its own JSON ([`ToJson`]: `#[derive(McpSchema)]`
    /// types, numbers, strings, arrays of them), the same line without serde's code per type.
    pub fn log_json<'a>(
        &'a mut self,
        level: LogLevel,
        logger: Option<&'a str>,
        data: &'a dyn ToJson,
    ) -> impl Future<Output = bool> + use<'a, 'c> {
        notify::LogLine::new(self, level, logger, data)
    }

    /// For `#[tools]`: the dispatcher's future hands its outcome over here and then stays
    /// pending for good, so that it has no "resumed after completion" panic (see
    /// [`Server::serve_async_into`](super::Server::serve_async_into)); the serve loop takes it
    /// after the next poll.
    #[doc(hidden)]
    pub fn __hand_over(&self, done: Result<Done, ToolError>) {
        self.link.handed.set(Some(done));
    }

    /// True once the host has cancelled this call (`notifications/cancelled` with its id).
    /// The engine then sends nothing more for the call: its result is dropped, and so is its
    /// future if it does not finish at the next poll.
    pub fn is_cancelled(&self) -> bool {
        self.link.is_cancelled()
    }

    /// Resolves when the host cancels this call (for example to `select` against a long
    /// measurement and stop the hardware cleanly).
    pub fn cancelled(&self) -> impl Future<Output = ()> + use<'c> {
        notify::Cancelled(self.link)
    }
}
