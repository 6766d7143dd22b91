//! [`ResultWriter`]: a streaming builder of one `CallToolResult` object.

use core::fmt;

use serde::Serialize;

use super::escaping::EscapingSink;
use super::Era;
use crate::json::{self, Describe, EncodeError, Sink, ToJson, Value};

/// `{"structuredContent":`
pub(crate) const STRUCTURED_HEAD: &[u8] = b"{\"structuredContent\":";
/// Between the structured JSON and its escaped copy in the text block.
pub(crate) const TEXT_BLOCK_HEAD: &[u8] = b",\"content\":[{\"type\":\"text\",\"text\":\"";
/// Opens the content array of a result without structured content.
const CONTENT_HEAD: &[u8] = b"{\"content\":[";
/// Opens the legacy wrapper of a non-object value.
pub(crate) const WRAP_HEAD: &[u8] = b"{\"result\":";

/// What a structured value is made of: something serde serialises, or checked JSON text.
pub(crate) trait Payload {
    /// Writes the value as compact JSON.
    fn write<S: Sink + ?Sized>(&self, sink: &mut S) -> Result<(), EncodeError>;
    /// True when the value's JSON is an object (needed before writing, for the legacy wrap).
    fn is_object(&self) -> Result<bool, EncodeError>;
}

/// A `T: Serialize` as a payload.
pub(crate) struct Ser<'t, T: ?Sized>(pub(crate) &'t T);

impl<T: Serialize + ?Sized> Payload for Ser<'_, T> {
    fn write<S: Sink + ?Sized>(&self, sink: &mut S) -> Result<(), EncodeError> {
        json::to_sink(self.0, sink)
    }

    fn is_object(&self) -> Result<bool, EncodeError> {
        // Below 64 bits through `dyn Sink`, like `with_payload`: the same serializer copy.
        #[cfg(not(target_pointer_width = "64"))]
        return probe_is_object(&mut |probe| json::to_sink(self.0, probe));
        #[cfg(target_pointer_width = "64")]
        {
            let mut probe = FirstByte(None);
            let result = json::to_sink(self.0, &mut probe);
            probe.verdict(result)
        }
    }
}

/// Below 64 bits: whether what `write` writes first is `{`, one copy for every payload type.
#[cfg(not(target_pointer_width = "64"))]
#[inline(never)]
fn probe_is_object(
    write: &mut dyn FnMut(&mut dyn Sink) -> Result<(), EncodeError>,
) -> Result<bool, EncodeError> {
    let mut probe = FirstByte(None);
    let result = write(&mut probe);
    probe.verdict(result)
}

/// Records the first byte written, then stops the serializer (with [`EncodeError::Sink`]).
struct FirstByte(Option<u8>);

impl FirstByte {
    /// Whether the value written was an object, given the writer's result.
    fn verdict(self, result: Result<(), EncodeError>) -> Result<bool, EncodeError> {
        match (self.0, result) {
            (Some(first), _) => Ok(first == b'{'),
            (None, Err(e)) => Err(e),
            // A `Serialize` impl that wrote nothing would leave `"structuredContent":` empty.
            (None, Ok(())) => Err(EncodeError::Custom),
        }
    }
}

impl Sink for FirstByte {
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        match bytes.first() {
            Some(&b) => {
                self.0 = Some(b);
                Err(EncodeError::Sink)
            }
            None => Ok(()),
        }
    }
}

/// A value that writes its own JSON as a payload.
pub(crate) struct Json<'a>(pub(crate) &'a dyn ToJson);

impl Payload for Json<'_> {
    fn write<S: Sink + ?Sized>(&self, mut sink: &mut S) -> Result<(), EncodeError> {
        self.0.to_json(&mut sink)
    }

    fn is_object(&self) -> Result<bool, EncodeError> {
        let mut probe = FirstByte(None);
        let result = self.0.to_json(&mut probe);
        probe.verdict(result)
    }
}

/// Checked JSON text as a payload, written compactly.
pub(crate) struct Raw<'a>(pub(crate) Value<'a>);

impl Payload for Raw<'_> {
    fn write<S: Sink + ?Sized>(&self, sink: &mut S) -> Result<(), EncodeError> {
        json::write_compact(sink, self.0.raw().as_bytes())
    }

    fn is_object(&self) -> Result<bool, EncodeError> {
        Ok(self.0.kind() == json::Kind::Object)
    }
}

