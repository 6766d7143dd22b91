//! The serve loops: read a line, answer it, write the answer, until the stream ends.

use crate::transport::{self, LineReader};

use super::call_async::Outcome;
use super::dispatch::Step;
use super::{AsyncHandler, Handler, ServeError, Server};

impl<H: Handler, const TOOLS: usize> Server<'_, H, TOOLS> {
    /// Serves requests from a blocking stream until it ends (`Ok`) or fails.
    ///
    /// Each request line is answered, in order, with one response line written to `writer`
    /// and flushed; `out` holds a response while it is written (at least
    /// [`Server::required_output_len`] bytes).
    pub fn serve<R: embedded_io::Read, W: embedded_io::Write, const N: usize>(
        &mut self,
        reader: &mut LineReader<R, N>,
        writer: &mut W,
        out: &mut [u8],
    ) -> Result<(), ServeError<R::Error, W::Error>> {
        loop {
            let Some(frame) = reader.next_frame().map_err(ServeError::Read)? else {
                return Ok(());
            };
            if let Some(n) = self.handle_frame(frame, out) {
                let message = out.get(..n).unwrap_or_default();
                transport::write_message(writer, message)?;
            }
        }
    }
}

impl<H: AsyncHandler, const TOOLS: usize> Server<'_, H, TOOLS> {
    /// Serves requests from an async stream until it ends (`Ok`) or fails; see
    /// [`Server::serve`]. Tools run as [`AsyncHandler`]s (every sync [`Handler`] is one).
    ///
    /// While a tool runs, its progress and log notifications are written before its
    /// response, and the reader keeps reading behind the request: a `notifications/cancelled`
    /// for the running call cancels it (nothing more is written for it, no response), and
    /// every other line waits in the reader's buffer, in order, to be answered after the
    /// response. When that buffer is full, reading stops until the call ends (the sender is
    /// held back). When a call ends the engine drops the read it had pending, so `R::read`
    /// must not lose bytes when its future is dropped before it completes (buffered UART
    /// drivers, which copy out of their ring buffer only in a poll that completes, do not).
    pub async fn serve_async<
        R: embedded_io_async::Read,
        W: embedded_io_async::Write,
        const N: usize,
    >(
        &mut self,
        reader: &mut LineReader<R, N>,
        writer: &mut W,
        out: &mut [u8],
    ) -> Result<(), ServeError<R::Error, W::Error>> {
        loop {
            let Some((frame, mut ahead)) = self.next_frame_idle(reader, writer).await? else {
                return Ok(());
            };
            let n = match self.frame_step(frame, out) {
                Step::Reply(n) => n,
                Step::Call(prepared) => {
                    match self.run_async(&prepared, &mut ahead, writer, out).await? {
                        Outcome::Finished(n) => n,
                        Outcome::Cancelled => {
                            self.stats.cancelled = self.stats.cancelled.wrapping_add(1);
                            None
                        }
                    }
                }
            };
            if let Some(n) = n {
                let message = out.get(..n).unwrap_or_default();
                transport::write_message_async(writer, message).await?;
            }
        }
    }
}
