//! Line reading over `embedded-io` byte streams.

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

impl<R: embedded_io_async::Read, const N: usize> LineReader<R, N> {
    /// [`LineReader::next_frame_async`], with a [`Lookahead`] that reads more input into the
    /// rest of the buffer while the frame is still in use.
    pub(crate) async fn split_frame_async(
        &mut self,
    ) -> Result<Option<(Frame<'_>, Lookahead<'_, R>)>, R::Error> {
        loop {
            if self.lines.has_frame() {
                let Some((frame, tail)) = self.lines.split_frame() else {
                    return Ok(None);
                };
                let ahead = Lookahead {
                    inner: &mut self.inner,
                    tail,
                    ended: false,
                };
                return Ok(Some((frame, ahead)));
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
    /// has ended. `Ok(false)`: the stream ended.
    pub(crate) async fn fill(&mut self) -> Result<bool, R::Error> {
        let space = self.tail.space();
        if self.ended || space.is_empty() {
            return core::future::pending().await;
        }
        let n = self.inner.read(space).await?;
        if n == 0 {
            self.ended = true;
            return Ok(false);
        }
        self.tail.commit(n);
        Ok(true)
    }

    /// The next complete line read behind the frame and not peeked at yet.
    pub(crate) fn peek_line(&mut self) -> Option<&[u8]> {
        self.tail.peek_line()
    }
}