/// Writes a payload, inside `{"result":…}` when `wrap` is set.
pub(super) fn write_payload<P: Payload + ?Sized, S: Sink + ?Sized>(
    sink: &mut S,
    payload: &P,
    wrap: bool,
) -> Result<(), EncodeError> {
    if wrap {
        sink.put(WRAP_HEAD)?;
    }
    payload.write(sink)?;
    if wrap {
        sink.put_byte(b'}')?;
    }
    Ok(())
}

/// A [`Payload`] behind a pointer, for the one `dyn` copy of [`write_structured`].
#[cfg(not(target_pointer_width = "64"))]
trait DynPayload {
    fn write_dyn(&self, sink: &mut dyn Sink) -> Result<(), EncodeError>;
    fn is_object_dyn(&self) -> Result<bool, EncodeError>;
}

#[cfg(not(target_pointer_width = "64"))]
impl<P: Payload + ?Sized> DynPayload for &P {
    fn write_dyn(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        self.write(sink)
    }
    fn is_object_dyn(&self) -> Result<bool, EncodeError> {
        self.is_object()
    }
}

#[cfg(not(target_pointer_width = "64"))]
impl Payload for dyn DynPayload + '_ {
    fn write<S: Sink + ?Sized>(&self, mut sink: &mut S) -> Result<(), EncodeError> {
        let sink: &mut dyn Sink = &mut sink;
        self.write_dyn(sink)
    }
    fn is_object(&self) -> Result<bool, EncodeError> {
        self.is_object_dyn()
    }
}

/// Below 64 bits: the structured part, one copy for every sink and payload.
#[cfg(not(target_pointer_width = "64"))]
#[inline(never)]
fn write_structured(
    sink: &mut dyn Sink,
    payload: &dyn DynPayload,
    era: Era,
) -> Result<(), EncodeError> {
    structured_into(sink, payload, era)
}

/// On 64-bit hosts: the structured part, inlined for each sink and payload.
#[cfg(target_pointer_width = "64")]
fn write_structured<P: Payload + ?Sized, S: Sink + ?Sized>(
    sink: &mut S,
    payload: &P,
    era: Era,
) -> Result<(), EncodeError> {
    structured_into(sink, payload, era)
}

/// `"structuredContent":` the payload, then the text block holding its escaped copy (the
/// payload is written twice: a sink cannot be read back).
fn structured_into<P: Payload + ?Sized, S: Sink + ?Sized>(
    sink: &mut S,
    payload: &P,
    era: Era,
) -> Result<(), EncodeError> {
    let wrap = era == Era::Legacy && !payload.is_object()?;
    sink.put(STRUCTURED_HEAD)?;
    write_payload(sink, payload, wrap)?;
    sink.put(TEXT_BLOCK_HEAD)?;
    write_payload(&mut EscapingSink::new(&mut *sink), payload, wrap)?;
    sink.put(b"\"}")
}

/// Where the writer is in the result object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing written yet.
    Fresh,
    /// Inside the content array with no block yet.
    Empty,
    /// Inside the content array after at least one block.
    Blocks,
}

/// A streaming builder of one `CallToolResult` object (see the [layout](super#byte-layout)).
///
/// Blocks are written as they are added; nothing is buffered. [`ResultWriter::finish`] writes
/// the closing part and must be called, else the output is incomplete. After any error the
/// output is incomplete too and must be discarded.
///
/// ```
/// use embedded_mcp::json::SliceSink;
/// use embedded_mcp::result::{Era, ResultWriter};
///
/// let mut buf = [0u8; 256];
/// let mut sink = SliceSink::new(&mut buf);
/// let mut w = ResultWriter::with_structured(&mut sink, Era::Stateless, &[1, 2])?;
/// w.image("iVBORw0KGgo=", "image/png")?;
/// w.finish()?;
/// let n = sink.finish()?;
/// assert_eq!(
///     &buf[..n],
///     br#"{"structuredContent":[1,2],"content":[{"type":"text","text":"[1,2]"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"resultType":"complete"}"#
/// );
/// # Ok::<(), embedded_mcp::json::EncodeError>(())
/// ```
#[derive(Debug)]
pub struct ResultWriter<'s, S: Sink + ?Sized> {
    sink: &'s mut S,
    era: Era,
    state: State,
    is_error: bool,
}

impl<'s, S: Sink + ?Sized> ResultWriter<'s, S> {
    /// A writer of a result without structured content. Nothing is written until a block is
    /// added or the writer is finished (`{"content":[]}` when no block is added).
    pub fn new(sink: &'s mut S, era: Era) -> Self {
        Self {
            sink,
            era,
            state: State::Fresh,
            is_error: false,
        }
    }

