//! The serve loops: read a line, answer it, write the answer, until the stream ends.

use crate::transport::{self, LineReader};

use super::{Handler, ServeError, Server};

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
                transport::write_message(writer, message).map_err(ServeError::Write)?;
            }
        }
    }

    /// Serves requests from an async stream until it ends (`Ok`) or fails; see
    /// [`Server::serve`].
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
            let Some(frame) = reader.next_frame_async().await.map_err(ServeError::Read)? else {
                return Ok(());
            };
            if let Some(n) = self.handle_frame(frame, out) {
                let message = out.get(..n).unwrap_or_default();
                transport::write_message_async(writer, message)
                    .await
                    .map_err(ServeError::Write)?;
            }
        }
    }
}
