//! Line reading and writing over `embedded-io` byte streams.

use super::line::{Frame, LineBuffer};

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

/// Writes one complete message (which must already end with its LF) and flushes.
pub fn write_message<W: embedded_io::Write>(
    writer: &mut W,
    message: &[u8],
) -> Result<(), W::Error> {
    writer.write_all(message)?;
    writer.flush()
}

/// Writes one complete message (which must already end with its LF) and flushes.
pub async fn write_message_async<W: embedded_io_async::Write>(
    writer: &mut W,
    message: &[u8],
) -> Result<(), W::Error> {
    writer.write_all(message).await?;
    writer.flush().await
}
