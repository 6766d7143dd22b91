//! What a tool handler sees and how it answers.

use core::fmt;
use core::ops::Range;

use serde::de::Deserialize;
use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::json::{
    self, DecodeError, Describe, EncodeError, Piece, Sink, SliceSink, ToJson, Value,
};
use crate::protocol::{parse_value, Version};
use crate::result::{self, Era, Payload, ResultWriter};

use super::Tool;

/// One `tools/call`, as the handler sees it: which tool, and its checked arguments.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub(crate) tool: &'a Tool,
    pub(crate) index: usize,
    pub(crate) arguments: Value<'a>,
    pub(crate) version: Version,
    /// The request's `params` (for what the engine does not read itself, such as the answers
    /// of a multi-round-trip request).
    #[cfg(feature = "approval")]
    pub(crate) params: Option<Value<'a>>,
}

impl<'a> Call<'a> {
    /// The tool's name (dispatch on it with `match`).
    pub fn name(&self) -> &'a str {
        self.tool.name
    }

    /// The tool's definition.
    pub fn tool(&self) -> &'a Tool {
        self.tool
    }

    /// The tool's index in the server's tool array.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The arguments object (`{}` when the request had none). It has passed the tool's
    /// `inputSchema` when the server has a compiled validator for it.
    pub fn arguments(&self) -> Value<'a> {
        self.arguments
    }

    /// Deserialises the arguments into `T`. Strings with escapes are decoded into `scratch`
    /// (pass `&mut []` when `T` borrows no strings, or owns them, as `heapless::String` does).
    pub fn parse<'s, T: Deserialize<'s>>(&self, scratch: &'s mut [u8]) -> Result<T, DecodeError>
    where
        'a: 's,
    {
        json::from_value(self.arguments, scratch)
    }

    /// The protocol revision of this request.
    pub fn version(&self) -> Version {
        self.version
    }
}

/// How structured output must be shaped for this request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// 2026-07-28, or a tool without `outputSchema`: as the codec does it.
    Any,
    /// Legacy peer, output schema with an object root: the value must be an object.
    Object,
    /// Legacy peer, output schema with another root: wrapped as `{"result": value}` always.
    Wrap,
}

/// Where a handler writes its result. Consumed by the one method that writes it, which returns
/// the [`Done`] token the handler hands back.
///
/// Results are written by the codec of [`crate::result`]; a structured result carries the same
/// JSON in `structuredContent` and in a `text` block. The engine checks `structuredContent`
/// against the tool's `outputSchema` before anything is sent.
#[derive(Debug)]
pub struct Output<'o> {
    buf: &'o mut [u8],
    era: Era,
    shape: Shape,
}

/// Proof that a handler wrote its result (only [`Output`] makes one).
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "return the Done token from the handler"]
pub struct Done {
    pub(crate) len: usize,
    /// Range of `structuredContent` in the buffer; `Some(None)`: present, locate by parsing.
    pub(crate) structured: Option<Option<Range<usize>>>,
    pub(crate) is_error: bool,
    pub(crate) failure: Option<Failure>,
    /// An `input_required` result (2026-07-28): not a tool's output, so not checked against
    /// its `outputSchema`.
    pub(crate) input_required: bool,
}

/// Why a result could not be written as the handler asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The codec failed (buffer too small, non-finite float, ...).
    Encode(EncodeError),
    /// A legacy peer needs an object and the value is not one.
    NotAnObject,
    /// The call needs an input request whose capability the request did not declare: the
    /// response is the -32021 error naming it.
    #[cfg(feature = "approval")]
    MissingCapability(super::capability::Capability),
    /// The call's `requestState` failed its integrity check: the response is -32602.
    #[cfg(feature = "approval")]
    BadRequestState,
    /// The call failed below the tool's level: the response is the -32603 error with this
    /// message.
    Internal(&'static str),
}

