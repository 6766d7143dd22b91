//! `tools/call`: argument checks, the handler, and the output check before anything is sent.

use core::fmt;

use crate::json::{Dec, Kind, SliceSink, Text, Value};
use crate::protocol::{write_result_start, Envelope, ErrorCode, RequestId, Version};
use crate::result::{self, Era, ResultWriter};

use super::handler::{Failure, Shape};
use super::reply::{error_line, fallback};
use super::{Call, Done, Handler, Output, Server};

/// Longest client-supplied tool name echoed in an "Unknown tool" error.
const MAX_ECHOED_NAME: usize = 64;

/// Writes an `isError` result whose text is `args`, into `body`; its length. When the message
/// does not fit, a short fixed one is written instead.
fn error_result(body: &mut [u8], era: Era, args: fmt::Arguments<'_>) -> Option<usize> {
    let mut sink = SliceSink::new(&mut *body);
    let written = (|| {
        let mut w = ResultWriter::new(&mut sink, era);
        w.text_fmt(args)?;
        w.set_error(true);
        w.finish()
    })();
    if let Ok(n) = written.and_then(|()| sink.finish()) {
        return Some(n);
    }
    result::encode_error(
        body,
        era,
        "Tool failed; its message does not fit the output buffer",
    )
    .ok()
    .map(|e| e.len)
}

impl<H: Handler, const TOOLS: usize> Server<'_, H, TOOLS> {
    pub(super) fn tools_call(
        &mut self,
        id: RequestId<'_>,
        params: &Envelope<'_>,
        version: Version,
        out: &mut [u8],
    ) -> Option<usize> {
        let Some(name) = params.name.and_then(|n| n.as_str()) else {
            return error_line(
                out,
                Some(id),
                ErrorCode::InvalidParams,
                "Invalid params: \"name\" must be a string",
            );
        };
        let Some(index) = self.tools.iter().position(|t| name.eq_str(t.name)) else {
            let mut message = [0u8; 14 + MAX_ECHOED_NAME];
            let text = unknown_tool_message(&mut message, name.raw());
            return error_line(out, Some(id), ErrorCode::InvalidParams, text);
        };
        let arguments = match params.arguments {
            None => Value::parse(b"{}").ok()?,
            Some(a) if a.kind() == Kind::Object => a,
            Some(_) => {
                return error_line(
                    out,
                    Some(id),
                    ErrorCode::InvalidParams,
                    "Invalid params: \"arguments\" must be an object",
                )
            }
        };
        let tool = self.tools.get(index)?;
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
            return fallback(out, Some(id));
        }
        let Ok(head) = sink.finish() else {
            return fallback(out, Some(id));
        };
        let end = out.len().saturating_sub(2);
        let Some(body) = out.get_mut(head..end) else {
            return fallback(out, Some(id));
        };

        let len = if let Err(violation) = self.checks.input(index, arguments) {
            error_result(
                body,
                era,
                format_args!(
                    "Invalid arguments for tool {}: {violation}",
                    Text(tool.name)
                ),
            )
        } else {
            let call = Call {
                tool,
                index,
                arguments,
                version,
            };
            let done = self
                .handler
                .call(&call, Output::new(&mut *body, era, shape));
            self.settle(index, done, body, era, shape)
        };
        let Some(len) = len else {
            return fallback(out, Some(id));
        };
        let close = head + len;
        match out.get_mut(close..close + 2) {
            Some(tail) => {
                tail.copy_from_slice(b"}\n");
                Some(close + 2)
            }
            None => fallback(out, Some(id)),
        }
    }

    /// Turns the handler's outcome into the final result in `body`: kept when it is valid,
    /// replaced by an `isError` result that says what is wrong otherwise. Returns its length.
    fn settle(
        &self,
        index: usize,
        done: Result<Done, H::Error>,
        body: &mut [u8],
        era: Era,
        shape: Shape,
    ) -> Option<usize> {
        let tool = self.tools.get(index)?;
        let name = Text(tool.name);
        let done = match done {
            Ok(done) => done,
            Err(e) => return error_result(body, era, format_args!("{e}")),
        };
        match done.failure {
            Some(Failure::Encode(crate::json::EncodeError::BufferTooSmall { needed, capacity })) => {
                return error_result(
                    body,
                    era,
                    format_args!(
                        "Tool {name} produced a result too large for the device's output buffer ({} bytes needed, {} available)",
                        Dec::of(needed),
                        Dec::of(capacity)
                    ),
                )
            }
            Some(Failure::Encode(e)) => {
                return error_result(
                    body,
                    era,
                    format_args!("Tool {name} produced a result that cannot be encoded: {e}"),
                )
            }
            Some(Failure::NotAnObject) => {
                return error_result(
                    body,
                    era,
                    format_args!(
                        "Tool {name} produced output that violates its outputSchema: the value is not an object"
                    ),
                )
            }
            None => {}
        }
        if done.is_error || tool.output_schema.is_none() {
            return Some(done.len);
        }
        let Some(structured) = done.structured.clone() else {
            return error_result(
                body,
                era,
                format_args!(
                    "Tool {name} declares an outputSchema but returned no structuredContent"
                ),
            );
        };
        let verdict = {
            let written = body.get(..done.len).unwrap_or_default();
            let value = match structured {
                // Written by the crate's serializer just now (`Output::structured`): JSON by
                // construction, so it is not parsed again; the schema check follows.
                Some(range) => written.get(range).and_then(Value::from_serialized),
                None => Value::parse(written)
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
            Err(None) => error_result(
                body,
                era,
                format_args!(
                    "Tool {name} produced a result whose structuredContent cannot be read"
                ),
            ),
            Err(Some(violation)) => error_result(
                body,
                era,
                format_args!(
                    "Tool {name} produced output that violates its outputSchema: {violation}"
                ),
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
    let total = PREFIX.len() + raw_name.len();
    let Some(dst) = buf.get_mut(..total) else {
        return "Unknown tool";
    };
    let (a, b) = dst.split_at_mut(PREFIX.len());
    a.copy_from_slice(PREFIX.as_bytes());
    b.copy_from_slice(raw_name.as_bytes());
    core::str::from_utf8(dst).unwrap_or("Unknown tool")
}
