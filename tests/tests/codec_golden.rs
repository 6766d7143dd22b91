//! Byte-exact golden results of each era, through the public API: the documented layout.

use embedded_mcp::json::{EncodeError, SliceSink, Value};
use embedded_mcp::result::{
    encode_error, encode_structured, encode_structured_raw, encode_text, Encoded, Era, ResultWriter,
};
use serde::Serialize;

#[derive(Serialize)]
struct Reading<'a> {
    sensor: &'a str,
    celsius: f32,
    seq: u64,
    ok: bool,
}

const READING: Reading<'static> = Reading {
    sensor: "t\"0",
    celsius: 21.5,
    seq: 18_446_744_073_709_551_615,
    ok: true,
};

/// Encodes with `f`, checks the bytes, and checks that exactly that many bytes suffice while one
/// fewer reports the exact size.
fn golden(f: impl Fn(&mut [u8]) -> Result<Encoded, EncodeError>, expected: &str) -> String {
    let mut buf = [0u8; 512];
    let done = f(&mut buf).unwrap();
    assert_eq!(std::str::from_utf8(&buf[..done.len]).unwrap(), expected);
    let mut exact = vec![0u8; done.len];
    assert_eq!(f(&mut exact).unwrap(), done);
    let mut short = vec![0u8; done.len - 1];
    assert_eq!(
        f(&mut short),
        Err(EncodeError::BufferTooSmall { needed: done.len })
    );
    // `structured` is where the raw structuredContent JSON sits.
    let text = std::str::from_utf8(&buf[..done.len]).unwrap().to_owned();
    done.structured
        .map_or(String::new(), |r| text[r].to_owned())
}

#[test]
fn structured_object() {
    let legacy = golden(
        |b| encode_structured(b, Era::Legacy, &READING),
        r#"{"structuredContent":{"sensor":"t\"0","celsius":21.5,"seq":18446744073709551615,"ok":true},"content":[{"type":"text","text":"{\"sensor\":\"t\\\"0\",\"celsius\":21.5,\"seq\":18446744073709551615,\"ok\":true}"}]}"#,
    );
    assert_eq!(
        legacy,
        r#"{"sensor":"t\"0","celsius":21.5,"seq":18446744073709551615,"ok":true}"#
    );
    golden(
        |b| encode_structured(b, Era::Stateless, &READING),
        r#"{"structuredContent":{"sensor":"t\"0","celsius":21.5,"seq":18446744073709551615,"ok":true},"content":[{"type":"text","text":"{\"sensor\":\"t\\\"0\",\"celsius\":21.5,\"seq\":18446744073709551615,\"ok\":true}"}],"resultType":"complete"}"#,
    );
}

#[test]
fn structured_non_objects() {
    let d = golden(
        |b| encode_structured(b, Era::Legacy, &[0.5f64, -2.0]),
        r#"{"structuredContent":{"result":[0.5,-2.0]},"content":[{"type":"text","text":"{\"result\":[0.5,-2.0]}"}]}"#,
    );
    assert_eq!(d, r#"{"result":[0.5,-2.0]}"#);
    golden(
        |b| encode_structured(b, Era::Stateless, &[0.5f64, -2.0]),
        r#"{"structuredContent":[0.5,-2.0],"content":[{"type":"text","text":"[0.5,-2.0]"}],"resultType":"complete"}"#,
    );
    golden(
        |b| encode_structured(b, Era::Legacy, "é\u{1F600}\u{1}"),
        r#"{"structuredContent":{"result":"é😀\u0001"},"content":[{"type":"text","text":"{\"result\":\"é😀\\u0001\"}"}]}"#,
    );
    golden(
        |b| encode_structured(b, Era::Stateless, &true),
        r#"{"structuredContent":true,"content":[{"type":"text","text":"true"}],"resultType":"complete"}"#,
    );
    let raw = Value::parse(b"{ \"a\" : [ 1 ,\n 2 ] }").unwrap();
    golden(
        |b| encode_structured_raw(b, Era::Stateless, raw),
        r#"{"structuredContent":{"a":[1,2]},"content":[{"type":"text","text":"{\"a\":[1,2]}"}],"resultType":"complete"}"#,
    );
}

#[test]
fn error_and_text() {
    golden(
        |b| encode_error(b, Era::Legacy, "arguments: /channel must be <= 7"),
        r#"{"content":[{"type":"text","text":"arguments: /channel must be <= 7"}],"isError":true}"#,
    );
    golden(
        |b| encode_error(b, Era::Stateless, "line 1\nline 2"),
        r#"{"content":[{"type":"text","text":"line 1\nline 2"}],"isError":true,"resultType":"complete"}"#,
    );
    golden(
        |b| encode_text(b, Era::Legacy, "21.5 °C"),
        r#"{"content":[{"type":"text","text":"21.5 °C"}]}"#,
    );
    golden(
        |b| encode_text(b, Era::Stateless, ""),
        r#"{"content":[{"type":"text","text":""}],"resultType":"complete"}"#,
    );
}

#[test]
fn writer_with_every_block() {
    for (era, tail) in [
        (Era::Legacy, r#"],"isError":true}"#),
        (
            Era::Stateless,
            r#"],"isError":true,"resultType":"complete"}"#,
        ),
    ] {
        let mut buf = [0u8; 512];
        let mut sink = SliceSink::new(&mut buf);
        let mut w = ResultWriter::with_structured(&mut sink, era, &[1u8, 2]).unwrap();
        w.text("see image").unwrap();
        w.image_bytes(&[0x89, b'P', b'N', b'G'], "image/png")
            .unwrap();
        w.audio("UklGRg==", "audio/wav").unwrap();
        w.resource_link("file:///log.csv", "log.csv", Some("text/csv"), Some("all"))
            .unwrap();
        w.set_error(true);
        w.finish().unwrap();
        let n = sink.finish().unwrap();
        let structured = match era {
            Era::Legacy => r#"{"result":[1,2]}"#,
            Era::Stateless => "[1,2]",
        };
        let escaped = structured.replace('"', "\\\"");
        let expected = format!(
            concat!(
                r#"{{"structuredContent":{s},"content":[{{"type":"text","text":"{e}"}},"#,
                r#"{{"type":"text","text":"see image"}},"#,
                r#"{{"type":"image","data":"iVBORw==","mimeType":"image/png"}},"#,
                r#"{{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}},"#,
                r#"{{"type":"resource_link","uri":"file:///log.csv","name":"log.csv","mimeType":"text/csv","description":"all"}}{t}"#
            ),
            s = structured,
            e = escaped,
            t = tail
        );
        assert_eq!(std::str::from_utf8(&buf[..n]).unwrap(), expected);
    }
}