impl Done {
    pub(crate) fn failed(failure: Failure) -> Self {
        Self {
            len: 0,
            structured: None,
            is_error: false,
            failure: Some(failure),
            input_required: false,
        }
    }

    /// An `input_required` result of `len` bytes.
    #[cfg(feature = "approval")]
    pub(crate) fn input_required(len: usize) -> Self {
        Self {
            len,
            structured: None,
            is_error: false,
            failure: None,
            input_required: true,
        }
    }

    fn from_encoded(r: Result<result::Encoded, EncodeError>, is_error: bool) -> Self {
        match r {
            Ok(e) => Self {
                len: e.len,
                structured: e.structured.map(Some),
                is_error,
                failure: None,
                input_required: false,
            },
            Err(e) => Self::failed(Failure::Encode(e)),
        }
    }
}

/// Serialises `value` as `{"result": value}`.
struct Wrapped<'t, T: ?Sized>(&'t T);

impl<T: Serialize + ?Sized> Serialize for Wrapped<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("result", self.0)?;
        map.end()
    }
}

/// Writes a value as `{"result": value}`.
struct WrappedJson<'t>(&'t dyn ToJson);

impl ToJson for WrappedJson<'_> {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        sink.put(b"{\"result\":")?;
        self.0.to_json(sink)?;
        sink.put_byte(b'}')
    }
}

/// True when `value` serialises to a JSON object (the codec's probe: only its first byte is
/// produced; a value that fails before writing anything is not an object).
fn serializes_to_object<T: Serialize + ?Sized>(value: &T) -> bool {
    result::Ser(value).is_object().unwrap_or(false)
}

impl<'o> Output<'o> {
    pub(crate) fn new(buf: &'o mut [u8], era: Era, shape: Shape) -> Self {
        Self { buf, era, shape }
    }

