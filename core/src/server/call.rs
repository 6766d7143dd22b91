//! `tools/call`: argument checks, the handler, and the output check before anything is sent.

use crate::json::{self, Describe, Kind, Limits, Piece, SliceSink, Value};
use crate::protocol::{
    parse_value, write_result_start, Envelope, ErrorCode, LogLevel, RequestId, Version,
};
use crate::result::{Era, ResultWriter};

use super::handler::{Failed, Failure, Shape, ToolFailure};
use super::reply::{error_line, fallback};
use super::{Call, Done, Output, Server};

/// Longest client-supplied tool name echoed in an "Unknown tool" error.
const MAX_ECHOED_NAME: usize = 64;

/// The text of the `isError` result written when a tool's message does not fit.
const SHORT_FAILURE: &str = "Tool failed; its message does not fit the output buffer";

/// Writes an `isError` result whose text is `message`, into `body`; its length. When the
/// message does not fit, a short fixed one is written instead (by the same writer).
fn error_result(body: &mut [u8], era: Era, message: &dyn Describe) -> Option<usize> {
    let short = [Piece::Text(SHORT_FAILURE)];
    for message in [message, &short] {
        let mut sink = SliceSink::new(&mut *body);
        let written = (|| {
            let mut w = ResultWriter::new(&mut sink, era);
            w.text_of(message)?;
            w.set_error(true);
            w.finish()
        })();
        if let Ok(n) = written.and_then(|()| sink.finish()) {
            return Some(n);
        }
    }
    None
}

/// A `tools/call` ready for its handler: the tool found, the arguments checked, and the
/// response's head (`{"jsonrpc":"2.0","id":…,"result":`) written at the start of the output
/// buffer.
#[derive(Debug)]
pub(super) struct Prepared<'l> {
    pub(super) call: Call<'l>,
    pub(super) id: RequestId<'l>,
    era: Era,
    shape: Shape,
    /// Length of the response head in the output buffer.
    head: usize,
    /// The request's `_meta.progressToken` (raw JSON), when it is a string or an integer.
    pub(super) progress_token: Option<&'l str>,
    /// The least severe log level sent for this request.
    pub(super) log_level: Option<LogLevel>,
    /// A bridge asked for the lean result (`_meta["embedded-mcp/lean"]: true`): no text twin.
    lean: bool,
}

impl Prepared<'_> {
    /// Where the handler writes its result: the output buffer after the head, less the
    /// closing `}` and LF.
    pub(super) fn output<'o>(&self, out: &'o mut [u8]) -> Option<Output<'o>> {
        let end = out.len().saturating_sub(2);
        let body = out.get_mut(self.head..end)?;
        Some(Output::new(body, self.era, self.shape))
    }
}

/// The request's progress token: its raw text when it is a string or an integer.
fn progress_token<'l>(params: &Envelope<'l>) -> Option<&'l str> {
    params
        .progress_token
        .and_then(RequestId::from_value)
        .map(|t| t.raw())
}

