//! One-shot encoders of whole results: into a slice (serialise once, copy escaped) or into any
//! sink (serialise twice).

use core::ops::Range;

use serde::Serialize;

use super::escaping::{escape_into, TwiceCount};
use super::writer::{
    write_payload, Json, Payload, Raw, ResultWriter, Ser, STRUCTURED_HEAD, TEXT_BLOCK_HEAD,
    WRAP_HEAD,
};
use super::Era;
use crate::json::{self, move_within, CountingSink, EncodeError, Sink, SliceSink, ToJson, Value};

/// What a one-shot encoder wrote into the caller's buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Encoded {
    /// Bytes written: the result is `buf[..len]`.
    pub len: usize,
    /// Where the raw JSON of `structuredContent` is in the buffer (`None` when there is none).
    /// For [`Era::Legacy`] with a non-object value this is the whole `{"result":…}` wrapper,
    /// which is what the tool's advertised (wrapped) output schema describes.
    pub structured: Option<Range<usize>>,
}

/// Encodes a structured result of `value` into `buf` (see the [layout](super#byte-layout)).
///
/// The value is serialised once, into `structuredContent`, and then copied escaped into the
/// text block, so the two channels cannot differ. When `buf` is too small the error is
/// [`EncodeError::BufferTooSmall`] with the exact size needed (found by counting, without
/// storing); a NaN or infinite float is [`EncodeError::NonFiniteFloat`].
///
/// ```
/// use embedded_mcp::result::{encode_structured, Era};
///
/// #[derive(serde::Serialize)]
/// struct Reading { t: f32 }
///
/// let mut buf = [0u8; 128];
/// let done = encode_structured(&mut buf, Era::Legacy, &Reading { t: 21.5 })?;
/// assert_eq!(
///     &buf[..done.len],
///     br#"{"structuredContent":{"t":21.5},"content":[{"type":"text","text":"{\"t\":21.5}"}]}"#
/// );
/// assert_eq!(&buf[done.structured.unwrap()], br#"{"t":21.5}"#);
/// # Ok::<(), embedded_mcp::json::EncodeError>(())
/// ```
pub fn encode_structured<T: Serialize + ?Sized>(
    buf: &mut [u8],
    era: Era,
    value: &T,
) -> Result<Encoded, EncodeError> {
    encode_payload(buf, era, &Ser(value), |rest| json::to_slice(value, rest))
}

/// Like [`encode_structured`] for a value that writes its own JSON ([`ToJson`], as
/// `#[derive(McpSchema)]` types do): one non-generic copy for every value type, the same bytes.
pub fn encode_structured_json(
    buf: &mut [u8],
    era: Era,
    value: &dyn ToJson,
) -> Result<Encoded, EncodeError> {
    encode_payload(buf, era, &Json(value), |rest| {
        let mut sink = SliceSink::new(rest);
        value.to_json(&mut sink)?;
        sink.finish()
    })
}

/// Like [`encode_structured`] for a value that is JSON already. It is written without the
/// whitespace between its tokens (a message must not contain raw line feeds).
pub fn encode_structured_raw(
    buf: &mut [u8],
    era: Era,
    json: Value<'_>,
) -> Result<Encoded, EncodeError> {
    let payload = Raw(json);
    encode_payload(buf, era, &payload, |rest| {
        let mut sink = SliceSink::new(rest);
        payload.write(&mut sink)?;
        sink.finish()
    })
}

/// Encodes an error result: one `text` block holding `message`, and `"isError":true`.
///
/// ```
/// use embedded_mcp::result::{encode_error, Era};
///
/// let mut buf = [0u8; 128];
/// let done = encode_error(&mut buf, Era::Stateless, "sensor \"t0\" timed out")?;
/// assert_eq!(
///     &buf[..done.len],
///     br#"{"content":[{"type":"text","text":"sensor \"t0\" timed out"}],"isError":true,"resultType":"complete"}"#
/// );
/// # Ok::<(), embedded_mcp::json::EncodeError>(())
/// ```
pub fn encode_error(buf: &mut [u8], era: Era, message: &str) -> Result<Encoded, EncodeError> {
    let mut sink = SliceSink::new(buf);
    write_error(&mut sink, era, message)?;
    let len = sink.finish()?;
    Ok(Encoded {
        len,
        structured: None,
    })
}

/// Encodes a result with one `text` block and no structured content.
pub fn encode_text(buf: &mut [u8], era: Era, text: &str) -> Result<Encoded, EncodeError> {
    let mut sink = SliceSink::new(buf);
    write_text(&mut sink, era, text)?;
    let len = sink.finish()?;
    Ok(Encoded {
        len,
        structured: None,
    })
}

