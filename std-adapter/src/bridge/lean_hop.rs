//! The lean hop: the bytes between the bridge and its device, spent on what the device needs.
//!
//! Two pure functions, one per direction, that edit a line by spans and never re-serialise
//! what a peer wrote:
//!
//! - [`for_device`]: a request's `_meta` on its way to the device, marked
//!   `"embedded-mcp/lean":true` ([`LEAN_KEY`]) when it is a 2026-07-28 request or a
//!   `tools/call` of any revision. Of a 2026-07-28 request's
//!   `io.modelcontextprotocol/clientCapabilities` it keeps, for a `tools/call`, the capabilities
//!   a device may ask with (`elicitation`, `sampling`, `roots`; the router always asks for
//!   them: a tool may read them to decide whether to ask a person), none for other methods, and
//!   leaves the member out when nothing is kept (the mark allows it);
//!   `io.modelcontextprotocol/clientInfo` goes once per link. Every other member is copied as
//!   it is. The device answers a marked `tools/call` with the lean result.
//! - [`restore_for_host`]: a lean `tools/call` result (`structuredContent` without `content`) on
//!   its way to the host gets its `content` back, byte for byte what the device writes without
//!   the key: `,"content":[{"type":"text","text":"E(J)"}]` right after `J`, the
//!   `structuredContent` text, `E` the device's own escaping ([`EscapingSink`]), and
//!   `,"resultType":"complete"` after it for a 2026-07-28 request.
//!
//! Only the `_meta` member of a request is rewritten; `arguments` and the rest of the line keep
//! their bytes.

use std::ops::Range;

use embedded_mcp::json::{EncodeError, Limits, Sink, Value};
use embedded_mcp::protocol::{Envelope, CLIENT_CAPABILITIES_KEY, LEAN_KEY, PROTOCOL_VERSION_KEY};
use embedded_mcp::result::EscapingSink;

use super::message::meta::CLIENT_INFO;
use super::message::method::TOOLS_CALL;

/// The client capabilities a device may need during a `tools/call` (to ask the host for input).
const CALL_CAPABILITIES: [&str; 3] = ["elicitation", "sampling", "roots"];
/// What opens the `content` member after `structuredContent`.
const CONTENT_OPEN: &[u8] = b",\"content\":[";
/// What follows `content` in a 2026-07-28 result that is not an error.
const COMPLETE: &[u8] = b",\"resultType\":\"complete\"";
/// The start of a text block, before the escaped text.
const TEXT_BLOCK_OPEN: &[u8] = b"{\"type\":\"text\",\"text\":\"";
/// The end of a text block.
const TEXT_BLOCK_CLOSE: &[u8] = b"\"}";

/// A request edited for the device.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ForDevice {
    /// The edited line, or `None` when it goes as it is.
    pub line: Option<Vec<u8>>,
    /// The line still carries `io.modelcontextprotocol/clientInfo` (the link has it now).
    pub client_info: bool,
    /// The request asks for the lean result ([`restore_for_host`] applies to its answer).
    pub lean: bool,
    /// A `tools/call` whose host declared capabilities a device may ask with, left out
    /// ([`Hop::call_capabilities`] false): a device that needs one answers -32021.
    pub capabilities_left_out: bool,
}

/// What the link knows when a request goes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    /// The link has not had the client's info yet: it goes with this request.
    pub client_info: bool,
    /// A `tools/call` keeps the capabilities a device may ask with (what the router does);
    /// otherwise it goes without any (what the wire-budget bench compares).
    pub call_capabilities: bool,
}

