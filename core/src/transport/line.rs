//! The line buffer: bytes in, whole lines out.

use super::id::{IdTracker, RecoveredId};
use crate::json::{self, find_byte, move_within};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A line that did not fit the buffer and was discarded up to its LF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Overlong<'a> {
    /// Length of the discarded line in bytes, its LF not counted (saturates at `usize::MAX`).
    pub len: usize,
    /// The request id, when the line was a JSON object whose first top-level `"id"` member is a
    /// string or integer (see [`IdTracker`]); it stays in the line buffer's discard state.
    pub id: Option<&'a RecoveredId>,
}

/// One complete line, as the transport hands it on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Frame<'a> {
    /// A non-empty line of valid UTF-8, without its LF, trailing CR or leading byte order mark.
    Line(&'a str),
    /// A complete line that is not valid UTF-8 (its raw bytes).
    InvalidUtf8(&'a [u8]),
    /// A line longer than the buffer, discarded.
    Overlong(Overlong<'a>),
}

/// The outcome of [`LineBuffer::feed`]: at most one frame, and the input not consumed yet.
#[derive(Debug, PartialEq, Eq)]
pub enum FeedResult<'buf, 'input> {
    /// All input was consumed without completing a line.
    Consumed,
    /// A line ended; `remaining` is the input after its LF, to feed next.
    Frame {
        /// The completed line.
        frame: Frame<'buf>,
        /// Input after the line's LF.
        remaining: &'input [u8],
    },
}

/// The kind of frame found by [`LineBuffer::has_frame`] and not yet handed out.
///
/// Fieldless, its empty state first, and kept beside the indices it refers to (not an
/// `Option` of an enum with data), so that [`LineBuffer::new`] is all zero bits: a
/// `static` line buffer then lands in `.bss` instead of taking flash in `.data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    /// Nothing found yet.
    Nothing,
    /// The line at [`LineBuffer::line`]: its UTF-8 is checked when it is framed (once).
    Line,
    /// The line being discarded ended: [`LineBuffer::discard`] holds its length and id.
    Overlong,
}

/// State of a line being discarded because it is too long.
#[derive(Debug, Clone)]
struct Discard {
    tracker: IdTracker,
    len: usize,
}

impl Discard {
    fn take(&mut self, bytes: &[u8]) {
        self.tracker.feed(bytes);
        self.len = self.len.saturating_add(bytes.len());
    }
    fn finish(&self) -> Overlong<'_> {
        Overlong {
            len: self.len,
            id: self.tracker.id(),
        }
    }
}

/// A line accumulator with a capacity of `N` bytes.
///
/// LF ends a line; a trailing CR is removed; empty and blank lines (spaces and tabs only) are
/// skipped; a UTF-8 byte order mark at the start of a line is removed; a line that is not UTF-8
/// is reported as [`Frame::InvalidUtf8`]. A line whose bytes, LF included, exceed `N` is
/// discarded as it arrives (its request id is tracked on the way) and reported as
/// [`Frame::Overlong`] once its LF is seen; the next line is read normally.
///
/// Two ways to use it:
/// - [`LineBuffer::feed`] with bytes from anywhere (an interrupt ring, a DMA chunk), in the style
///   of postcard's `CobsAccumulator`: each call returns at most one frame and the unconsumed input.
/// - Read straight into [`LineBuffer::space`], [`LineBuffer::commit`] the count, then drain
///   [`LineBuffer::next_frame`] until `None` (this is what [`LineReader`](super::LineReader)
///   does, with no second buffer).
///
/// [`LineBuffer::new`] is all zero bits, so a `static` buffer (or reader) takes no flash.
#[derive(Debug, Clone)]
pub struct LineBuffer<const N: usize> {
    buf: [u8; N],
    /// First byte not yet consumed.
    start: usize,
    /// End of the buffered bytes.
    end: usize,
    /// `start..scanned` holds no LF.
    scanned: usize,
    /// A line that does not fit is being discarded up to its LF (its state is `discard`).
    discarding: bool,
    /// The line being discarded, or the last one (kept for a pending [`Pending::Overlong`]).
    discard: Discard,
    /// A frame found by [`LineBuffer::has_frame`] and not yet handed out.
    pending: Pending,
    /// `buf[line.0..line.1]` is the pending [`Pending::Line`].
    line: (usize, usize),
}

impl<const N: usize> Default for LineBuffer<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> LineBuffer<N> {
    /// An empty buffer (all zero bits).
    pub const fn new() -> Self {
        Self {
            buf: [0; N],
            start: 0,
            end: 0,
            scanned: 0,
            discarding: false,
            discard: Discard {
                tracker: IdTracker::new(),
                len: 0,
            },
            pending: Pending::Nothing,
            line: (0, 0),
        }
    }

