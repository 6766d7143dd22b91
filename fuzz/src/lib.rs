//! Shared pieces of the fuzz targets: chunked in-memory streams, a reference model of line
//! framing, and `serde_json` oracles (what a request line's id is, whether text is JSON).
//!
//! The targets assert properties, not only "no panic"; every helper here is written
//! independently of the code under test so that the two can disagree.

use std::collections::VecDeque;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// Sizes of successive reads, from a xorshift32 seeded by the input (so a crash reproduces).
#[derive(Debug, Clone)]
pub struct ReadSizes {
    state: u32,
    max: usize,
}

impl ReadSizes {
    /// Read sizes from 1 to `max` (at least 1), drawn from `seed`.
    pub fn new(seed: u32, max: usize) -> Self {
        Self {
            state: seed | 1,
            max: max.max(1),
        }
    }

    /// The next read size.
    pub fn next_size(&mut self) -> usize {
        let mut x = self.state;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.state = x;
        1 + (x as usize) % self.max
    }
}

/// Splits a fuzz input into a read-size generator and the byte stream: the first two bytes
/// choose the seed and the largest read (1 to 256 bytes).
pub fn split_input(data: &[u8]) -> (ReadSizes, &[u8]) {
    match data {
        [a, b, rest @ ..] => (
            ReadSizes::new(u32::from(*a) << 8 | u32::from(*b), usize::from(*b) + 1),
            rest,
        ),
        _ => (ReadSizes::new(1, 1), &[]),
    }
}

/// An in-memory stream that hands out its bytes in reads of the sizes given.
#[derive(Debug, Clone)]
pub struct Chunked<'a> {
    data: &'a [u8],
    sizes: ReadSizes,
}

impl<'a> Chunked<'a> {
    /// A stream over `data`.
    pub fn new(data: &'a [u8], sizes: ReadSizes) -> Self {
        Self { data, sizes }
    }
}

impl embedded_io::ErrorType for Chunked<'_> {
    type Error = core::convert::Infallible;
}

impl embedded_io::Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        let n = self.sizes.next_size().min(buf.len()).min(self.data.len());
        let (head, tail) = self.data.split_at(n);
        buf[..n].copy_from_slice(head);
        self.data = tail;
        Ok(n)
    }
}

impl embedded_io_async::Read for Chunked<'_> {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        embedded_io::Read::read(self, buf)
    }
}

/// Collects what is written, and counts flushes (one per response).
#[derive(Debug, Default)]
pub struct Collect {
    /// Everything written.
    pub bytes: Vec<u8>,
    /// Number of flushes.
    pub flushes: usize,
}

impl embedded_io::ErrorType for Collect {
    type Error = core::convert::Infallible;
}

impl embedded_io::Write for Collect {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        self.flushes += 1;
        Ok(())
    }
}

/// Polls a future whose I/O never waits (in-memory streams) to completion.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// A frame as the reference model sees it (owned, comparable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelFrame {
    /// A UTF-8 line without LF, trailing CR or leading BOM.
    Line(String),
    /// A complete line that is not UTF-8 (CR and BOM removed as for a line).
    InvalidUtf8(Vec<u8>),
    /// A line longer than the buffer: its length without the LF.
    Overlong(usize),
}

/// The framing rules written down once more, from the documentation of `LineBuffer`: LF ends a
/// line; a line whose bytes, LF included, exceed `capacity` is overlong; otherwise a trailing CR
/// and a leading UTF-8 BOM are removed, blank lines (spaces and tabs only) are skipped, and the
/// rest is a line or an invalid-UTF-8 line. Bytes after the last LF are not a frame.
pub fn model_frames(stream: &[u8], capacity: usize) -> Vec<ModelFrame> {
    let mut frames = Vec::new();
    let mut rest = stream;
    while let Some(lf) = rest.iter().position(|&b| b == b'\n') {
        let raw = &rest[..lf];
        rest = &rest[lf + 1..];
        if raw.len() + 1 > capacity {
            frames.push(ModelFrame::Overlong(raw.len()));
            continue;
        }
        let mut line = raw;
        if let Some(stripped) = line.strip_suffix(b"\r") {
            line = stripped;
        }
        if let Some(stripped) = line.strip_prefix(b"\xEF\xBB\xBF") {
            line = stripped;
        }
        if line.iter().all(|&b| b == b' ' || b == b'\t') {
            continue;
        }
        frames.push(match std::str::from_utf8(line) {
            Ok(s) => ModelFrame::Line(s.to_owned()),
            Err(_) => ModelFrame::InvalidUtf8(line.to_vec()),
        });
    }
    frames
}

/// The whole stream split into complete lines (raw, LF removed), for id oracles of overlong
/// lines.
pub fn raw_lines(stream: &[u8]) -> VecDeque<&[u8]> {
    let mut lines = VecDeque::new();
    let mut rest = stream;
    while let Some(lf) = rest.iter().position(|&b| b == b'\n') {
        lines.push_back(&rest[..lf]);
        rest = &rest[lf + 1..];
    }
    lines
}

/// A JSON document read by `serde_json` into canonical compact text: members in document order
/// (duplicates kept), strings and keys re-escaped by `serde_json`, numbers as their lexeme.
///
/// Not `serde_json::Value`: its visitor gives the keys `$serde_json::private::RawValue` and
/// `$serde_json::private::Number` a meaning of their own and then refuses valid JSON that
/// uses them (the fuzzer found this within minutes). Here every key is just a key. With
/// `arbitrary_precision` a number arrives as such a one-member map, so a number and the
/// object `{"$serde_json::private::Number":"<lexeme>"}` read the same; both sides of every
/// comparison are read this way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canon(pub String);