    /// A writer that has written `value` as `structuredContent` and as the first `text` block.
    ///
    /// `value` is serialised twice (a sink cannot be read back), so its `Serialize` impl must
    /// write the same JSON both times, as derived impls do. For [`Era::Legacy`] a value whose
    /// JSON is not an object is wrapped as `{"result": value}`.
    pub fn with_structured<T: Serialize + ?Sized>(
        sink: &'s mut S,
        era: Era,
        value: &T,
    ) -> Result<Self, EncodeError> {
        Self::with_payload(sink, era, &Ser(value))
    }

    /// Like [`ResultWriter::with_structured`] for a value that is JSON already; it is written
    /// without the whitespace between its tokens.
    pub fn with_structured_raw(
        sink: &'s mut S,
        era: Era,
        value: Value<'_>,
    ) -> Result<Self, EncodeError> {
        Self::with_payload(sink, era, &Raw(value))
    }

    pub(crate) fn with_payload<P: Payload + ?Sized>(
        sink: &'s mut S,
        era: Era,
        payload: &P,
    ) -> Result<Self, EncodeError> {
        // Below 64 bits (microcontrollers), one copy of the whole structured part for every
        // sink and payload type, through `dyn Sink` and `dyn DynPayload` (`&mut S` is a sized
        // sink, `&P` a sized payload): flash first (a copy per sink type was about 0.7 KB per
        // result type on a Cortex-M3, and one per payload type about 100 bytes). On 64-bit
        // hosts, inlined for each sink and payload.
        #[cfg(not(target_pointer_width = "64"))]
        {
            let mut plain: &mut S = &mut *sink;
            write_structured(&mut plain, &payload, era)?;
        }
        #[cfg(target_pointer_width = "64")]
        write_structured(&mut *sink, payload, era)?;
        Ok(Self {
            sink,
            era,
            state: State::Blocks,
            is_error: false,
        })
    }

    /// A writer continuing a result whose content array is open and holds a block already.
    pub(crate) fn after_blocks(sink: &'s mut S, era: Era) -> Self {
        Self {
            sink,
            era,
            state: State::Blocks,
            is_error: false,
        }
    }

    /// Marks the result as a tool error (`"isError":true`) or not (the default).
    pub fn set_error(&mut self, is_error: bool) {
        self.is_error = is_error;
    }

    /// Opens a block: the content array first if needed, else the comma.
    fn open_block(&mut self) -> Result<(), EncodeError> {
        match self.state {
            State::Fresh => self.sink.put(CONTENT_HEAD)?,
            State::Empty => {}
            State::Blocks => self.sink.put_byte(b',')?,
        }
        self.state = State::Blocks;
        Ok(())
    }

    /// Writes `,"key":"value"` with `value` escaped.
    fn member(&mut self, key: &[u8], value: &str) -> Result<(), EncodeError> {
        self.sink.put(key)?;
        json::write_string(self.sink, value)
    }

    /// Adds a `text` block.
    pub fn text(&mut self, text: &str) -> Result<(), EncodeError> {
        self.open_block()?;
        self.sink.put(b"{\"type\":\"text\",\"text\":")?;
        json::write_string(self.sink, text)?;
        self.sink.put_byte(b'}')
    }

    /// Adds a `text` block with `text`'s [`Describe`] text, escaped in place (no buffer, no
    /// `core::fmt`).
    pub fn text_of(&mut self, text: &dyn Describe) -> Result<(), EncodeError> {
        self.open_block()?;
        self.sink.put(b"{\"type\":\"text\",\"text\":\"")?;
        // Below 64 bits through `dyn Sink`: the escaping adapter of the structured part.
        #[cfg(not(target_pointer_width = "64"))]
        let mut inner: &mut S = &mut *self.sink;
        #[cfg(not(target_pointer_width = "64"))]
        let inner: &mut dyn Sink = &mut inner;
        #[cfg(target_pointer_width = "64")]
        let inner = &mut *self.sink;
        text.describe(&mut EscapingSink::new(inner))?;
        self.sink.put(b"\"}")
    }

    /// Adds a `text` block formatted in place (no buffer), for example
    /// `w.text_fmt(format_args!("sensor {id} timed out"))`.
    pub fn text_fmt(&mut self, args: fmt::Arguments<'_>) -> Result<(), EncodeError> {
        self.open_block()?;
        self.sink.put(b"{\"type\":\"text\",\"text\":\"")?;
        let mut out = FmtEscaper {
            sink: EscapingSink::new(&mut *self.sink),
            failed: None,
        };
        if fmt::write(&mut out, args).is_err() {
            return Err(out.failed.unwrap_or(EncodeError::Custom));
        }
        self.sink.put(b"\"}")
    }