/// The request `line` edited for the device (see the [module](self)).
pub fn for_device(line: &[u8], hop: Hop) -> ForDevice {
    let Ok(envelope) = Envelope::parse(line, Limits::default()) else {
        return ForDevice::default();
    };
    let (Some(_), Some(method), Some(params)) = (envelope.id, envelope.method, envelope.params)
    else {
        return ForDevice::default();
    };
    let call = method.as_str().is_some_and(|m| m.eq_str(TOOLS_CALL));
    let Some(params_at) = span_of(line, params.raw()) else {
        return ForDevice::default();
    };
    let mut out = ForDevice::default();
    let mut edited = Vec::with_capacity(line.len() + LEAN_KEY.len() + 8);
    match envelope.meta.filter(|m| m.members().is_some()) {
        Some(meta) => {
            let Some(at) = span_of(line, meta.raw()) else {
                return ForDevice::default();
            };
            let modern = meta.get(PROTOCOL_VERSION_KEY).is_some();
            let mut object = Members::default();
            for (key, value) in meta.members().into_iter().flatten() {
                if key.eq_str(LEAN_KEY) {
                    continue;
                }
                if modern && key.eq_str(CLIENT_INFO) {
                    if hop.client_info {
                        out.client_info = true;
                        object.raw(key.raw(), value.raw().as_bytes());
                    }
                    continue;
                }
                if modern && key.eq_str(CLIENT_CAPABILITIES_KEY) {
                    let kept = capabilities(value, call && hop.call_capabilities);
                    out.capabilities_left_out =
                        call && !hop.call_capabilities && capabilities(value, true) != b"{}";
                    if kept != b"{}" {
                        object.raw(key.raw(), &kept);
                    }
                    continue;
                }
                object.raw(key.raw(), value.raw().as_bytes());
            }
            if call || modern {
                object.raw(LEAN_KEY, b"true");
            }
            let meta_bytes = object.finish();
            if meta_bytes == meta.raw().as_bytes() {
                out.lean = call;
                return out;
            }
            edited.extend_from_slice(line.get(..at.start).unwrap_or_default());
            edited.extend_from_slice(&meta_bytes);
            edited.extend_from_slice(line.get(at.end..).unwrap_or_default());
        }
        None if call && envelope.meta.is_none() && params.members().is_some() => {
            // `{` of params, then the lean ask, then the host's members.
            let open = params_at.start + 1;
            let empty = params.members().into_iter().flatten().next().is_none();
            edited.extend_from_slice(line.get(..open).unwrap_or_default());
            edited.extend_from_slice(b"\"_meta\":{\"");
            edited.extend_from_slice(LEAN_KEY.as_bytes());
            edited.extend_from_slice(b"\":true}");
            if !empty {
                edited.push(b',');
            }
            edited.extend_from_slice(line.get(open..).unwrap_or_default());
        }
        None => return ForDevice::default(),
    }
    out.lean = call;
    out.line = Some(edited);
    out
}

/// The capabilities kept of `caps` (a copy of its members named in [`CALL_CAPABILITIES`] for a
/// call, `{}` otherwise).
fn capabilities(caps: Value<'_>, call: bool) -> Vec<u8> {
    let mut object = Members::default();
    for (key, value) in caps.members().into_iter().flatten() {
        if call && CALL_CAPABILITIES.iter().any(|c| key.eq_str(c)) {
            object.raw(key.raw(), value.raw().as_bytes());
        }
    }
    object.finish()
}

/// An object written member by member from raw key bodies and raw values.
#[derive(Default)]
struct Members {
    bytes: Vec<u8>,
}

impl Members {
    fn raw(&mut self, key_body: &str, value: &[u8]) {
        self.bytes
            .push(if self.bytes.is_empty() { b'{' } else { b',' });
        self.bytes.push(b'"');
        self.bytes.extend_from_slice(key_body.as_bytes());
        self.bytes.extend_from_slice(b"\":");
        self.bytes.extend_from_slice(value);
    }

    fn finish(mut self) -> Vec<u8> {
        if self.bytes.is_empty() {
            self.bytes.push(b'{');
        }
        self.bytes.push(b'}');
        self.bytes
    }
}

/// The device's answer `line` to a lean `tools/call` with its `content` put back (and, when the
/// request was a 2026-07-28 one, `stateless`, its `"resultType":"complete"`), or `None` when it
/// needs nothing: an error, or a result without `structuredContent`, or one with `content` (a
/// device that sent the whole result). The mark of a lean result is a `structuredContent`
/// without `content`, which the protocol requires.
pub fn restore_for_host(line: &[u8], stateless: bool) -> Option<Vec<u8>> {
    let message = Value::parse(line).ok()?;
    let result = message.get("result")?;
    if result.get("content").is_some() {
        return None;
    }
    let structured = result.get("structuredContent")?;
    let twin = text_twin(structured.raw().as_bytes());
    let at = span_of(line, structured.raw())?.end;
    let mut full = Vec::with_capacity(line.len() + twin.len() + CONTENT_OPEN.len() + 1);
    full.extend_from_slice(line.get(..at)?);
    full.extend_from_slice(CONTENT_OPEN);
    full.extend_from_slice(&twin);
    full.push(b']');
    if stateless && result.get("resultType").is_none() {
        full.extend_from_slice(COMPLETE);
    }
    full.extend_from_slice(line.get(at..)?);
    Some(full)
}

/// The text block holding `json` as a string, escaped as the device escapes it.
pub fn text_twin(json: &[u8]) -> Vec<u8> {
    let mut block = VecSink(Vec::with_capacity(json.len() + json.len() / 4 + 32));
    block.0.extend_from_slice(TEXT_BLOCK_OPEN);
    // A `Vec` takes every byte: the escaping cannot fail.
    let _ = EscapingSink::new(&mut block).put(json);
    block.0.extend_from_slice(TEXT_BLOCK_CLOSE);
    block.0
}

/// A sink appending to a `Vec`.
struct VecSink(Vec<u8>);

impl Sink for VecSink {
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}

/// Where `part` (a slice of `line`'s text) is in `line`.
fn span_of(line: &[u8], part: &str) -> Option<Range<usize>> {
    let start = (part.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= line.len()).then_some(start..end)
}

#[cfg(test)]
mod tests;