impl<'de> de::Deserialize<'de> for Canon {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Canon;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Canon, E> {
                Ok(Canon(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Canon, E> {
                Ok(Canon(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Canon, E> {
                Ok(Canon(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Canon, E> {
                Ok(Canon(v.to_string()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Canon, E> {
                serde_json::to_string(v).map(Canon).map_err(E::custom)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Canon, E> {
                Ok(Canon("null".into()))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Canon, A::Error> {
                let mut items = Vec::new();
                while let Some(Canon(item)) = seq.next_element::<Canon>()? {
                    items.push(item);
                }
                Ok(Canon(format!("[{}]", items.join(","))))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Canon, A::Error> {
                let mut members = Vec::new();
                while let Some((k, Canon(v))) = map.next_entry::<String, Canon>()? {
                    let k = serde_json::to_string(&k).map_err(de::Error::custom)?;
                    members.push(format!("{k}:{v}"));
                }
                Ok(Canon(format!("{{{}}}", members.join(","))))
            }
        }
        d.deserialize_any(V)
    }
}

/// The canonical text of a JSON document, if `serde_json` reads it.
pub fn canonical(bytes: &[u8]) -> Option<String> {
    serde_json::from_slice::<Canon>(bytes).ok().map(|c| c.0)
}

/// True when `serde_json` accepts `bytes` as one JSON document (numbers of any size, strings
/// checked for UTF-8 and lone surrogates, nesting up to its 128 levels).
pub fn serde_json_accepts(bytes: &[u8]) -> bool {
    canonical(bytes).is_some()
}

/// Nesting depth of arrays and objects in valid JSON text (`1` for `{}`), counted outside
/// strings.
pub fn json_depth(text: &[u8]) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &b in text {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The top-level members of a JSON object in document order (duplicates kept), values as their
/// raw text; `None` when the document is not an object.
pub fn top_level_members(text: &str) -> Option<Vec<(String, Box<RawValue>)>> {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Vec<(String, Box<RawValue>)>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some((k, v)) = map.next_entry::<String, Box<RawValue>>()? {
                out.push((k, v));
            }
            Ok(out)
        }
    }
    struct Doc(Vec<(String, Box<RawValue>)>);
    impl<'de> de::Deserialize<'de> for Doc {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_map(Members).map(Doc)
        }
    }
    serde_json::from_str::<Doc>(text).ok().map(|d| d.0)
}

/// The first member named `name` (the engine's rule: the first occurrence wins).
pub fn first<'m>(members: &'m [(String, Box<RawValue>)], name: &str) -> Option<&'m RawValue> {
    members
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_ref())
}

/// True when raw JSON text is a string or an integer without fraction or exponent: what
/// JSON-RPC ids may be.
pub fn is_id_text(raw: &str) -> bool {
    let raw = raw.trim();
    if raw.starts_with('"') {
        return true;
    }
    let digits = raw.strip_prefix('-').unwrap_or(raw);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// What the engine must do with one complete line that is valid JSON within the depth limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// Exactly one response, carrying this id text.
    AnswerWithId(String),
    /// Exactly one error response without an id.
    AnswerWithoutId,
    /// No response.
    Silence,
}

/// The JSON-RPC rules of the engine, written from its documentation with `serde_json`: a
/// request (or an invalid message) whose id can be read is answered with that id; a message
/// without a readable id is answered without one unless it is a notification or a response.
pub fn expect_for_json_line(text: &str, max_id_len: usize) -> Expect {
    let Some(members) = top_level_members(text) else {
        // Not an object (arrays, scalars): -32600 without id.
        return Expect::AnswerWithoutId;
    };
    let id = first(&members, "id").map(|v| v.get().to_owned());
    let method = first(&members, "method");
    let reply = members.iter().any(|(k, _)| k == "result" || k == "error");
    let readable = id.as_deref().filter(|raw| is_id_text(raw));
    match (method, readable) {
        // A response from the peer is ignored.
        (None, _) if reply => Expect::Silence,
        // A notification (valid or not) is never answered.
        (Some(_), None) if id.is_none() => Expect::Silence,
        (_, Some(raw)) if raw.len() <= max_id_len => Expect::AnswerWithId(raw.to_owned()),
        _ => Expect::AnswerWithoutId,
    }
}

/// Checks one response line as the engine wrote it: one line ending with LF, JSON, a JSON-RPC
/// 2.0 response with exactly one of `result`/`error`. Returns its members.
pub fn check_response_line(bytes: &[u8]) -> Vec<(String, Box<RawValue>)> {
    assert_eq!(bytes.last(), Some(&b'\n'), "a response ends with LF");
    let body = &bytes[..bytes.len() - 1];
    assert!(!body.contains(&b'\n'), "a response is one line");
    assert!(
        serde_json_accepts(body),
        "a response is JSON: {}",
        String::from_utf8_lossy(body)
    );
    let text = std::str::from_utf8(body).expect("UTF-8 response");
    let members = top_level_members(text).expect("a response is an object");
    assert_eq!(
        first(&members, "jsonrpc").map(RawValue::get),
        Some("\"2.0\""),
        "{text}"
    );
    let result = members.iter().filter(|(k, _)| k == "result").count();
    let error = members.iter().filter(|(k, _)| k == "error").count();
    assert_eq!(result + error, 1, "exactly one of result/error: {text}");
    let keys: Vec<&str> = members.iter().map(|(k, _)| k.as_str()).collect();
    let mut unique = keys.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), keys.len(), "no duplicate members: {text}");
    members
}

pub mod derived;
pub mod device;
pub mod schema_check;
pub mod schema_gen;