    /// Adds an `image` block; `base64` is the image already encoded as base64.
    pub fn image(&mut self, base64: &str, mime_type: &str) -> Result<(), EncodeError> {
        self.media(b"{\"type\":\"image\",\"data\":", base64, mime_type)
    }

    /// Adds an `audio` block; `base64` is the audio already encoded as base64.
    pub fn audio(&mut self, base64: &str, mime_type: &str) -> Result<(), EncodeError> {
        self.media(b"{\"type\":\"audio\",\"data\":", base64, mime_type)
    }

    /// Adds an `image` block from raw bytes, base64-encoded on the way out (no buffer).
    pub fn image_bytes(&mut self, data: &[u8], mime_type: &str) -> Result<(), EncodeError> {
        self.media_bytes(b"{\"type\":\"image\",\"data\":\"", data, mime_type)
    }

    /// Adds an `audio` block from raw bytes, base64-encoded on the way out (no buffer).
    pub fn audio_bytes(&mut self, data: &[u8], mime_type: &str) -> Result<(), EncodeError> {
        self.media_bytes(b"{\"type\":\"audio\",\"data\":\"", data, mime_type)
    }

    fn media(&mut self, head: &[u8], base64: &str, mime_type: &str) -> Result<(), EncodeError> {
        self.open_block()?;
        self.sink.put(head)?;
        json::write_string(self.sink, base64)?;
        self.member(b",\"mimeType\":", mime_type)?;
        self.sink.put_byte(b'}')
    }

    fn media_bytes(
        &mut self,
        head: &[u8],
        data: &[u8],
        mime_type: &str,
    ) -> Result<(), EncodeError> {
        self.open_block()?;
        self.sink.put(head)?;
        write_base64(self.sink, data)?;
        self.sink.put_byte(b'"')?;
        self.member(b",\"mimeType\":", mime_type)?;
        self.sink.put_byte(b'}')
    }

    /// Adds a `resource_link` block; `mime_type` and `description` are left out when `None`.
    pub fn resource_link(
        &mut self,
        uri: &str,
        name: &str,
        mime_type: Option<&str>,
        description: Option<&str>,
    ) -> Result<(), EncodeError> {
        self.open_block()?;
        self.sink.put(b"{\"type\":\"resource_link\",\"uri\":")?;
        json::write_string(self.sink, uri)?;
        self.member(b",\"name\":", name)?;
        if let Some(mime_type) = mime_type {
            self.member(b",\"mimeType\":", mime_type)?;
        }
        if let Some(description) = description {
            self.member(b",\"description\":", description)?;
        }
        self.sink.put_byte(b'}')
    }

    /// Adds an embedded `resource` block with text contents
    /// (`{"type":"resource","resource":{"uri":…,"mimeType":…,"text":…}}`); `mime_type` is left
    /// out when `None`.
    pub fn resource_text(
        &mut self,
        uri: &str,
        mime_type: Option<&str>,
        text: &str,
    ) -> Result<(), EncodeError> {
        self.open_block()?;
        self.sink
            .put(b"{\"type\":\"resource\",\"resource\":{\"uri\":")?;
        json::write_string(self.sink, uri)?;
        if let Some(mime_type) = mime_type {
            self.member(b",\"mimeType\":", mime_type)?;
        }
        self.member(b",\"text\":", text)?;
        self.sink.put(b"}}")
    }

    /// Writes the end of the result: closes the content array, then `isError` and `resultType`
    /// as the flags and era ask.
    pub fn finish(mut self) -> Result<(), EncodeError> {
        if self.state == State::Fresh {
            self.sink.put(CONTENT_HEAD)?;
            self.state = State::Empty;
        }
        self.sink.put(self.era.tail(self.is_error))
    }
}

/// `core::fmt::Write` into an escaping sink, keeping the sink's own error.
struct FmtEscaper<'a, S: Sink + ?Sized> {
    sink: EscapingSink<'a, S>,
    failed: Option<EncodeError>,
}