impl<'a, H, const TOOLS: usize> Server<'a, H, TOOLS> {
    /// Finds the tool, checks the arguments and writes the response head: the call to run,
    /// or the complete error line already written.
    pub(super) fn prepare<'l>(
        &self,
        id: RequestId<'l>,
        params: &Envelope<'l>,
        version: Version,
        log_level: Option<LogLevel>,
        out: &mut [u8],
    ) -> Result<Prepared<'l>, Option<usize>>
    where
        'a: 'l,
    {
        let Some(name) = params.name.and_then(|n| n.as_str()) else {
            return Err(error_line(
                out,
                Some(id),
                ErrorCode::InvalidParams,
                "Invalid params: \"name\" must be a string",
            ));
        };
        let Some(index) = self.tools.iter().position(|t| name.eq_str(t.name)) else {
            let mut message = [0u8; 14 + MAX_ECHOED_NAME];
            let text = unknown_tool_message(&mut message, name.raw());
            return Err(error_line(out, Some(id), ErrorCode::InvalidParams, text));
        };
        let arguments = match params.arguments {
            // An empty object: JSON by construction.
            None => Value::from_checked("{}"),
            Some(a) if a.kind() == Kind::Object => a,
            Some(_) => {
                return Err(error_line(
                    out,
                    Some(id),
                    ErrorCode::InvalidParams,
                    "Invalid params: \"arguments\" must be an object",
                ))
            }
        };
        let tool = self.tools.get(index).ok_or(None)?;
        let era = if version.is_legacy() {
            Era::Legacy
        } else {
            Era::Stateless
        };
        let shape = match (version.is_legacy(), tool.output_schema.is_some()) {
            (true, true) if self.object_output.get(index).copied().unwrap_or(false) => {
                Shape::Object
            }
            (true, true) => Shape::Wrap,
            _ => Shape::Any,
        };

        // Envelope first, the result after it, `}` and LF at the end.
        let mut sink = SliceSink::new(&mut *out);
        if write_result_start(&mut sink, id).is_err() {
            return Err(fallback(out, Some(id)));
        }
        let Ok(head) = sink.finish() else {
            return Err(fallback(out, Some(id)));
        };
        let prepared = Prepared {
            call: Call {
                tool,
                index,
                arguments,
                version,
                #[cfg(feature = "approval")]
                params: params.params,
            },
            id,
            era,
            shape,
            head,
            progress_token: progress_token(params),
            log_level,
            lean: params.meta_lean.is_some_and(|v| v.as_bool() == Some(true)),
        };
        if let Err(violation) = self.checks.input(index, arguments) {
            let Some(body) = prepared.output(out) else {
                return Err(fallback(out, Some(id)));
            };
            let len = error_result(
                body.into_buf(),
                era,
                &[
                    Piece::Text("Invalid arguments for tool "),
                    Piece::Text(tool.name),
                    Piece::Text(": "),
                    Piece::Of(&violation),
                ],
            );
            return Err(self.close(&prepared, len, out));
        }
        Ok(prepared)
    }

    /// Settles the handler's outcome and closes the response line; its length.
    pub(super) fn finish<E: ToolFailure>(
        &self,
        prepared: &Prepared<'_>,
        done: Result<Done, E>,
        out: &mut [u8],
    ) -> Option<usize> {
        if let Ok(Done {
            failure: Some(Failure::Internal(message)),
            ..
        }) = &done
        {
            return error_line(out, Some(prepared.id), ErrorCode::InternalError, message);
        }
        #[cfg(feature = "approval")]
        match done {
            Ok(Done {
                failure: Some(Failure::MissingCapability(capability)),
                ..
            }) => {
                return super::reply::reply(out, Some(prepared.id), |sink| {
                    crate::protocol::write_missing_capability(
                        sink,
                        Some(prepared.id),
                        capability.name(),
                        capability.required(),
                    )
                });
            }
            Ok(Done {
                failure: Some(Failure::BadRequestState),
                ..
            }) => {
                return error_line(
                    out,
                    Some(prepared.id),
                    ErrorCode::InvalidParams,
                    "requestState integrity check failed",
                );
            }
            _ => {}
        }
        let len = match prepared.output(out) {
            Some(body) => self.settle(
                prepared.call.index,
                done,
                body.into_buf(),
                prepared.era,
                prepared.shape,
            ),
            None => None,
        };
        self.close(prepared, len, out)
    }

    /// Writes `}` and LF after a result of `len` bytes (or the fallback error when there is
    /// none); the line's length.
    fn close(&self, prepared: &Prepared<'_>, len: Option<usize>, out: &mut [u8]) -> Option<usize> {
        let id = Some(prepared.id);
        let Some(mut len) = len else {
            return fallback(out, id);
        };
        if prepared.lean {
            let end = prepared.head.saturating_add(len);
            if let Some(result) = out.get_mut(prepared.head..end) {
                len = crate::result::drop_text_twin(result);
            }
        }
        // Saturating: an end past `out` is refused by `get_mut` below, like any too-long line.
        let close = prepared.head.saturating_add(len);
        match out
            .get_mut(close..)
            .and_then(|rest| rest.first_chunk_mut::<2>())
        {
            Some(tail) => {
                *tail = *b"}\n";
                // The two bytes exist: `close + 2 <= out.len()`, no wrap.
                Some(close.wrapping_add(2))
            }
            None => fallback(out, id),
        }
    }

    /// Turns the handler's outcome into the final result in `body`: kept when it is valid,
    /// replaced by an `isError` result that says what is wrong otherwise. Returns its length.
    fn settle<E: ToolFailure>(
        &self,
        index: usize,
        done: Result<Done, E>,
        body: &mut [u8],
        era: Era,
        shape: Shape,
    ) -> Option<usize> {
        let tool = self.tools.get(index)?;
        let done = match done {
            Ok(done) => done,
            Err(e) => return error_result(body, era, &Failed(&e)),
        };
        // "Tool NAME produced …": the reason after the name.
        let tool_said = |body: &mut [u8], reason: &dyn Describe| {
            let message = [
                Piece::Text("Tool "),
                Piece::Text(tool.name),
                Piece::Of(reason),
            ];
            error_result(body, era, &message)
        };
        match done.failure {
            Some(Failure::Encode(crate::json::EncodeError::BufferTooSmall { needed })) => {
                // The result was written into `body` (`Prepared::output`): its size is the room.
                let capacity = body.len();
                return tool_said(
                    body,
                    &[
                        Piece::Text(
                            " produced a result too large for the device's output buffer (",
                        ),
                        Piece::Dec(needed as u64),
                        Piece::Text(" bytes needed, "),
                        Piece::Dec(capacity as u64),
                        Piece::Text(" available)"),
                    ],
                );
            }
            Some(Failure::Encode(e)) => {
                return tool_said(
                    body,
                    &[
                        Piece::Text(" produced a result that cannot be encoded: "),
                        Piece::Of(&e),
                    ],
                )
            }
            Some(Failure::NotAnObject) => return tool_said(
                body,
                &[Piece::Text(
                    " produced output that violates its outputSchema: the value is not an object",
                )],
            ),
            #[cfg(feature = "approval")]
            Some(Failure::MissingCapability(_) | Failure::BadRequestState) => return None,
            Some(Failure::Internal(_)) => return None,
            None => {}
        }
        if done.is_error || done.input_required || tool.output_schema.is_none() {
            return Some(done.len);
        }
        let Some(structured) = done.structured.clone() else {
            return tool_said(
                body,
                &[Piece::Text(
                    " declares an outputSchema but returned no structuredContent",
                )],
            );
        };
        let verdict = {
            let written = body.get(..done.len).unwrap_or_default();
            let value = match structured {
                // Written by the crate's serializer just now (`Output::structured`): JSON by
                // construction, so it is not parsed again; the schema check follows.
                Some(range) => written.get(range).and_then(Value::from_serialized),
                None => parse_value(written, Limits::default())
                    .ok()
                    .and_then(|r| r.get("structuredContent")),
            };
            let value = match shape {
                Shape::Wrap => value.and_then(|v| v.get("result")),
                _ => value,
            };
            match value {
                None => Err(None),
                Some(v) => self.checks.output(index, v).map_err(Some),
            }
        };
        match verdict {
            Ok(()) => Some(done.len),
            Err(None) => tool_said(
                body,
                &[Piece::Text(
                    " produced a result whose structuredContent cannot be read",
                )],
            ),
            Err(Some(violation)) => tool_said(
                body,
                &[
                    Piece::Text(" produced output that violates its outputSchema: "),
                    Piece::Of(&violation),
                ],
            ),
        }
    }
}

/// `Unknown tool: NAME` with the client's name (escaped JSON text, as received) when it is
/// short enough to echo.
fn unknown_tool_message<'b>(buf: &'b mut [u8], raw_name: &str) -> &'b str {
    const PREFIX: &str = "Unknown tool: ";
    if raw_name.len() > MAX_ECHOED_NAME || raw_name.contains('\\') {
        return "Unknown tool";
    }
    // `raw_name` is at most MAX_ECHOED_NAME bytes (checked above): no wrap.
    let total = PREFIX.len().wrapping_add(raw_name.len());
    let Some(dst) = buf.get_mut(..total) else {
        return "Unknown tool";
    };
    let (a, b) = dst.split_at_mut(PREFIX.len());
    json::copy_bytes(a, PREFIX.as_bytes());
    json::copy_bytes(b, raw_name.as_bytes());
    core::str::from_utf8(dst).unwrap_or("Unknown tool")
}