    /// The capacity: the longest line accepted, its LF included.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Forgets any partial line (for example after the peer reconnected).
    pub fn clear(&mut self) {
        self.start = 0;
        self.end = 0;
        self.scanned = 0;
        self.discarding = false;
        self.pending = Pending::Nothing;
    }

    /// Feeds bytes; returns the first line they complete and the input after it.
    ///
    /// Call again with `remaining` until [`FeedResult::Consumed`]. Do not mix with
    /// [`LineBuffer::space`]/[`LineBuffer::commit`] on the same buffer.
    pub fn feed<'i>(&mut self, mut input: &'i [u8]) -> FeedResult<'_, 'i> {
        loop {
            if input.is_empty() {
                return FeedResult::Consumed;
            }
            let lf = find_byte(input, b'\n');
            let (body, rest) = match lf {
                Some(i) => (
                    input.get(..i).unwrap_or_default(),
                    Some(input.get(i.saturating_add(1)..).unwrap_or_default()),
                ),
                None => (input, None),
            };
            if !self.discarding {
                // Room for the body, plus the LF when the line ends here.
                let needed = self
                    .end
                    .saturating_add(body.len())
                    .saturating_add(usize::from(rest.is_some()));
                if needed > N {
                    self.begin_discard();
                }
            }
            if self.discarding {
                self.discard.take(body);
                let Some(rest) = rest else {
                    return FeedResult::Consumed;
                };
                self.discarding = false;
                return FeedResult::Frame {
                    frame: Frame::Overlong(self.discard.finish()),
                    remaining: rest,
                };
            }
            // `get_mut(..n)` is exactly `n` bytes: the copy's lengths are equal by construction.
            let dst = self
                .buf
                .get_mut(self.end..)
                .and_then(|room| room.get_mut(..body.len()));
            if let Some(dst) = dst {
                json::copy_bytes(dst, body);
            }
            // `needed <= N` above: no saturation.
            self.end = self.end.saturating_add(body.len());
            let Some(rest) = rest else {
                self.scanned = self.end;
                return FeedResult::Consumed;
            };
            let (start, stop) = (self.start, self.end);
            self.start = 0;
            self.end = 0;
            self.scanned = 0;
            if self.classify(start, stop) {
                return FeedResult::Frame {
                    frame: self.frame(Pending::Line),
                    remaining: rest,
                };
            }
            input = rest;
        }
    }

    /// Starts discarding the buffered partial line (it cannot fit): the discard state takes
    /// what was buffered, and the buffer is emptied.
    fn begin_discard(&mut self) {
        self.discarding = true;
        self.discard.tracker.reset();
        self.discard.len = 0;
        self.discard
            .take(self.buf.get(self.start..self.end).unwrap_or_default());
        self.start = 0;
        self.end = 0;
        self.scanned = 0;
    }

    /// The free space after the buffered bytes, to read into (compacts the buffer first).
    ///
    /// Drain [`LineBuffer::next_frame`] before calling this. Never empty.
    pub fn space(&mut self) -> &mut [u8] {
        if self.start > 0 {
            // `start <= scanned <= end <= N` always holds, so the move cannot fail.
            move_within(&mut self.buf, self.start..self.end, 0);
            self.end = self.end.saturating_sub(self.start);
            self.scanned = self.scanned.saturating_sub(self.start);
            self.start = 0;
        }
        if self.end >= N {
            // A full buffer without LF: the line is too long.
            self.begin_discard();
        }
        self.buf.get_mut(self.end..).unwrap_or_default()
    }

    /// Records that `n` bytes were written into [`LineBuffer::space`].
    pub fn commit(&mut self, n: usize) {
        self.end = self.end.saturating_add(n).min(N);
    }

    /// The next complete line among the buffered bytes, if any.
    pub fn next_frame(&mut self) -> Option<Frame<'_>> {
        let ready = self.take_pending()?;
        Some(self.frame(ready))
    }

    /// True when [`LineBuffer::next_frame`] has a frame to return (found now and kept, so a
    /// caller can test without holding a borrow; do not call [`LineBuffer::space`] in between).
    pub(crate) fn has_frame(&mut self) -> bool {
        if self.pending == Pending::Nothing {
            self.pending = self.advance();
        }
        self.pending != Pending::Nothing
    }

    /// The pending frame's kind, or the next one found; `None` when there is none.
    fn take_pending(&mut self) -> Option<Pending> {
        let ready = match core::mem::replace(&mut self.pending, Pending::Nothing) {
            Pending::Nothing => self.advance(),
            ready => ready,
        };
        (ready != Pending::Nothing).then_some(ready)
    }

    /// Finds the next frame and consumes it (a line's indices go to `self.line`).
    fn advance(&mut self) -> Pending {
        loop {
            if self.discarding {
                let window = self.buf.get(self.start..self.end).unwrap_or_default();
                match find_byte(window, b'\n') {
                    Some(i) => {
                        self.discard.take(window.get(..i).unwrap_or_default());
                        self.discarding = false;
                        // `start + i < end <= N`: no wrap.
                        self.start = self.start.wrapping_add(i).wrapping_add(1);
                        self.scanned = self.start;
                        return Pending::Overlong;
                    }
                    None => {
                        self.discard.take(window);
                        self.start = 0;
                        self.end = 0;
                        self.scanned = 0;
                        return Pending::Nothing;
                    }
                }
            }
            let window = self.buf.get(self.scanned..self.end).unwrap_or_default();
            let Some(i) = find_byte(window, b'\n') else {
                self.scanned = self.end;
                if self.start == 0 && self.end >= N {
                    self.begin_discard();
                }
                return Pending::Nothing;
            };
            // Indices inside `buf` (`scanned + i < end <= N`): nothing wraps.
            let (start, stop) = (self.start, self.scanned.wrapping_add(i));
            self.start = stop.wrapping_add(1);
            self.scanned = self.start;
            if self.classify(start, stop) {
                return Pending::Line;
            }
        }
    }

    /// Strips CR and BOM from `buf[start..stop]` into `self.line`; false for a blank line.
    fn classify(&mut self, mut start: usize, mut stop: usize) -> bool {
        let line = self.buf.get(start..stop).unwrap_or_default();
        if line.last() == Some(&b'\r') {
            // The line is not empty: `stop > start`.
            stop = stop.wrapping_sub(1);
        }
        if line.starts_with(BOM) {
            // The line holds the BOM: `start + 3 <= stop`.
            start = start.wrapping_add(BOM.len());
        }
        let line = self.buf.get(start..stop).unwrap_or_default();
        if line.iter().all(|&b| b == b' ' || b == b'\t') {
            return false;
        }
        self.line = (start, stop);
        true
    }

    fn frame(&self, ready: Pending) -> Frame<'_> {
        match ready {
            Pending::Overlong => Frame::Overlong(self.discard.finish()),
            _ => line_in(&self.buf, self.line),
        }
    }

    /// The next frame, and the rest of the buffer after it (the lines already buffered behind
    /// it and the free space), lent at the same time so more input can be read while the frame
    /// is still borrowed. Bytes committed through the [`Tail`] stay buffered for the frames
    /// that follow.
    pub(crate) fn split_frame(&mut self) -> Option<(Frame<'_>, Tail<'_>)> {
        let ready = self.take_pending()?;
        let cut = self.start.min(N);
        let (head, rest) = self.buf.split_at_mut(cut);
        let frame = match ready {
            Pending::Overlong => Frame::Overlong(self.discard.finish()),
            _ => line_in(head, self.line),
        };
        let tail = Tail {
            bytes: rest,
            end: &mut self.end,
            cut,
            peeked: 0,
        };
        Some((frame, tail))
    }
}

