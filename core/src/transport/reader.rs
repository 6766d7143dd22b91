//! Line reading over `embedded-io` byte streams.

use core::cell::Cell;
use core::convert::Infallible;

use crate::park::{or_park, park, Slot};

use super::line::{Frame, LineBuffer, Tail};

/// Reads lines from a byte stream into a [`LineBuffer`] of `N` bytes (no second buffer).
///
/// Works over a blocking [`embedded_io::Read`] ([`LineReader::next_frame`]) or an async
/// [`embedded_io_async::Read`] ([`LineReader::next_frame_async`]). Partial reads, a line split
/// across reads and several lines in one read are all handled; lines are returned in order.
#[derive(Debug)]
pub struct LineReader<R, const N: usize> {
    inner: R,
    lines: LineBuffer<N>,
}

impl<R, const N: usize> LineReader<R, N> {
    /// A reader over `inner` with an empty buffer.
    pub const fn new(inner: R) -> Self {
        Self {
            inner,
            lines: LineBuffer::new(),
        }
    }

    /// The underlying stream.
    pub fn inner_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// Gives the underlying stream back (buffered bytes are lost).
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: embedded_io::Read, const N: usize> LineReader<R, N> {
    /// The next frame; `Ok(None)` at end of stream (a final line without LF is dropped).
    pub fn next_frame(&mut self) -> Result<Option<Frame<'_>>, R::Error> {
        loop {
            if self.lines.has_frame() {
                return Ok(self.lines.next_frame());
            }
            let n = self.inner.read(self.lines.space())?;
            if n == 0 {
                self.lines.clear();
                return Ok(None);
            }
            self.lines.commit(n);
        }
    }
}

impl<R: embedded_io_async::Read, const N: usize> LineReader<R, N> {
    /// The next frame; `Ok(None)` at end of stream (a final line without LF is dropped).
    pub async fn next_frame_async(&mut self) -> Result<Option<Frame<'_>>, R::Error> {
        loop {
            if self.lines.has_frame() {
                return Ok(self.lines.next_frame());
            }
            let n = self.inner.read(self.lines.space()).await?;
            if n == 0 {
                self.lines.clear();
                return Ok(None);
            }
            self.lines.commit(n);
        }
    }
}

/// What [`LineReader::split_frame_into`] gives: the frame and the look-ahead behind it, `None`
/// at end of stream, or the read error (as `E`).
pub(crate) type Split<'r, R, E> = Result<Option<(Frame<'r>, Lookahead<'r, R>)>, E>;

impl<R: embedded_io_async::Read, const N: usize> LineReader<R, N> {
    /// [`LineReader::next_frame_async`], with a [`Lookahead`] that reads more input into the
    /// rest of the buffer while the frame is still in use. Never returns: the outcome goes into
    /// `split` (a read error through `read_error`) and `arrived` turns true, then the future
    /// stays pending (see `crate::park`). The caller's slot is filled in place: moving the
    /// outcome through a second slot costs a `memmove` the optimiser cannot prove needless.
    pub(crate) async fn split_frame_into<'r, E>(
        &'r mut self,
        split: &Slot<Split<'r, R, E>>,
        read_error: fn(R::Error) -> E,
        arrived: &Cell<bool>,
    ) -> Infallible {
        loop {
            if self.lines.has_frame() {
                let next = self.lines.split_frame().map(|(frame, tail)| {
                    let ahead = Lookahead {
                        inner: &mut self.inner,
                        tail,
                        ended: false,
                    };
                    (frame, ahead)
                });
                split.set(Some(Ok(next)));
                break;
            }
            match self.inner.read(self.lines.space()).await {
                Ok(0) => {
                    self.lines.clear();
                    split.set(Some(Ok(None)));
                    break;
                }
                Ok(n) => self.lines.commit(n),
                Err(e) => {
                    split.set(Some(Err(read_error(e))));
                    break;
                }
            }
        }
        arrived.set(true);
        park!()
    }
}

/// Reads input behind a frame still in use (a request whose tool is running): the bytes stay
/// buffered, in order, for the frames after it; reading stops while the buffer is full, which
/// holds the sender back (UART flow control, or the driver's own buffer).
#[derive(Debug)]
pub(crate) struct Lookahead<'a, R> {
    inner: &'a mut R,
    tail: Tail<'a>,
    /// The stream ended (read returned 0): nothing more is read.
    ended: bool,
}

impl<R: embedded_io_async::Read> Lookahead<'_, R> {
    /// Reads once into the free space. Never completes when the buffer is full or the stream
    /// has ended; never returns: `Ok(false)` (the stream ended), `Ok(true)` or the error goes
    /// into `read`, then the future stays pending (see `crate::park`).
    pub(crate) async fn fill_into(
        &mut self,
        read: &Cell<Option<Result<bool, R::Error>>>,
    ) -> Infallible {
        let space = self.tail.space();
        if !self.ended && !space.is_empty() {
            let n = or_park!(self.inner.read(space).await, read);
            if n == 0 {
                self.ended = true;
                read.set(Some(Ok(false)));
            } else {
                self.tail.commit(n);
                read.set(Some(Ok(true)));
            }
        }
        park!()
    }

    /// The next complete line read behind the frame and not peeked at yet.
    pub(crate) fn peek_line(&mut self) -> Option<&[u8]> {
        self.tail.peek_line()
    }
}
