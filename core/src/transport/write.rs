//! Writing one message over `embedded-io` byte streams, without the panic of `write_all`
//! (which panics when `write` accepts no bytes).

use core::convert::Infallible;
use core::fmt;

use crate::park::{finish, park, Slot};

/// Why a message was not written whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum WriteError<E> {
    /// The stream failed.
    Io(E),
    /// The stream accepted no bytes of a non-empty write (`write` returned `Ok(0)`): the
    /// message was cut there.
    Zero,
}

impl<E: fmt::Display> fmt::Display for WriteError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(e) => e.fmt(f),
            Self::Zero => f.write_str("the stream accepted no bytes"),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> core::error::Error for WriteError<E> {}

/// Writes one complete message (which must already end with its LF) and flushes.
pub fn write_message<W: embedded_io::Write>(
    writer: &mut W,
    message: &[u8],
) -> Result<(), WriteError<W::Error>> {
    let mut rest = message;
    while !rest.is_empty() {
        let n = writer.write(rest).map_err(WriteError::Io)?;
        rest = accepted(rest, n)?;
    }
    writer.flush().map_err(WriteError::Io)
}

/// Writes one complete message (which must already end with its LF) and flushes.
pub async fn write_message_async<W: embedded_io_async::Write>(
    writer: &mut W,
    message: &[u8],
) -> Result<(), WriteError<W::Error>> {
    finish!(written => write_message_into(writer, message, &written))
}

/// [`write_message_async`] that never returns: the outcome goes into `written`, then the
/// future stays pending (see `crate::park`).
pub(crate) async fn write_message_into<W: embedded_io_async::Write>(
    writer: &mut W,
    message: &[u8],
    written: &Slot<Result<(), WriteError<W::Error>>>,
) -> Infallible {
    written.set(Some(write_in_place!(writer, message)));
    park!()
}

/// Writes one message and flushes inside the calling async function (no future of its own, so
/// no nesting level, slot or compiler check): `Result<(), WriteError<_>>`.
macro_rules! write_in_place {
    ($writer:expr, $message:expr) => {{
        let mut rest: &[u8] = $message;
        let mut written = Ok(());
        while !rest.is_empty() {
            match $writer.write(rest).await {
                Ok(n) => match $crate::transport::accepted(rest, n) {
                    Ok(left) => rest = left,
                    Err(e) => {
                        written = Err(e);
                        break;
                    }
                },
                Err(e) => {
                    written = Err($crate::transport::WriteError::Io(e));
                    break;
                }
            }
        }
        if written.is_ok() {
            written = $writer
                .flush()
                .await
                .map_err($crate::transport::WriteError::Io);
        }
        written
    }};
}
pub(crate) use write_in_place;

/// What is left of `rest` after the stream accepted `n` of its bytes (a stream claiming more
/// than it was given has taken all of it).
pub(crate) fn accepted<E>(rest: &[u8], n: usize) -> Result<&[u8], WriteError<E>> {
    if n == 0 {
        return Err(WriteError::Zero);
    }
    Ok(rest.get(n..).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream taking at most `chunk` bytes per write (0: none), into `got`.
    struct Chunked {
        chunk: usize,
        got: [u8; 16],
        len: usize,
        flushed: bool,
    }

    impl embedded_io::ErrorType for Chunked {
        type Error = core::convert::Infallible;
    }

    impl embedded_io::Write for Chunked {
        fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
            let n = buf.len().min(self.chunk);
            self.got[self.len..self.len + n].copy_from_slice(&buf[..n]);
            self.len += n;
            Ok(n)
        }
        fn flush(&mut self) -> Result<(), Self::Error> {
            self.flushed = true;
            Ok(())
        }
    }

    fn chunked(chunk: usize) -> Chunked {
        Chunked {
            chunk,
            got: [0; 16],
            len: 0,
            flushed: false,
        }
    }

    #[test]
    fn short_writes_are_continued_then_flushed() {
        let mut w = chunked(3);
        write_message(&mut w, b"{\"a\":12}\n").unwrap();
        assert_eq!(&w.got[..w.len], b"{\"a\":12}\n");
        assert!(w.flushed);
    }

    #[test]
    fn a_stream_taking_nothing_is_an_error_not_a_panic() {
        let mut w = chunked(0);
        assert_eq!(write_message(&mut w, b"x\n"), Err(WriteError::Zero));
        assert!(!w.flushed);
        // An empty message needs no write at all.
        assert_eq!(write_message(&mut w, b""), Ok(()));
    }
}