/// Writes a structured result of `value` to any sink: the same bytes as [`encode_structured`].
///
/// A sink cannot be read back, so the value is serialised twice (the second time through an
/// [`EscapingSink`](super::EscapingSink)); its `Serialize` impl must be deterministic, as
/// derived impls are.
pub fn write_structured<T: Serialize + ?Sized, S: Sink + ?Sized>(
    sink: &mut S,
    era: Era,
    value: &T,
) -> Result<(), EncodeError> {
    ResultWriter::with_structured(sink, era, value)?.finish()
}

/// Writes a structured result of checked JSON to any sink: the same bytes as
/// [`encode_structured_raw`].
pub fn write_structured_raw<S: Sink + ?Sized>(
    sink: &mut S,
    era: Era,
    json: Value<'_>,
) -> Result<(), EncodeError> {
    ResultWriter::with_structured_raw(sink, era, json)?.finish()
}

/// Writes an error result to any sink: the same bytes as [`encode_error`].
pub fn write_error<S: Sink + ?Sized>(
    sink: &mut S,
    era: Era,
    message: &str,
) -> Result<(), EncodeError> {
    let mut w = ResultWriter::new(sink, era);
    w.text(message)?;
    w.set_error(true);
    w.finish()
}

/// Writes a one-`text`-block result to any sink: the same bytes as [`encode_text`].
pub fn write_text<S: Sink + ?Sized>(sink: &mut S, era: Era, text: &str) -> Result<(), EncodeError> {
    let mut w = ResultWriter::new(sink, era);
    w.text(text)?;
    w.finish()
}

/// The slice encoder; `write_json` writes the payload's JSON at the start of a slice.
fn encode_payload<P: Payload + ?Sized>(
    buf: &mut [u8],
    era: Era,
    payload: &P,
    write_json: impl FnOnce(&mut [u8]) -> Result<usize, EncodeError>,
) -> Result<Encoded, EncodeError> {
    let head = structured_in_place(buf, era, write_json)?;
    let done = head.and_then(|(mut pos, structured)| {
        put(buf, &mut pos, era.tail(false))?;
        Some(Encoded {
            len: pos,
            structured: Some(structured),
        })
    });
    match done {
        Some(done) => Ok(done),
        None => {
            // Too small: the exact size of what `structured_in_place` and the tail write,
            // counted without writing (the payload once as JSON, once escaped).
            let wrap = era == Era::Legacy && !payload.is_object()?;
            let mut count = TwiceCount::default();
            write_payload(&mut count, payload, wrap)?;
            let fixed = [STRUCTURED_HEAD, TEXT_BLOCK_HEAD, b"\"}", era.tail(false)];
            let needed = fixed
                .iter()
                .fold(count.count, |n, part| n.saturating_add(part.len()));
            Err(EncodeError::BufferTooSmall { needed })
        }
    }
}

/// Encodes a structured result of `value` followed by more content blocks, which `more` adds
/// (it may also call [`ResultWriter::set_error`]).
///
/// Like [`encode_structured`], the value is serialised once and the returned
/// [`Encoded::structured`] says where its JSON is, so the caller can check it against the
/// tool's output schema. `more` is called exactly once, also when `buf` is too small (then on
/// a writer that only counts, so [`EncodeError::BufferTooSmall`] still has the exact size).
///
/// ```
/// use embedded_mcp::result::{encode_structured_with, Era};
///
/// let mut buf = [0u8; 256];
/// let done = encode_structured_with(&mut buf, Era::Stateless, &[20, 21], |w| {
///     w.resource_link("file:///log.csv", "log.csv", Some("text/csv"), None)
/// })?;
/// assert_eq!(
///     &buf[..done.len],
///     br#"{"structuredContent":[20,21],"content":[{"type":"text","text":"[20,21]"},{"type":"resource_link","uri":"file:///log.csv","name":"log.csv","mimeType":"text/csv"}],"resultType":"complete"}"#
/// );
/// assert_eq!(&buf[done.structured.unwrap()], b"[20,21]");
/// # Ok::<(), embedded_mcp::json::EncodeError>(())
/// ```
pub fn encode_structured_with<T: Serialize + ?Sized>(
    buf: &mut [u8],
    era: Era,
    value: &T,
    more: impl FnOnce(&mut ResultWriter<'_, SliceSink<'_>>) -> Result<(), EncodeError>,
) -> Result<Encoded, EncodeError> {
    let head = structured_in_place(buf, era, |rest| json::to_slice(value, rest))?;
    let (head_len, structured, rest) = match head {
        Some((pos, structured)) => {
            let rest = buf.get_mut(pos..).unwrap_or_default();
            (pos, Some(structured), rest)
        }
        None => {
            // The structured part does not fit: count it, then count the rest on an empty
            // buffer (a slice sink keeps counting past its end).
            let mut count = CountingSink::default();
            ResultWriter::with_payload(&mut count, era, &Ser(value))?;
            (count.count, None, &mut [][..])
        }
    };
    let mut sink = SliceSink::new(rest);
    let mut w = ResultWriter::after_blocks(&mut sink, era);
    more(&mut w)?;
    w.finish()?;
    let len = head_len.saturating_add(sink.len());
    match structured {
        Some(structured) if !sink.overflowed() => Ok(Encoded {
            len,
            structured: Some(structured),
        }),
        _ => Err(EncodeError::BufferTooSmall { needed: len }),
    }
}

