//! Writing one complete response line into the output buffer, and the fallbacks when it does
//! not fit.

use crate::json::{EncodeError, Sink, SliceSink};
use crate::protocol::{write_error, ErrorCode, RequestId};
use crate::transport::RecoveredId;

/// The message of the -32603 error sent when a response does not fit the output buffer.
pub(super) const RESPONSE_TOO_LARGE: &str =
    "Internal error: the response does not fit the output buffer";

/// Writes `f` as a complete response line into `out`; falls back to a -32603 error when the
/// response does not fit, and to nothing when even that does not fit. Returns the line's
/// length (LF included).
pub(super) fn reply(
    out: &mut [u8],
    id: Option<RequestId<'_>>,
    f: impl FnOnce(&mut SliceSink<'_>) -> Result<(), EncodeError>,
) -> Option<usize> {
    let mut sink = SliceSink::new(out);
    let written = f(&mut sink).and_then(|()| sink.put_byte(b'\n'));
    match written.and_then(|()| sink.finish()) {
        Ok(n) => Some(n),
        Err(_) => fallback(out, id),
    }
}

/// The -32603 response used when the real one does not fit.
pub(super) fn fallback(out: &mut [u8], id: Option<RequestId<'_>>) -> Option<usize> {
    error_line_or_none(out, id, ErrorCode::InternalError, RESPONSE_TOO_LARGE)
}

/// Writes a JSON-RPC error response line; `None` when it does not fit.
fn error_line_or_none(
    out: &mut [u8],
    id: Option<RequestId<'_>>,
    code: ErrorCode,
    message: &str,
) -> Option<usize> {
    let mut sink = SliceSink::new(out);
    write_error(&mut sink, id, code, message).ok()?;
    sink.put_byte(b'\n').ok()?;
    sink.finish().ok()
}

/// Writes a JSON-RPC error response line (the -32603 one when it does not fit).
pub(super) fn error_line(
    out: &mut [u8],
    id: Option<RequestId<'_>>,
    code: ErrorCode,
    message: &str,
) -> Option<usize> {
    error_line_or_none(out, id, code, message).or_else(|| fallback(out, id))
}

/// The request id held in a recovered id (of an overlong or too deep line): checked JSON text
/// of one string or integer when it was captured (see
/// [`RecoveredId`](crate::transport::RecoveredId)), so it is not checked again.
pub(super) fn recovered_id(id: &RecoveredId) -> RequestId<'_> {
    RequestId::from_checked(id.as_str())
}