impl<S: Sink + ?Sized> fmt::Write for FmtEscaper<'_, S> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.sink.put(s.as_bytes()).map_err(|e| {
            self.failed = Some(e);
            fmt::Error
        })
    }
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Writes `data` as standard base64 with padding (RFC 4648 section 4).
fn write_base64<S: Sink + ?Sized>(sink: &mut S, data: &[u8]) -> Result<(), EncodeError> {
    let sym = |v: u32| BASE64.get((v & 0x3f) as usize).copied().unwrap_or(b'=');
    for chunk in data.chunks(3) {
        let b0 = u32::from(chunk.first().copied().unwrap_or(0));
        let b1 = u32::from(chunk.get(1).copied().unwrap_or(0));
        let b2 = u32::from(chunk.get(2).copied().unwrap_or(0));
        let n = (b0 << 16) | (b1 << 8) | b2;
        let mut out = [sym(n >> 18), sym(n >> 12), sym(n >> 6), sym(n)];
        if chunk.len() < 3 {
            out[3] = b'=';
        }
        if chunk.len() < 2 {
            out[2] = b'=';
        }
        sink.put(&out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{CountingSink, SliceSink};

    fn run(f: impl Fn(&mut dyn Sink) -> Result<(), EncodeError>) -> std::string::String {
        let mut buf = [0u8; 1024];
        let mut sink = SliceSink::new(&mut buf);
        f(&mut sink).unwrap();
        let n = sink.finish().unwrap();
        let mut count = CountingSink::default();
        f(&mut count).unwrap();
        assert_eq!(count.count, n, "counting sink agrees");
        std::string::String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    #[test]
    fn empty_results() {
        let out = run(|s| ResultWriter::new(s, Era::Legacy).finish());
        assert_eq!(out, r#"{"content":[]}"#);
        let out = run(|s| ResultWriter::new(s, Era::Stateless).finish());
        assert_eq!(out, r#"{"content":[],"resultType":"complete"}"#);
    }

    #[test]
    fn every_block_kind() {
        let out = run(|s| {
            let mut w = ResultWriter::new(s, Era::Legacy);
            w.text("a\"b\n")?;
            w.text_fmt(format_args!("{}-{}\t", 7, "x\\"))?;
            w.image("AAEC", "image/png")?;
            w.audio("UklG", "audio/wav")?;
            w.image_bytes(b"\x00\x01\x02\xff", "image/jpeg")?;
            w.audio_bytes(b"ab", "audio/mpeg")?;
            w.resource_link(
                "file:///a.csv",
                "a.csv",
                Some("text/csv"),
                Some("log \"1\""),
            )?;
            w.resource_link("https://x.invalid/", "x", None, None)?;
            w.resource_text("test://r", Some("application/json"), r#"{"a":1}"#)?;
            w.resource_text("test://s", None, "s")?;
            w.set_error(true);
            w.finish()
        });
        assert_eq!(
            out,
            concat!(
                r#"{"content":[{"type":"text","text":"a\"b\n"},"#,
                r#"{"type":"text","text":"7-x\\\t"},"#,
                r#"{"type":"image","data":"AAEC","mimeType":"image/png"},"#,
                r#"{"type":"audio","data":"UklG","mimeType":"audio/wav"},"#,
                r#"{"type":"image","data":"AAEC/w==","mimeType":"image/jpeg"},"#,
                r#"{"type":"audio","data":"YWI=","mimeType":"audio/mpeg"},"#,
                r#"{"type":"resource_link","uri":"file:///a.csv","name":"a.csv","mimeType":"text/csv","description":"log \"1\""},"#,
                r#"{"type":"resource_link","uri":"https://x.invalid/","name":"x"},"#,
                r#"{"type":"resource","resource":{"uri":"test://r","mimeType":"application/json","text":"{\"a\":1}"}},"#,
                r#"{"type":"resource","resource":{"uri":"test://s","text":"s"}}],"isError":true}"#
            )
        );
    }

    #[test]
    fn base64_rfc4648_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            let mut buf = [0u8; 16];
            let mut sink = SliceSink::new(&mut buf);
            write_base64(&mut sink, input.as_bytes()).unwrap();
            let n = sink.finish().unwrap();
            assert_eq!(&buf[..n], expected.as_bytes(), "{input:?}");
        }
    }

    #[test]
    fn compacts_raw_json_outside_strings_only() {
        let v = Value::parse(b" { \"a b\" : [ 1 ,\n\t\"x \\\" y\" ] , \"c\":\r\n{} } ").unwrap();
        let mut buf = [0u8; 64];
        let mut sink = SliceSink::new(&mut buf);
        Raw(v).write(&mut sink).unwrap();
        let n = sink.finish().unwrap();
        assert_eq!(&buf[..n], br#"{"a b":[1,"x \" y"],"c":{}}"#);
    }

    #[test]
    fn probe_reports_object_or_error() {
        assert!(Ser(&[("a", 1)]
            .into_iter()
            .collect::<std::collections::BTreeMap<_, _>>())
        .is_object()
        .unwrap());
        assert!(!Ser(&[1, 2]).is_object().unwrap());
        assert!(!Ser("s").is_object().unwrap());
        assert_eq!(Ser(&f32::NAN).is_object(), Err(EncodeError::NonFiniteFloat));
    }
}
