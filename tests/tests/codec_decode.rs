//! Decoding tool results: the official MCP examples, agreement with `serde_json` on arbitrary
//! results, and strictness (trailing data, bad UTF-8, bad escapes, unpaired surrogates, depth).

mod codec_support;

use std::path::PathBuf;

use codec_support::{json_value, tricky_string};
use embedded_mcp::json::{self, DecodeError, DecodeErrorKind as K, JsonStr, Limits};
use embedded_mcp::result::{ContentBlock, ResultError, ResultView};
use embedded_mcp_tests::vectors_dir;
use proptest::prelude::*;
use serde_json::{json, Value as Json};

fn examples(type_name: &str) -> Vec<(String, Vec<u8>)> {
    let dir: PathBuf = vectors_dir()
        .join("mcp-schema/2026-07-28/examples")
        .join(type_name);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir:?}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no examples in {dir:?}");
    files
        .into_iter()
        .map(|p| {
            let name = format!("{type_name}/{}", p.file_name().unwrap().to_string_lossy());
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// Official examples the decoder is expected to refuse, with the reason. None today: every
/// official `CallToolResult`, `CallToolResultResponse` and content-block example is accepted.
/// An entry here must really fail (checked below), so the list cannot go stale silently.
const EXPECTED_FAILURES: &[&str] = &[];

fn decoded(s: JsonStr<'_>) -> String {
    s.chars().collect()
}

/// Checks a view against serde_json's reading of the same result.
fn agree(view: &ResultView<'_>, reference: &Json) {
    assert_eq!(
        view.is_error(),
        reference
            .get("isError")
            .is_some_and(|v| v.as_bool().unwrap())
    );
    assert_eq!(
        view.result_type().map(decoded),
        reference
            .get("resultType")
            .map(|v| v.as_str().unwrap().to_owned())
    );
    match (view.structured(), reference.get("structuredContent")) {
        (None, None) => {}
        (Some(raw), Some(expected)) => {
            assert_eq!(&serde_json::from_str::<Json>(raw.raw()).unwrap(), expected)
        }
        other => panic!("structuredContent differs: {other:?}"),
    }
    let blocks = reference["content"].as_array().unwrap();
    assert_eq!(view.content().count(), blocks.len());
    for (got, want) in view.content().zip(blocks) {
        let s = |k: &str| want[k].as_str().unwrap().to_owned();
        let o = |k: &str| want.get(k).map(|v| v.as_str().unwrap().to_owned());
        match got {
            ContentBlock::Text(t) => {
                assert_eq!(want["type"], "text");
                assert_eq!(decoded(t), s("text"));
            }
            ContentBlock::Image { data, mime_type } => {
                assert_eq!(want["type"], "image");
                assert_eq!(
                    (decoded(data), decoded(mime_type)),
                    (s("data"), s("mimeType"))
                );
            }
            ContentBlock::Audio { data, mime_type } => {
                assert_eq!(want["type"], "audio");
                assert_eq!(
                    (decoded(data), decoded(mime_type)),
                    (s("data"), s("mimeType"))
                );
            }
            ContentBlock::ResourceLink {
                uri,
                name,
                mime_type,
                description,
                title,
            } => {
                assert_eq!(want["type"], "resource_link");
                assert_eq!((decoded(uri), decoded(name)), (s("uri"), s("name")));
                assert_eq!(mime_type.map(decoded), o("mimeType"));
                assert_eq!(description.map(decoded), o("description"));
                assert_eq!(title.map(decoded), o("title"));
            }
            ContentBlock::Resource(r) => {
                assert_eq!(want["type"], "resource");
                assert_eq!(
                    serde_json::from_str::<Json>(r.raw()).unwrap(),
                    want["resource"]
                );
            }
            ContentBlock::Other(v) => {
                assert_eq!(&serde_json::from_str::<Json>(v.raw()).unwrap(), want);
            }
            other => panic!("unexpected block {other:?}"),
        }
    }
}

#[test]
fn official_examples_decode() {
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    cases.extend(examples("CallToolResult"));
    for (name, bytes) in examples("CallToolResultResponse") {
        // The `result` member of a JSON-RPC response, read through `from_value`.
        cases.push((name, bytes));
    }
    // Content-block examples, each as the only block of a result.
    for type_name in [
        "TextContent",
        "ImageContent",
        "AudioContent",
        "ResourceLink",
        "EmbeddedResource",
    ] {
        for (name, bytes) in examples(type_name) {
            let mut wrapped = br#"{"content":["#.to_vec();
            wrapped.extend_from_slice(&bytes);
            wrapped.extend_from_slice(b"]}");
            cases.push((name, wrapped));
        }
    }
    let mut failed = Vec::new();
    for (name, bytes) in &cases {
        let reference: Json = serde_json::from_slice(bytes).unwrap();
        let result = if name.starts_with("CallToolResultResponse/") {
            let envelope = json::Value::parse(bytes).unwrap();
            ResultView::from_value(envelope.get("result").unwrap())
                .map(|v| (v, &reference["result"]))
        } else {
            ResultView::parse(bytes).map(|v| (v, &reference))
        };
        match result {
            Ok((view, reference)) => {
                assert!(
                    !EXPECTED_FAILURES.contains(&name.as_str()),
                    "{name} is listed as an expected failure but decodes"
                );
                agree(&view, reference);
                // The block kind matches the example's type.
                let kind = view.content().last().map(|b| match b {
                    ContentBlock::Text(_) => "text",
                    ContentBlock::Image { .. } => "image",
                    ContentBlock::Audio { .. } => "audio",
                    ContentBlock::ResourceLink { .. } => "resource_link",
                    ContentBlock::Resource(_) => "resource",
                    _ => "other",
                });
                let want = reference["content"]
                    .as_array()
                    .unwrap()
                    .last()
                    .map(|b| b["type"].as_str().unwrap());
                assert_eq!(kind, want, "{name}");
            }
            Err(e) => failed.push(format!("{name}: {e}")),
        }
    }
    let unexpected: Vec<_> = failed
        .iter()
        .filter(|f| !EXPECTED_FAILURES.iter().any(|x| f.starts_with(x)))
        .collect();
    assert!(
        unexpected.is_empty(),
        "official examples refused: {unexpected:#?}"
    );
    assert!(
        cases.len() >= 10,
        "only {} official cases found",
        cases.len()
    );
}

#[test]
fn structured_examples_deserialize() {
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Weather<'a> {
        temperature: f64,
        conditions: &'a str,
        humidity: u8,
    }
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct User<'a> {
        id: &'a str,
        name: &'a str,
        email: &'a str,
    }
    let bytes =
        std::fs::read(vectors_dir().join(
            "mcp-schema/2026-07-28/examples/CallToolResult/result-with-structured-content.json",
        ))
        .unwrap();
    let view = ResultView::parse(&bytes).unwrap();
    let w: Weather<'_> = view.structured_as(&mut []).unwrap();
    assert_eq!(
        w,
        Weather {
            temperature: 22.5,
            conditions: "Partly cloudy",
            humidity: 65
        }
    );
    let bytes = std::fs::read(vectors_dir().join(
        "mcp-schema/2026-07-28/examples/CallToolResult/result-with-array-structured-content.json",
    ))
    .unwrap();
    let view = ResultView::parse(&bytes).unwrap();
    let users: [User<'_>; 2] = view.structured_as(&mut []).unwrap();
    assert_eq!(users[1].email, "bob@example.com");
    assert!(view.unwrap_legacy().is_none());
}

fn json_err(input: &[u8]) -> DecodeError {
    match ResultView::parse(input) {
        Err(ResultError::Json(e)) => e,
        other => panic!(
            "{:?}: expected a JSON error, got {other:?}",
            String::from_utf8_lossy(input)
        ),
    }
}

#[test]
fn strict_json_errors_with_offsets() {
    let cases: &[(&[u8], K, usize)] = &[
        // Trailing garbage.
        (br#"{"content":[]}x"#, K::TrailingData, 14),
        (br#"{"content":[]} {}"#, K::TrailingData, 15),
        (b"{\"content\":[]}\0", K::TrailingData, 14),
        (br#"{"content":[]},"#, K::TrailingData, 14),
        // Invalid UTF-8: a stray byte, an overlong form, a UTF-8-encoded surrogate, a cut sequence.
        (
            b"{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}",
            K::InvalidUtf8,
            35,
        ),
        (b"{\"content\":[],\"x\":\"\xc0\xaf\"}", K::InvalidUtf8, 19),
        (
            b"{\"content\":[],\"x\":\"\xed\xa0\x80\"}",
            K::InvalidUtf8,
            19,
        ),
        (b"{\"content\":[],\"x\":\"\xf0\x9f\x98", K::InvalidUtf8, 19),
        // Bad escapes.
        (br#"{"content":[],"x":"\x"}"#, K::InvalidEscape, 20),
        (br#"{"content":[],"x":"\u12"}"#, K::InvalidEscape, 23),
        (br#"{"content":[],"x":"\u12G4"}"#, K::InvalidEscape, 23),
        (br#"{"content":[],"x":"\U0041"}"#, K::InvalidEscape, 20),
        (br#"{"content":[],"x":"\'"}"#, K::InvalidEscape, 20),
        // Unpaired surrogates, in values and in keys.
        (br#"{"content":[],"x":"\ud800"}"#, K::UnpairedSurrogate, 19),
        (
            br#"{"content":[],"x":"\udc00\ud800"}"#,
            K::UnpairedSurrogate,
            19,
        ),
        (
            br#"{"content":[],"x":"\ud800\u0041"}"#,
            K::UnpairedSurrogate,
            19,
        ),
        (
            br#"{"content":[],"x":"a\ud800x"}"#,
            K::UnpairedSurrogate,
            20,
        ),
        (br#"{"content":[],"\udfff":1}"#, K::UnpairedSurrogate, 15),
        // Raw control characters and other grammar errors.
        (
            b"{\"content\":[{\"type\":\"text\",\"text\":\"a\nb\"}]}",
            K::ControlCharacter,
            36,
        ),
        (br#"{"content":[],}"#, K::UnexpectedByte, 14),
        (br#"{"content":[1,]}"#, K::UnexpectedByte, 14),
        (br#"{"content":[01]}"#, K::InvalidNumber, 13),
        (br#"{"content":[]"#, K::UnexpectedEnd, 13),
        (br#"{'content':[]}"#, K::UnexpectedByte, 1),
        (b"", K::UnexpectedEnd, 0),
    ];
    for &(input, kind, offset) in cases {
        let e = json_err(input);
        assert_eq!(
            (e.kind, e.offset),
            (kind, offset),
            "{:?}",
            String::from_utf8_lossy(input)
        );
    }
    // Surrounding whitespace is fine, and a valid pair is fine.
    assert!(ResultView::parse(b" \r\n{\"content\":[],\"x\":\"\\ud83d\\ude00\"}\n").is_ok());
}

fn nested(depth: usize) -> Vec<u8> {
    let mut v = br#"{"content":[],"structuredContent":"#.to_vec();
    v.extend(std::iter::repeat_n(b'[', depth));
    v.extend(std::iter::repeat_n(b']', depth));
    v.push(b'}');
    v
}

#[test]
fn nesting_is_bounded_and_documented() {
    let limit = usize::from(json::DEFAULT_MAX_DEPTH);
    // The result object is level 1, so structuredContent may nest `limit - 1` levels.
    assert!(ResultView::parse(&nested(limit - 1)).is_ok());
    let e = json_err(&nested(limit));
    assert_eq!(e.kind, K::TooDeep);
    assert_eq!(e.offset, 34 + limit - 1);
    // A caller can lower the bound, or raise it up to the scanner's ceiling.
    let shallow = Limits { max_depth: 3 };
    assert!(matches!(
        ResultView::parse_with(&nested(3), shallow),
        Err(ResultError::Json(DecodeError {
            kind: K::TooDeep,
            ..
        }))
    ));
    let deep = Limits {
        max_depth: json::MAX_DEPTH_LIMIT,
    };
    assert!(ResultView::parse_with(&nested(usize::from(json::MAX_DEPTH_LIMIT) - 1), deep).is_ok());
}

#[test]
fn megabyte_of_brackets_is_an_error_on_a_small_stack() {
    // No recursion: a 1 MiB nesting attempt on a 64 KiB stack ends in TooDeep, not a crash.
    let handle = std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(|| {
            let mut input = br#"{"content":[],"structuredContent":"#.to_vec();
            input.extend(std::iter::repeat_n(b'[', 1 << 20));
            let e = json_err(&input);
            let mut scratch = [0u8; 0];
            let e2 = json::from_slice::<Json>(&input[34..], &mut scratch)
                .map(|_| ())
                .unwrap_err();
            (e.kind, e2.kind)
        })
        .unwrap();
    assert_eq!(handle.join().unwrap(), (K::TooDeep, K::TooDeep));
}

/// A random `CallToolResult` as serde_json would send it, with any block kinds and members.
fn any_result() -> impl Strategy<Value = Json> {
    let block = prop_oneof![
        tricky_string().prop_map(|t| json!({"type": "text", "text": t})),
        (tricky_string(), tricky_string())
            .prop_map(|(d, m)| json!({"type": "image", "data": d, "mimeType": m})),
        (tricky_string(), tricky_string())
            .prop_map(|(d, m)| json!({"annotations": {"priority": 0.5}, "type": "audio", "data": d, "mimeType": m})),
        (tricky_string(), tricky_string(), proptest::option::of(tricky_string()), proptest::option::of(tricky_string())).prop_map(
            |(u, n, m, d)| {
                let mut b = json!({"type": "resource_link", "uri": u, "name": n, "size": 3});
                if let Some(m) = m { b["mimeType"] = json!(m); }
                if let Some(d) = d { b["description"] = json!(d); }
                b
            }
        ),
        tricky_string().prop_map(|t| json!({"type": "resource", "resource": {"uri": "x:y", "text": t}})),
        json_value().prop_map(|v| json!({"type": "x-future", "payload": v})),
    ];
    (
        proptest::collection::vec(block, 0..5),
        proptest::option::of(json_value()),
        proptest::option::of(any::<bool>()),
        proptest::option::of(tricky_string()),
        proptest::option::of(json_value()),
    )
        .prop_map(|(content, structured, is_error, result_type, extra)| {
            let mut r = json!({ "content": content });
            if let Some(s) = structured {
                r["structuredContent"] = s;
            }
            if let Some(e) = is_error {
                r["isError"] = json!(e);
            }
            if let Some(t) = result_type {
                r["resultType"] = json!(t);
            }
            if let Some(x) = extra {
                r["zExtra"] = x;
            }
            r
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Two implementations agree: the view reads what serde_json reads, compact or pretty.
    #[test]
    fn view_agrees_with_serde_json(r in any_result(), pretty in any::<bool>()) {
        let bytes = if pretty {
            serde_json::to_vec_pretty(&r).unwrap()
        } else {
            serde_json::to_vec(&r).unwrap()
        };
        let view = ResultView::parse(&bytes).unwrap();
        agree(&view, &r);
        if let Some(expected) = r.get("structuredContent") {
            let mut scratch = vec![0u8; bytes.len()];
            let back: Json = view.structured_as(&mut scratch).unwrap();
            prop_assert_eq!(&back, expected);
        }
    }

    /// The one-pass view reports exactly the JSON error the checked scanner reports, for
    /// results damaged by one inserted, deleted or replaced byte.
    #[test]
    fn json_errors_match_the_scanner(
        r in any_result(),
        at in any::<proptest::sample::Index>(),
        byte in prop_oneof![
            Just(b'"'), Just(b'\\'), Just(b','), Just(b'}'), Just(b']'), Just(b'{'),
            Just(b'['), Just(b':'), Just(0xff), Just(b'1'), any::<u8>()
        ],
        edit in 0..3u8,
    ) {
        let mut bytes = serde_json::to_vec(&r).unwrap();
        let i = at.index(bytes.len());
        match edit {
            0 => bytes.insert(i, byte),
            1 => { bytes.remove(i); }
            _ => bytes[i] = byte,
        }
        match (json::Value::parse(&bytes), ResultView::parse(&bytes)) {
            (Err(e), got) => prop_assert_eq!(got.map(|_| ()), Err(ResultError::Json(e))),
            (Ok(_), Err(ResultError::Json(e))) => prop_assert!(false, "view refused valid JSON: {e}"),
            (Ok(_), _) => {}
        }
    }

    /// Arbitrary bytes never panic: they decode or give an error.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = ResultView::parse(&bytes);
    }

    /// Cutting a valid result anywhere gives an error, never a shorter valid result.
    #[test]
    fn truncations_are_errors(r in any_result(), cut in any::<proptest::sample::Index>()) {
        let bytes = serde_json::to_vec(&r).unwrap();
        let at = cut.index(bytes.len());
        prop_assert!(ResultView::parse(&bytes[..at]).is_err());
    }
}
