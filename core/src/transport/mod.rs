//! Line framing: one JSON-RPC message per LF-terminated line, as MCP's stdio transport requires
//! and as a serial line carries it.
//!
//! - [`LineBuffer`]: a const-generic accumulator. Bytes go in (by [`LineBuffer::feed`], or read
//!   straight into [`LineBuffer::space`]); whole lines come out as [`Frame`]s. A trailing CR is
//!   removed, blank lines are skipped, a leading UTF-8 byte order mark is removed, invalid UTF-8
//!   is reported, and a line longer than the buffer is discarded up to its LF and reported as
//!   [`Overlong`] with the request id recovered on the way ([`IdTracker`]), so the next message
//!   is read normally and the sender can still be answered.
//! - [`LineReader`]: the same over a blocking [`embedded_io::Read`] or an async
//!   [`embedded_io_async::Read`]; [`write_message`] / [`write_message_async`] write a response.
//!
//! The capacity `N` bounds a line, its LF included. Nothing here allocates or panics.

mod id;
mod line;
mod reader;
mod write;

pub use id::{IdTracker, RecoveredId, MAX_RECOVERED_ID_LEN};
pub use line::{FeedResult, Frame, LineBuffer, Overlong};
pub use reader::LineReader;
pub(crate) use reader::{Lookahead, Split};
pub(crate) use write::{accepted, write_in_place};
pub use write::{write_message, write_message_async, WriteError};

#[cfg(test)]
mod tests;