/// Copies `bytes` to `buf[*pos..]` and advances `pos`; `None` when they do not fit.
fn put(buf: &mut [u8], pos: &mut usize, bytes: &[u8]) -> Option<()> {
    let end = pos.checked_add(bytes.len())?;
    json::copy_bytes(buf.get_mut(*pos..end)?, bytes);
    *pos = end;
    Some(())
}

/// Writes `{"structuredContent":J,"content":[{"type":"text","text":"E(J)"}` into `buf`:
/// serialises once, wraps for legacy peers if needed, then copies the JSON escaped into the
/// text block. Returns the length written and where `J` is; `Ok(None)` when `buf` is too small.
fn structured_in_place(
    buf: &mut [u8],
    era: Era,
    write_json: impl FnOnce(&mut [u8]) -> Result<usize, EncodeError>,
) -> Result<Option<(usize, Range<usize>)>, EncodeError> {
    let mut pos = 0;
    if put(buf, &mut pos, STRUCTURED_HEAD).is_none() {
        return Ok(None);
    }
    let start = pos;
    let n = match write_json(buf.get_mut(start..).unwrap_or_default()) {
        Ok(n) => n,
        Err(EncodeError::BufferTooSmall { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    if n == 0 {
        // A `Serialize` impl that wrote nothing: `"structuredContent":` cannot stay empty.
        return Err(EncodeError::Custom);
    }
    // Positions inside `buf`: a sum that overflows cannot fit either.
    let Some(mut end) = start.checked_add(n) else {
        return Ok(None);
    };
    if era == Era::Legacy && buf.get(start) != Some(&b'{') {
        let (Some(inner), Some(close_at)) = (
            start.checked_add(WRAP_HEAD.len()),
            end.checked_add(WRAP_HEAD.len()),
        ) else {
            return Ok(None);
        };
        if close_at >= buf.len() || !move_within(buf, start..end, inner) {
            return Ok(None);
        }
        let head = buf
            .get_mut(start..)
            .and_then(|rest| rest.get_mut(..WRAP_HEAD.len()));
        if let Some(head) = head {
            json::copy_bytes(head, WRAP_HEAD);
        }
        if let Some(close) = buf.get_mut(close_at) {
            *close = b'}';
        }
        // `close_at < buf.len()`: no saturation.
        end = close_at.saturating_add(1);
    }
    pos = end;
    if put(buf, &mut pos, TEXT_BLOCK_HEAD).is_none() {
        return Ok(None);
    }
    let Some((head, tail)) = buf.split_at_mut_checked(pos) else {
        return Ok(None);
    };
    let Some(escaped) = escape_into(head.get(start..end).unwrap_or_default(), tail) else {
        return Ok(None);
    };
    let Some(after) = pos.checked_add(escaped) else {
        return Ok(None);
    };
    pos = after;
    if put(buf, &mut pos, b"\"}").is_none() {
        return Ok(None);
    }
    Ok(Some((pos, start..end)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;

    #[derive(serde::Serialize)]
    struct Reading<'a> {
        sensor: &'a str,
        value: f32,
        ok: bool,
    }

    fn both(era: Era, value: &(impl Serialize + ?Sized)) -> (String, Option<Range<usize>>) {
        let mut buf = [0u8; 512];
        let done = encode_structured(&mut buf, era, value).unwrap();
        let out = String::from_utf8(buf[..done.len].to_vec()).unwrap();
        // The sink path writes the same bytes.
        let mut other = [0u8; 512];
        let mut sink = SliceSink::new(&mut other);
        write_structured(&mut sink, era, value).unwrap();
        let n = sink.finish().unwrap();
        assert_eq!(&other[..n], out.as_bytes());
        // Exactly `len` bytes is enough; one fewer reports the exact size.
        let mut exact = std::vec![0u8; done.len];
        assert_eq!(encode_structured(&mut exact, era, value).unwrap(), done);
        for short in 0..done.len {
            let mut short = std::vec![0u8; short];
            assert_eq!(
                encode_structured(&mut short, era, value),
                Err(EncodeError::BufferTooSmall { needed: done.len })
            );
        }
        (out, done.structured)
    }

    #[test]
    fn short_buffers_report_the_exact_size() {
        // Quotes and backslashes (JSON text holds no other byte to escape: its control
        // characters are escapes already), wrapped (legacy, not an object) and not.
        let text = "a\"b\\c\u{1}\n\u{1f}é";
        for era in [Era::Legacy, Era::Stateless] {
            both(era, text);
            both(era, &[text]);
            both(era, &7);
        }
    }

    #[test]
    fn golden_object_both_eras() {
        let r = Reading {
            sensor: "t\"0",
            value: 21.5,
            ok: true,
        };
        let (out, range) = both(Era::Legacy, &r);
        assert_eq!(
            out,
            r#"{"structuredContent":{"sensor":"t\"0","value":21.5,"ok":true},"content":[{"type":"text","text":"{\"sensor\":\"t\\\"0\",\"value\":21.5,\"ok\":true}"}]}"#
        );
        assert_eq!(
            &out[range.unwrap()],
            r#"{"sensor":"t\"0","value":21.5,"ok":true}"#
        );
        let (out, _) = both(Era::Stateless, &r);
        assert_eq!(
            out,
            r#"{"structuredContent":{"sensor":"t\"0","value":21.5,"ok":true},"content":[{"type":"text","text":"{\"sensor\":\"t\\\"0\",\"value\":21.5,\"ok\":true}"}],"resultType":"complete"}"#
        );
    }

    #[test]
    fn golden_non_objects() {
        let (out, range) = both(Era::Legacy, &[1, 2]);
        assert_eq!(
            out,
            r#"{"structuredContent":{"result":[1,2]},"content":[{"type":"text","text":"{\"result\":[1,2]}"}]}"#
        );
        assert_eq!(&out[range.unwrap()], r#"{"result":[1,2]}"#);
        let (out, range) = both(Era::Stateless, &[1, 2]);
        assert_eq!(
            out,
            r#"{"structuredContent":[1,2],"content":[{"type":"text","text":"[1,2]"}],"resultType":"complete"}"#
        );
        assert_eq!(&out[range.unwrap()], "[1,2]");
        let (out, _) = both(Era::Legacy, "a\nb");
        assert_eq!(
            out,
            r#"{"structuredContent":{"result":"a\nb"},"content":[{"type":"text","text":"{\"result\":\"a\\nb\"}"}]}"#
        );
        let (out, _) = both(Era::Stateless, &());
        assert_eq!(
            out,
            r#"{"structuredContent":null,"content":[{"type":"text","text":"null"}],"resultType":"complete"}"#
        );
        let (out, _) = both(Era::Legacy, &-3i64);
        assert_eq!(
            out,
            r#"{"structuredContent":{"result":-3},"content":[{"type":"text","text":"{\"result\":-3}"}]}"#
        );
    }

    #[test]
    fn golden_error_and_text() {
        let mut buf = [0u8; 128];
        let d = encode_error(&mut buf, Era::Legacy, "no \"x\"\n").unwrap();
        assert_eq!(
            &buf[..d.len],
            br#"{"content":[{"type":"text","text":"no \"x\"\n"}],"isError":true}"#
        );
        assert_eq!(d.structured, None);
        let d = encode_text(&mut buf, Era::Stateless, "ok").unwrap();
        assert_eq!(
            &buf[..d.len],
            br#"{"content":[{"type":"text","text":"ok"}],"resultType":"complete"}"#
        );
        let d = encode_text(&mut buf, Era::Legacy, "ok").unwrap();
        assert_eq!(
            &buf[..d.len],
            br#"{"content":[{"type":"text","text":"ok"}]}"#
        );
        let mut small = [0u8; 10];
        assert_eq!(
            encode_text(&mut small, Era::Legacy, "ok"),
            Err(EncodeError::BufferTooSmall { needed: 41 })
        );
    }

    #[test]
    fn raw_json_is_compacted_and_wrapped() {
        let v = Value::parse(b" [ 1 , \"a b\" ]\n").unwrap();
        let mut buf = [0u8; 128];
        let d = encode_structured_raw(&mut buf, Era::Legacy, v).unwrap();
        assert_eq!(
            &buf[..d.len],
            br#"{"structuredContent":{"result":[1,"a b"]},"content":[{"type":"text","text":"{\"result\":[1,\"a b\"]}"}]}"#
        );
        let mut sink = CountingSink::default();
        write_structured_raw(&mut sink, Era::Legacy, v).unwrap();
        assert_eq!(sink.count, d.len);
        let mut short = [0u8; 40];
        assert_eq!(
            encode_structured_raw(&mut short, Era::Legacy, v),
            Err(EncodeError::BufferTooSmall { needed: d.len })
        );
    }

    #[test]
    fn every_short_buffer_reports_the_same_need() {
        let r = Reading {
            sensor: "s",
            value: 1.0,
            ok: false,
        };
        for era in [Era::Legacy, Era::Stateless] {
            for value in [&r as &dyn erased::Ser, &[1u8, 2] as &dyn erased::Ser] {
                let mut buf = [0u8; 256];
                let len = value.encode(&mut buf, era).unwrap().len;
                for cap in 0..len {
                    assert_eq!(
                        value.encode(&mut buf[..cap], era),
                        Err(EncodeError::BufferTooSmall { needed: len }),
                        "capacity {cap}"
                    );
                }
            }
        }
    }

    /// Object-safe shim so the test can loop over values of different types.
    mod erased {
        use super::*;
        pub trait Ser {
            fn encode(&self, buf: &mut [u8], era: Era) -> Result<Encoded, EncodeError>;
        }
        impl<T: Serialize> Ser for T {
            fn encode(&self, buf: &mut [u8], era: Era) -> Result<Encoded, EncodeError> {
                encode_structured(buf, era, self)
            }
        }
    }

    #[test]
    fn structured_with_more_blocks_is_exact_at_every_size() {
        let more = |w: &mut ResultWriter<'_, SliceSink<'_>>| {
            w.text("see \"log\"")?;
            w.resource_link("file:///log.csv", "log", None, None)?;
            w.set_error(true);
            Ok(())
        };
        for era in [Era::Legacy, Era::Stateless] {
            let mut buf = [0u8; 512];
            let done = encode_structured_with(&mut buf, era, &[1, 2], more).unwrap();
            let out = String::from_utf8(buf[..done.len].to_vec()).unwrap();
            // The same bytes as the streaming writer.
            let mut other = [0u8; 512];
            let mut sink = SliceSink::new(&mut other);
            let mut w = ResultWriter::with_structured(&mut sink, era, &[1, 2]).unwrap();
            w.text("see \"log\"").unwrap();
            w.resource_link("file:///log.csv", "log", None, None)
                .unwrap();
            w.set_error(true);
            w.finish().unwrap();
            let n = sink.finish().unwrap();
            assert_eq!(out.as_bytes(), &other[..n]);
            let wrapped = era == Era::Legacy;
            assert_eq!(
                &out[done.structured.clone().unwrap()],
                if wrapped {
                    r#"{"result":[1,2]}"#
                } else {
                    "[1,2]"
                }
            );
            assert!(out.ends_with(if wrapped {
                r#"{"type":"resource_link","uri":"file:///log.csv","name":"log"}],"isError":true}"#
            } else {
                r#"{"type":"resource_link","uri":"file:///log.csv","name":"log"}],"isError":true,"resultType":"complete"}"#
            }));
            for cap in 0..done.len {
                let mut small = std::vec![0u8; cap];
                assert_eq!(
                    encode_structured_with(&mut small, era, &[1, 2], more),
                    Err(EncodeError::BufferTooSmall { needed: done.len }),
                    "capacity {cap}"
                );
            }
            let mut exact = std::vec![0u8; done.len];
            assert_eq!(
                encode_structured_with(&mut exact, era, &[1, 2], more),
                Ok(done)
            );
        }
    }

    #[test]
    fn non_finite_is_an_error_not_nan() {
        let mut buf = [0u8; 128];
        for v in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let r = Reading {
                sensor: "s",
                value: v,
                ok: true,
            };
            assert_eq!(
                encode_structured(&mut buf, Era::Legacy, &r),
                Err(EncodeError::NonFiniteFloat)
            );
            // Also when the buffer is too small to get that far.
            assert_eq!(
                encode_structured(&mut buf[..4], Era::Legacy, &r),
                Err(EncodeError::NonFiniteFloat)
            );
            let mut count = CountingSink::default();
            assert_eq!(
                write_structured(&mut count, Era::Stateless, &r),
                Err(EncodeError::NonFiniteFloat)
            );
        }
    }
}
