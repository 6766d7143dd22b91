//! Property tests of the tool-result codec: `decode(encode(x)) == x`, agreement with
//! `serde_json`, the text channel equal to the structured channel, and exact buffer sizes.

mod codec_support;

use std::collections::BTreeMap;

use codec_support::{
    era, expected_structured, finite_f64, json_value, tricky_char, tricky_string, VecSink,
};
use embedded_mcp::json::{self, CountingSink, EncodeError};
use embedded_mcp::result::{
    encode_error, encode_structured, encode_structured_raw, encode_structured_with, encode_text,
    write_error, write_structured, write_structured_raw, ContentBlock, Encoded, Era, ResultView,
    ResultWriter,
};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value as Json};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Sample {
    name: String,
    note: Option<String>,
    letter: char,
    count: u64,
    delta: i64,
    small: i8,
    ratio: f64,
    level: f32,
    on: bool,
    tags: Vec<String>,
    mode: Mode,
    inner: Inner,
    map: BTreeMap<String, u16>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Mode {
    Off,
    Level(u8),
    Range { lo: i32, hi: i32 },
    Pair(i16, i16),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Inner {
    x: f64,
    label: String,
}

/// The same shape with borrowed strings: escaped ones must come back decoded (from scratch).
#[derive(Debug, Deserialize)]
struct SampleRef<'a> {
    name: &'a str,
    #[serde(borrow)]
    note: Option<&'a str>,
    letter: char,
    count: u64,
    delta: i64,
    small: i8,
    ratio: f64,
    level: f32,
    on: bool,
    #[serde(borrow)]
    tags: Vec<&'a str>,
    mode: Mode,
    #[serde(borrow)]
    inner: InnerRef<'a>,
    #[serde(borrow)]
    map: BTreeMap<&'a str, u16>,
}

#[derive(Debug, Deserialize)]
struct InnerRef<'a> {
    x: f64,
    label: &'a str,
}

fn sample() -> impl Strategy<Value = Sample> {
    let mode = prop_oneof![
        Just(Mode::Off),
        any::<u8>().prop_map(Mode::Level),
        (any::<i32>(), any::<i32>()).prop_map(|(lo, hi)| Mode::Range { lo, hi }),
        (any::<i16>(), any::<i16>()).prop_map(|(a, b)| Mode::Pair(a, b)),
    ];
    let numbers = (
        any::<u64>(),
        any::<i64>(),
        any::<i8>(),
        finite_f64(),
        any::<f32>().prop_filter("finite", |f| f.is_finite()),
        any::<bool>(),
    );
    let inner = (finite_f64(), tricky_string()).prop_map(|(x, label)| Inner { x, label });
    (
        tricky_string(),
        proptest::option::of(tricky_string()),
        tricky_char(),
        numbers,
        proptest::collection::vec(tricky_string(), 0..5),
        mode,
        inner,
        proptest::collection::btree_map(tricky_string(), any::<u16>(), 0..5),
    )
        .prop_map(
            |(
                name,
                note,
                letter,
                (count, delta, small, ratio, level, on),
                tags,
                mode,
                inner,
                map,
            )| {
                Sample {
                    name,
                    note,
                    letter,
                    count,
                    delta,
                    small,
                    ratio,
                    level,
                    on,
                    tags,
                    mode,
                    inner,
                    map,
                }
            },
        )
}

/// Encodes with a generously sized buffer.
fn encode<T: Serialize + ?Sized>(era: Era, value: &T) -> (Vec<u8>, Encoded) {
    let mut buf = vec![0u8; 1 << 16];
    let done = encode_structured(&mut buf, era, value).expect("encodes");
    buf.truncate(done.len);
    (buf, done)
}

/// Checks the invariants every structured result must hold and returns it parsed by serde_json.
fn check_channels(era: Era, bytes: &[u8], done: &Encoded) -> Json {
    let whole: Json = serde_json::from_slice(bytes).expect("serde_json reads the result");
    let range = done.structured.clone().expect("structured range");
    let raw = &bytes[range];
    // The text block, once unescaped, is byte for byte the structured channel.
    let text = whole["content"][0]["text"].as_str().expect("text block");
    assert_eq!(text.as_bytes(), raw);
    assert_eq!(whole["content"][0]["type"], "text");
    assert_eq!(
        whole["structuredContent"],
        serde_json::from_slice::<Json>(raw).unwrap()
    );
    // Era bytes.
    match era {
        Era::Legacy => {
            assert!(whole.get("resultType").is_none());
            assert!(whole["structuredContent"].is_object());
        }
        Era::Stateless => assert_eq!(whole["resultType"], "complete"),
    }
    assert!(whole.get("isError").is_none());
    // One line on the wire: no raw line feed or carriage return.
    assert!(!bytes.contains(&b'\n') && !bytes.contains(&b'\r'));
    // Our own view agrees on where structuredContent is.
    let view = ResultView::parse(bytes).expect("view parses");
    assert_eq!(view.structured().unwrap().raw().as_bytes(), raw);
    let Some(ContentBlock::Text(t)) = view.content().next() else {
        panic!("first block is text")
    };
    assert!(t.eq_str(std::str::from_utf8(raw).unwrap()));
    whole
}

