//! The serve loops: read a line, answer it, write the answer, until the stream ends.

use core::cell::Cell;
use core::convert::Infallible;

use crate::park::{finish, or_park, park};
use crate::transport::{self, LineReader};

use super::call_async::Outcome;
use super::dispatch::Step;
use super::{AsyncHandler, Handler, ServeError, Server};

/// Why [`Server::serve_async_into`] stopped serving: empty while it serves, then `Ok` at end
/// of stream or the error.
pub type Ended<R, W> = Cell<Option<Result<(), ServeError<R, W>>>>;

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
        finish!(ended => self.serve_async_into(reader, writer, out, &ended))
    }

    /// [`Server::serve_async`] as a future that never completes, for a firmware task that
    /// serves for good: when the stream ends (`Ok`) or fails, `ended` holds why and the future
    /// stays pending (drop it to serve again).
    ///
    /// No panic is reachable in it: the compiler gives every `async fn` that can return,
    /// `serve_async` included, a check that panics if its future is polled again after it
    /// completed (an executor's mistake), and only a future that cannot complete has none.
    /// `examples/panic-free` links this path (with typed tools, `confirm` and a `Context`)
    /// with a panic handler that does not link.
    pub async fn serve_async_into<
        R: embedded_io_async::Read,
        W: embedded_io_async::Write,
        const N: usize,
    >(
        &mut self,
        reader: &mut LineReader<R, N>,
        writer: &mut W,
        out: &mut [u8],
        ended: &Ended<R::Error, W::Error>,
    ) -> Infallible {
        loop {
            let next = finish!(next => self.next_frame_idle_into(reader, writer, &next));
            let Some((frame, mut ahead)) = or_park!(next, ended) else {
                ended.set(Some(Ok(())));
                park!()
            };
            let n = match self.frame_step(frame, out) {
                Step::Reply(n) => n,
                Step::Call(prepared) => {
                    let ran =
                        finish!(ran => self.run_into(&prepared, &mut ahead, writer, out, &ran));
                    match or_park!(ran, ended) {
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
                let written = transport::write_in_place!(writer, message);
                or_park!(written, ended);
            }
        }
    }
}