/// The line `buf[a..b]`, as text when it is UTF-8.
fn line_in(buf: &[u8], (a, b): (usize, usize)) -> Frame<'_> {
    let line = buf.get(a..b).unwrap_or_default();
    match core::str::from_utf8(line) {
        Ok(text) => Frame::Line(text),
        Err(_) => Frame::InvalidUtf8(line),
    }
}

/// The part of a [`LineBuffer`] after a frame that is still borrowed: the bytes buffered
/// behind it, then the free space. Bytes read into [`Tail::space`] and committed become part
/// of the buffer; lines can be peeked at without being consumed.
#[derive(Debug)]
pub(crate) struct Tail<'a> {
    /// The buffer from `cut` on.
    bytes: &'a mut [u8],
    /// The buffer's end of data (absolute index).
    end: &'a mut usize,
    /// Where `bytes` starts in the buffer.
    cut: usize,
    /// Bytes of `bytes` already peeked at, whole lines only.
    peeked: usize,
}

impl Tail<'_> {
    fn filled(&self) -> usize {
        self.end.saturating_sub(self.cut)
    }

    /// The free space after the buffered bytes (empty when the buffer is full).
    pub(crate) fn space(&mut self) -> &mut [u8] {
        let filled = self.filled();
        self.bytes.get_mut(filled..).unwrap_or_default()
    }

    /// Records that `n` bytes were written into [`Tail::space`].
    pub(crate) fn commit(&mut self, n: usize) {
        let room = self.bytes.len().saturating_sub(self.filled());
        *self.end = self.end.saturating_add(n.min(room));
    }

    /// The next complete line behind the frame not peeked at yet (without its LF; it stays
    /// buffered).
    pub(crate) fn peek_line(&mut self) -> Option<&[u8]> {
        let filled = self.filled();
        let window = self.bytes.get(self.peeked..filled)?;
        let i = find_byte(window, b'\n')?;
        let start = self.peeked;
        let stop = start.saturating_add(i);
        self.peeked = stop.saturating_add(1);
        self.bytes.get(start..stop)
    }
}