/// Checks that exactly `len` bytes suffice and that every smaller buffer reports `len`.
fn check_sizes<T: Serialize + ?Sized>(era: Era, value: &T, expected: &[u8]) {
    let len = expected.len();
    let mut exact = vec![0u8; len];
    let done = encode_structured(&mut exact, era, value).expect("exact size fits");
    assert_eq!(done.len, len);
    assert_eq!(exact, expected);
    for cap in [0, len / 2, len - 1] {
        let mut short = vec![0u8; cap];
        assert_eq!(
            encode_structured(&mut short, era, value),
            Err(EncodeError::BufferTooSmall { needed: len })
        );
    }
    let mut sink = VecSink::default();
    write_structured(&mut sink, era, value).expect("sink path");
    assert_eq!(sink.0, expected, "sink path writes the same bytes");
    let mut count = CountingSink::default();
    write_structured(&mut count, era, value).unwrap();
    assert_eq!(count.count, len);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn structs_round_trip(s in sample(), era in era()) {
        let (bytes, done) = encode(era, &s);
        let whole = check_channels(era, &bytes, &done);
        // serde_json reads the value it would have written itself.
        let reference: Json = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        prop_assert_eq!(&whole["structuredContent"], &reference);
        // decode(encode(x)) == x, owned.
        let view = ResultView::parse(&bytes).unwrap();
        let mut scratch = vec![0u8; bytes.len()];
        let back: Sample = view.structured_as(&mut scratch).unwrap();
        prop_assert_eq!(&back, &s);
        // ... and borrowed: escaped strings decoded into scratch.
        let mut scratch = vec![0u8; bytes.len()];
        let r: SampleRef<'_> = view.structured_as(&mut scratch).unwrap();
        prop_assert_eq!(r.name, s.name.as_str());
        prop_assert_eq!(r.note, s.note.as_deref());
        prop_assert_eq!(r.letter, s.letter);
        prop_assert_eq!((r.count, r.delta, r.small, r.on), (s.count, s.delta, s.small, s.on));
        prop_assert_eq!(r.ratio.to_bits(), s.ratio.to_bits());
        prop_assert_eq!(r.level.to_bits(), s.level.to_bits());
        prop_assert_eq!(&r.tags, &s.tags.iter().map(String::as_str).collect::<Vec<_>>());
        prop_assert_eq!(&r.mode, &s.mode);
        prop_assert_eq!((r.inner.x, r.inner.label), (s.inner.x, s.inner.label.as_str()));
        prop_assert_eq!(
            r.map.into_iter().collect::<Vec<_>>(),
            s.map.iter().map(|(k, v)| (k.as_str(), *v)).collect::<Vec<_>>()
        );
        check_sizes(era, &s, &bytes);
    }

    #[test]
    fn any_json_round_trips(v in json_value(), era in era()) {
        let (bytes, done) = encode(era, &v);
        let whole = check_channels(era, &bytes, &done);
        let expected = expected_structured(era, v.clone());
        prop_assert_eq!(&whole["structuredContent"], &expected);
        let view = ResultView::parse(&bytes).unwrap();
        let mut scratch = vec![0u8; view.structured().unwrap().raw().len()];
        let back: Json = view.structured_as(&mut scratch).unwrap();
        prop_assert_eq!(&back, &expected);
        if era == Era::Legacy && !v.is_object() {
            let mut scratch = vec![0u8; bytes.len()];
            let inner: Json = json::from_value(view.unwrap_legacy().unwrap(), &mut scratch).unwrap();
            prop_assert_eq!(&inner, &v);
        }
        check_sizes(era, &v, &bytes);
    }

    #[test]
    fn raw_json_is_copied_compactly(v in json_value(), era in era()) {
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        let value = json::Value::parse(pretty.as_bytes()).unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let done = encode_structured_raw(&mut buf, era, value).unwrap();
        let bytes = &buf[..done.len];
        check_channels(era, bytes, &done);
        // Compacting serde_json's pretty output gives serde_json's compact output exactly.
        let compact = serde_json::to_string(&expected_structured(era, v.clone())).unwrap();
        prop_assert_eq!(&bytes[done.structured.clone().unwrap()], compact.as_bytes());
        let mut sink = VecSink::default();
        write_structured_raw(&mut sink, era, value).unwrap();
        prop_assert_eq!(&sink.0[..], bytes);
        let mut exact = vec![0u8; done.len];
        prop_assert_eq!(encode_structured_raw(&mut exact, era, value), Ok(done.clone()));
        let mut short = vec![0u8; done.len - 1];
        prop_assert_eq!(
            encode_structured_raw(&mut short, era, value),
            Err(EncodeError::BufferTooSmall { needed: done.len })
        );
    }

    #[test]
    fn error_and_text_results_round_trip(message in tricky_string(), era in era()) {
        let mut buf = vec![0u8; 4096];
        for is_error in [true, false] {
            let done = if is_error {
                encode_error(&mut buf, era, &message).unwrap()
            } else {
                encode_text(&mut buf, era, &message).unwrap()
            };
            prop_assert_eq!(done.structured, None);
            let bytes = &buf[..done.len];
            let whole: Json = serde_json::from_slice(bytes).unwrap();
            let mut expected = json!({"content": [{"type": "text", "text": message}]});
            if is_error {
                expected["isError"] = json!(true);
            }
            if era == Era::Stateless {
                expected["resultType"] = json!("complete");
            }
            prop_assert_eq!(whole, expected);
            let view = ResultView::parse(bytes).unwrap();
            prop_assert_eq!(view.is_error(), is_error);
            let blocks: Vec<_> = view.content().collect();
            prop_assert_eq!(blocks.len(), 1);
            let ContentBlock::Text(t) = blocks[0] else { panic!("text block") };
            prop_assert!(t.eq_str(&message));
            let mut scratch = vec![0u8; message.len()];
            prop_assert_eq!(t.decode_into(&mut scratch).unwrap(), message.as_str());
        }
        let mut sink = VecSink::default();
        write_error(&mut sink, era, &message).unwrap();
        let done = encode_error(&mut buf, era, &message).unwrap();
        prop_assert_eq!(&sink.0[..], &buf[..done.len]);
        let mut short = vec![0u8; done.len - 1];
        prop_assert_eq!(
            encode_error(&mut short, era, &message),
            Err(EncodeError::BufferTooSmall { needed: done.len })
        );
    }

    #[test]
    fn writer_blocks_round_trip(
        blocks in proptest::collection::vec(block(), 0..6),
        structured in proptest::option::of(json_value()),
        is_error in any::<bool>(),
        era in era(),
    ) {
        let mut sink = VecSink::default();
        let mut w = match &structured {
            Some(v) => ResultWriter::with_structured(&mut sink, era, v).unwrap(),
            None => ResultWriter::new(&mut sink, era),
        };
        let mut expected_blocks = Vec::new();
        if let Some(v) = &structured {
            let text = serde_json::to_string(&expected_structured(era, v.clone())).unwrap();
            expected_blocks.push(json!({"type": "text", "text": text}));
        }
        for b in &blocks {
            expected_blocks.push(b.write(&mut w));
        }
        w.set_error(is_error);
        w.finish().unwrap();
        let whole: Json = serde_json::from_slice(&sink.0).unwrap();
        let mut expected = json!({ "content": expected_blocks });
        if let Some(v) = &structured {
            expected["structuredContent"] = expected_structured(era, v.clone());
        }
        if is_error {
            expected["isError"] = json!(true);
        }
        if era == Era::Stateless {
            expected["resultType"] = json!("complete");
        }
        // The text block's JSON may format floats differently from serde_json; compare values.
        if structured.is_some() {
            let text = whole["content"][0]["text"].as_str().unwrap();
            let reread: Json = serde_json::from_str(text).unwrap();
            prop_assert_eq!(&reread, &expected["structuredContent"]);
            let mut whole = whole.clone();
            whole["content"][0] = expected["content"][0].clone();
            prop_assert_eq!(&whole, &expected);
        } else {
            prop_assert_eq!(&whole, &expected);
        }
        if let Some(v) = &structured {
            // The one-shot form serialises once and writes the same bytes, with the range.
            let mut buf = vec![0u8; sink.0.len()];
            let done = encode_structured_with(&mut buf, era, v, |w| {
                for b in &blocks {
                    b.write_to(w);
                }
                w.set_error(is_error);
                Ok(())
            })
            .unwrap();
            prop_assert_eq!(&buf[..done.len], &sink.0[..]);
            let range = done.structured.unwrap();
            let reread: Json = serde_json::from_slice(&buf[range]).unwrap();
            prop_assert_eq!(&reread, &expected["structuredContent"]);
        }
        let view = ResultView::parse(&sink.0).unwrap();
        prop_assert_eq!(view.content().count(), expected["content"].as_array().unwrap().len());
        prop_assert_eq!(view.is_error(), is_error);
        let skip = usize::from(structured.is_some());
        for (got, want) in view.content().skip(skip).zip(&blocks) {
            prop_assert!(want.matches(got), "{:?} vs {:?}", got, want);
        }
    }
}