    /// The buffer itself (for the engine's own error results).
    pub(crate) fn into_buf(self) -> &'o mut [u8] {
        self.buf
    }

    /// The result era of this request (legacy 2025 peers or 2026-07-28).
    pub fn era(&self) -> Era {
        self.era
    }

    /// Bytes available for the result.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// A structured result: `value` as `structuredContent` and as JSON text in a `text` block.
    pub fn structured<T: Serialize + ?Sized>(self, value: &T) -> Done {
        self.structured_json(&json::Serde(value))
    }

    /// [`Output::structured`] for a value that writes its own JSON ([`ToJson`], as
    /// `#[derive(McpSchema)]` types do; the typed tools answer through it): one copy of the
    /// result writer for every value type.
    #[inline(never)]
    pub fn structured_json(self, value: &dyn ToJson) -> Done {
        let wrapped;
        let value = match self.shape {
            Shape::Wrap => {
                wrapped = WrappedJson(value);
                &wrapped as &dyn ToJson
            }
            Shape::Object if !result::Json(value).is_object().unwrap_or(false) => {
                return Done::failed(Failure::NotAnObject)
            }
            _ => value,
        };
        Done::from_encoded(
            result::encode_structured_json(self.buf, self.era, value),
            false,
        )
    }

    /// A structured result followed by more content blocks written by `more` (for example an
    /// image or a resource link).
    pub fn structured_with<T: Serialize + ?Sized>(
        self,
        value: &T,
        more: impl FnOnce(&mut ResultWriter<'_, SliceSink<'_>>) -> Result<(), EncodeError>,
    ) -> Done {
        if self.shape == Shape::Object && !serializes_to_object(value) {
            return Done::failed(Failure::NotAnObject);
        }
        let era = self.era;
        let wrap = self.shape == Shape::Wrap;
        let mut sink = SliceSink::new(self.buf);
        let written = (|| {
            let mut w = if wrap {
                ResultWriter::with_structured(&mut sink, era, &Wrapped(value))?
            } else {
                ResultWriter::with_structured(&mut sink, era, value)?
            };
            more(&mut w)?;
            w.finish()
        })();
        match written.and_then(|()| sink.finish()) {
            Ok(len) => Done {
                len,
                structured: Some(None),
                is_error: false,
                failure: None,
                input_required: false,
            },
            Err(e) => Done::failed(Failure::Encode(e)),
        }
    }

    /// A result with one `text` block and no structured content.
    pub fn text(self, text: &str) -> Done {
        Done::from_encoded(result::encode_text(self.buf, self.era, text), false)
    }

    /// A tool error (`isError: true`) with `message` as its text.
    pub fn error(self, message: &str) -> Done {
        Done::from_encoded(result::encode_error(self.buf, self.era, message), true)
    }

    /// A protocol-level failure (a driver fault, a broken invariant): the response is the
    /// JSON-RPC error -32603 (Internal error) with `message`, not a result. A tool that ran and
    /// failed answers [`Output::error`] instead.
    pub fn internal_error(self, message: &'static str) -> Done {
        Done::failed(Failure::Internal(message))
    }

    /// A tool error whose message is `error`'s [`ToolFailure`] text (no `core::fmt` for
    /// [`ToolError`] and other types that write their text themselves).
    pub fn failure<E: ToolFailure + ?Sized>(self, error: &E) -> Done {
        self.error_of(&Failed(error))
    }

    /// A tool error whose message is `message`'s text, written in place.
    pub fn error_of(self, message: &dyn Describe) -> Done {
        self.error_with(|w| w.text_of(message))
    }

    /// A tool error whose message is formatted in place, for example
    /// `out.error_fmt(format_args!("sensor {n} timed out"))`.
    pub fn error_fmt(self, args: fmt::Arguments<'_>) -> Done {
        self.error_with(|w| w.text_fmt(args))
    }

    /// A tool error whose one text block `text` writes.
    fn error_with(
        self,
        text: impl FnOnce(&mut ResultWriter<'_, SliceSink<'_>>) -> Result<(), EncodeError>,
    ) -> Done {
        let era = self.era;
        let mut sink = SliceSink::new(self.buf);
        let written = (|| {
            let mut w = ResultWriter::new(&mut sink, era);
            text(&mut w)?;
            w.set_error(true);
            w.finish()
        })();
        match written.and_then(|()| sink.finish()) {
            Ok(len) => Done {
                len,
                structured: None,
                is_error: true,
                failure: None,
                input_required: false,
            },
            Err(e) => Done::failed(Failure::Encode(e)),
        }
    }

    /// A result without structured content, built block by block (`text`, `image`, `audio`,
    /// `resource_link`, `resource_text`; `set_error(true)` makes it a tool error).
    pub fn blocks(
        self,
        build: impl FnOnce(&mut ResultWriter<'_, SliceSink<'_>>) -> Result<(), EncodeError>,
    ) -> Done {
        let era = self.era;
        let mut sink = SliceSink::new(&mut *self.buf);
        let written = (|| {
            let mut w = ResultWriter::new(&mut sink, era);
            build(&mut w)?;
            w.finish()
        })();
        match written.and_then(|()| sink.finish()) {
            Ok(len) => {
                // The writer does not report its flag: read it back from what it wrote.
                let is_error = self
                    .buf
                    .get(..len)
                    .and_then(|b| parse_value(b, json::Limits::default()).ok())
                    .and_then(|v| v.get("isError"))
                    .and_then(|v| v.as_bool())
                    .unwrap_or(false);
                Done {
                    len,
                    structured: None,
                    is_error,
                    failure: None,
                    input_required: false,
                }
            }
            Err(e) => Done::failed(Failure::Encode(e)),
        }
    }
}