/// One extra block for the writer property.
#[derive(Debug, Clone)]
enum Block {
    Text(String),
    Image(Vec<u8>, String),
    Audio(Vec<u8>, String),
    Link(String, String, Option<String>, Option<String>),
}

fn block() -> impl Strategy<Value = Block> {
    prop_oneof![
        tricky_string().prop_map(Block::Text),
        (
            proptest::collection::vec(any::<u8>(), 0..40),
            tricky_string()
        )
            .prop_map(|(d, m)| Block::Image(d, m)),
        (
            proptest::collection::vec(any::<u8>(), 0..40),
            tricky_string()
        )
            .prop_map(|(d, m)| Block::Audio(d, m)),
        (
            tricky_string(),
            tricky_string(),
            proptest::option::of(tricky_string()),
            proptest::option::of(tricky_string())
        )
            .prop_map(|(u, n, m, d)| Block::Link(u, n, m, d)),
    ]
}

/// Standard base64 with padding, written independently of the crate's encoder.
fn base64(data: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in data.chunks(3) {
        let n = c
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= c.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

impl Block {
    /// Writes the block (alternating the base64 and raw-bytes entry points) and returns the
    /// JSON it must read back as.
    fn write(&self, w: &mut ResultWriter<'_, VecSink>) -> Json {
        match self {
            Block::Text(t) => {
                w.text(t).unwrap();
                json!({"type": "text", "text": t})
            }
            Block::Image(d, m) => {
                if d.len() % 2 == 0 {
                    w.image(&base64(d), m).unwrap();
                } else {
                    w.image_bytes(d, m).unwrap();
                }
                json!({"type": "image", "data": base64(d), "mimeType": m})
            }
            Block::Audio(d, m) => {
                if d.len() % 2 == 0 {
                    w.audio_bytes(d, m).unwrap();
                } else {
                    w.audio(&base64(d), m).unwrap();
                }
                json!({"type": "audio", "data": base64(d), "mimeType": m})
            }
            Block::Link(u, n, m, d) => {
                w.resource_link(u, n, m.as_deref(), d.as_deref()).unwrap();
                let mut j = json!({"type": "resource_link", "uri": u, "name": n});
                if let Some(m) = m {
                    j["mimeType"] = json!(m);
                }
                if let Some(d) = d {
                    j["description"] = json!(d);
                }
                j
            }
        }
    }

    /// Writes the block into a writer over a slice, exactly as [`Block::write`] does.
    fn write_to(&self, w: &mut ResultWriter<'_, embedded_mcp::json::SliceSink<'_>>) {
        match self {
            Block::Text(t) => w.text(t).unwrap(),
            Block::Image(d, m) if d.len() % 2 == 0 => w.image(&base64(d), m).unwrap(),
            Block::Image(d, m) => w.image_bytes(d, m).unwrap(),
            Block::Audio(d, m) if d.len() % 2 == 0 => w.audio_bytes(d, m).unwrap(),
            Block::Audio(d, m) => w.audio(&base64(d), m).unwrap(),
            Block::Link(u, n, m, d) => w.resource_link(u, n, m.as_deref(), d.as_deref()).unwrap(),
        }
    }

    fn matches(&self, got: ContentBlock<'_>) -> bool {
        let opt = |a: Option<embedded_mcp::json::JsonStr<'_>>, b: &Option<String>| match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => a.eq_str(b),
            _ => false,
        };
        match (self, got) {
            (Block::Text(t), ContentBlock::Text(g)) => g.eq_str(t),
            (Block::Image(d, m), ContentBlock::Image { data, mime_type })
            | (Block::Audio(d, m), ContentBlock::Audio { data, mime_type }) => {
                data.eq_str(&base64(d)) && mime_type.eq_str(m)
            }
            (
                Block::Link(u, n, m, d),
                ContentBlock::ResourceLink {
                    uri,
                    name,
                    mime_type,
                    description,
                    title: None,
                },
            ) => uri.eq_str(u) && name.eq_str(n) && opt(mime_type, m) && opt(description, d),
            _ => false,
        }
    }
}

#[test]
fn text_fmt_escapes_what_display_writes() {
    let mut sink = VecSink::default();
    let mut w = ResultWriter::new(&mut sink, Era::Legacy);
    let name = "t\"0\n";
    w.text_fmt(format_args!("sensor {name} failed: {}", 'é'))
        .unwrap();
    w.set_error(true);
    w.finish().unwrap();
    assert_eq!(
        String::from_utf8(sink.0).unwrap(),
        r#"{"content":[{"type":"text","text":"sensor t\"0\n failed: é"}],"isError":true}"#
    );
}