/// What a handler's error must be: `Display` (for logs) and the text of the `isError` result.
///
/// [`ToolFailure::write_message`] writes that text; by default it is the `Display` text,
/// formatted through `core::fmt`. [`ToolError`], `&'static str`, `Infallible` and the JSON layer's
/// errors write theirs without `core::fmt`, which keeps it (about 1.5 KB of flash on a Cortex-M)
/// out of firmware whose own code does not format either. For an error type of your own,
/// `impl ToolFailure for MyError {}` takes the default; write the text with
/// [`Piece`](crate::json::Piece)s to avoid `core::fmt`.
pub trait ToolFailure: fmt::Display {
    /// Writes the message (UTF-8, not escaped: the engine escapes it) to `out`.
    fn write_message(&self, out: &mut dyn Sink) -> Result<(), EncodeError> {
        json::describe_displayed(&Shown(self), out)
    }
}

/// A `?Sized` `Display` value as a `dyn Display`.
struct Shown<'a, T: ?Sized>(&'a T);

impl<T: fmt::Display + ?Sized> fmt::Display for Shown<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A [`ToolFailure`] as a [`Describe`] value.
pub(crate) struct Failed<'a, E: ?Sized>(pub(crate) &'a E);

impl<E: ToolFailure + ?Sized> Describe for Failed<'_, E> {
    fn describe(&self, out: &mut dyn Sink) -> Result<(), EncodeError> {
        self.0.write_message(out)
    }
}

impl ToolFailure for &str {
    fn write_message(&self, out: &mut dyn Sink) -> Result<(), EncodeError> {
        out.put(self.as_bytes())
    }
}

impl ToolFailure for core::convert::Infallible {
    fn write_message(&self, _: &mut dyn Sink) -> Result<(), EncodeError> {
        match *self {}
    }
}

impl ToolFailure for DecodeError {
    fn write_message(&self, out: &mut dyn Sink) -> Result<(), EncodeError> {
        self.describe(out)
    }
}

impl ToolFailure for EncodeError {
    fn write_message(&self, out: &mut dyn Sink) -> Result<(), EncodeError> {
        self.describe(out)
    }
}

/// The device side of `tools/call`: plain Rust, one method for all tools.
///
/// The handler dispatches on [`Call::name`], reads its arguments ([`Call::parse`]), and writes
/// one result through [`Output`]. Returning `Err(e)` makes an `isError: true` result whose text
/// is `e`'s [`ToolFailure`] text (never a protocol error), as does [`Output::error`].
///
/// Closures `FnMut(&Call, Output) -> Result<Done, E>` are handlers too.
pub trait Handler {
    /// The handler's failure; its [`ToolFailure`] text becomes the `isError` result's message.
    type Error: ToolFailure;

    /// Runs one call.
    fn call(&mut self, call: &Call<'_>, out: Output<'_>) -> Result<Done, Self::Error>;
}

impl<F, E> Handler for F
where
    F: FnMut(&Call<'_>, Output<'_>) -> Result<Done, E>,
    E: ToolFailure,
{
    type Error = E;

    fn call(&mut self, call: &Call<'_>, out: Output<'_>) -> Result<Done, E> {
        self(call, out)
    }
}

/// A ready-made handler error for firmware that has no error type of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ToolError {
    /// A fixed message.
    Message(&'static str),
    /// The arguments did not deserialise into the handler's type.
    Arguments(DecodeError),
    /// No handler code for this tool name (a definition without an implementation).
    NotImplemented,
}

impl ToolFailure for ToolError {
    fn write_message(&self, out: &mut dyn Sink) -> Result<(), EncodeError> {
        match self {
            Self::Message(m) => out.put(m.as_bytes()),
            Self::Arguments(e) => {
                [Piece::Text("invalid arguments: "), Piece::Of(e)][..].describe(out)
            }
            Self::NotImplemented => out.put(b"this tool is not implemented"),
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        json::fmt_described(&Failed(self), f)
    }
}

impl core::error::Error for ToolError {}

impl From<DecodeError> for ToolError {
    fn from(e: DecodeError) -> Self {
        Self::Arguments(e)
    }
}

impl From<&'static str> for ToolError {
    fn from(m: &'static str) -> Self {
        Self::Message(m)
    }
}
