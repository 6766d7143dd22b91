//! Every result the encoder writes validates against `CallToolResult` of the official schema of
//! each revision of its era: 2025-06-18 and 2025-11-25 for [`Era::Legacy`], 2026-07-28 for
//! [`Era::Stateless`]. Two independent validators must both accept it: the project's
//! `embedded_mcp_std::mcp_schema::McpSchemas`, and the `jsonschema` crate run directly on a schema
//! made of the file's definitions and a reference to `CallToolResult`, with format checks on.

mod codec_support;

use std::sync::OnceLock;

use codec_support::{era, json_value, tricky_string, VecSink};
use embedded_mcp::json;
use embedded_mcp::result::{
    encode_error, encode_structured, encode_structured_raw, encode_text, Era, ResultWriter,
};
use embedded_mcp_std::mcp_schema::McpSchemas;
use embedded_mcp_tests::vectors_dir;
use proptest::prelude::*;
use serde_json::{json, Value as Json};

const LEGACY: [&str; 2] = ["2025-06-18", "2025-11-25"];
const STATELESS: [&str; 1] = ["2026-07-28"];

/// A validator of `CallToolResult` for one revision.
fn build(version: &str) -> jsonschema::Validator {
    let path = vectors_dir()
        .join("mcp-schema")
        .join(version)
        .join("schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let file: Json = serde_json::from_str(&text).unwrap();
    // 2025-06-18 is draft-07 with `definitions`; the later ones are 2020-12 with `$defs`.
    let (key, dialect) = if file.get("$defs").is_some() {
        ("$defs", "https://json-schema.org/draft/2020-12/schema")
    } else {
        ("definitions", "http://json-schema.org/draft-07/schema#")
    };
    let schema = json!({
        "$schema": dialect,
        key: file[key].clone(),
        "allOf": [{ "$ref": format!("#/{key}/CallToolResult") }],
    });
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{version}: {e}"))
}

fn mcp_schemas() -> &'static McpSchemas {
    static SCHEMAS: OnceLock<McpSchemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        McpSchemas::load(&vectors_dir().join("mcp-schema")).expect("official MCP schemas load")
    })
}

fn validators() -> &'static [(&'static str, jsonschema::Validator)] {
    static ALL: OnceLock<Vec<(&'static str, jsonschema::Validator)>> = OnceLock::new();
    ALL.get_or_init(|| {
        LEGACY
            .iter()
            .chain(STATELESS.iter())
            .map(|v| (*v, build(v)))
            .collect()
    })
}

fn validator(version: &str) -> &'static jsonschema::Validator {
    &validators()
        .iter()
        .find(|(v, _)| *v == version)
        .expect("known version")
        .1
}

fn versions(era: Era) -> &'static [&'static str] {
    match era {
        Era::Legacy => &LEGACY,
        Era::Stateless => &STATELESS,
    }
}

/// Asserts that `bytes` is a valid `CallToolResult` for every revision of `era`.
fn assert_valid(era: Era, bytes: &[u8]) {
    let value: Json = serde_json::from_slice(bytes).expect("JSON");
    for version in versions(era) {
        if let Err(e) = validator(version).validate(&value) {
            panic!(
                "jsonschema, {version}: {e} at {}\n{}",
                e.instance_path(),
                String::from_utf8_lossy(bytes)
            );
        }
        if let Err(e) = mcp_schemas().check_def(version, "CallToolResult", &value) {
            panic!(
                "McpSchemas, {version}: {e}\n{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}

fn structured(era: Era, value: &Json) -> Vec<u8> {
    let mut buf = vec![0u8; 1 << 16];
    let done = encode_structured(&mut buf, era, value).unwrap();
    buf.truncate(done.len);
    buf
}

#[test]
fn fixed_results_validate() {
    #[derive(serde::Serialize)]
    struct Reading<'a> {
        sensor: &'a str,
        celsius: f32,
        ok: bool,
    }
    let reading = Reading {
        sensor: "t\"0",
        celsius: 21.5,
        ok: true,
    };
    for era in [Era::Legacy, Era::Stateless] {
        let mut buf = vec![0u8; 4096];
        let n = encode_structured(&mut buf, era, &reading).unwrap().len;
        assert_valid(era, &buf[..n]);
        for value in [
            json!([1, 2]),
            json!("s"),
            json!(null),
            json!(1.5),
            json!(true),
            json!({}),
        ] {
            assert_valid(era, &structured(era, &value));
        }
        let raw = json::Value::parse(b" [ {\"a\" : 1} ] ").unwrap();
        let n = encode_structured_raw(&mut buf, era, raw).unwrap().len;
        assert_valid(era, &buf[..n]);
        let n = encode_error(&mut buf, era, "sensor \"t0\" timed out\n")
            .unwrap()
            .len;
        assert_valid(era, &buf[..n]);
        let n = encode_text(&mut buf, era, "").unwrap().len;
        assert_valid(era, &buf[..n]);

        let mut sink = VecSink::default();
        ResultWriter::new(&mut sink, era).finish().unwrap();
        assert_valid(era, &sink.0);

        let mut sink = VecSink::default();
        let mut w = ResultWriter::with_structured(&mut sink, era, &reading).unwrap();
        w.text("more").unwrap();
        w.image("iVBORw0KGgo=", "image/png").unwrap();
        w.audio_bytes(b"RIFF\x00\x01", "audio/wav").unwrap();
        w.image_bytes(&[0xff; 7], "image/jpeg").unwrap();
        w.resource_link(
            "file:///log/2025.csv",
            "log",
            Some("text/csv"),
            Some("all readings"),
        )
        .unwrap();
        w.resource_link("https://example.com/a", "a", None, None)
            .unwrap();
        w.set_error(true);
        w.finish().unwrap();
        assert_valid(era, &sink.0);
    }
}

/// The validators are live: they refuse what the eras must not send.
#[test]
fn validators_reject_era_mismatches() {
    let stateless_array = structured(Era::Stateless, &json!([1, 2]));
    let value: Json = serde_json::from_slice(&stateless_array).unwrap();
    for version in LEGACY {
        assert!(
            !validator(version).is_valid(&value),
            "{version} must refuse a non-object structuredContent"
        );
        assert!(mcp_schemas()
            .check_def(version, "CallToolResult", &value)
            .is_err());
    }
    let legacy = structured(Era::Legacy, &json!({"a": 1}));
    let value: Json = serde_json::from_slice(&legacy).unwrap();
    assert!(
        !validator("2026-07-28").is_valid(&value),
        "2026-07-28 requires resultType"
    );
    assert!(mcp_schemas()
        .check_def("2026-07-28", "CallToolResult", &value)
        .is_err());
    for version in LEGACY.iter().chain(&STATELESS) {
        let bad = json!({"resultType": "complete", "content": [{"type": "text"}]});
        assert!(!validator(version).is_valid(&bad), "{version}");
        assert!(mcp_schemas()
            .check_def(version, "CallToolResult", &bad)
            .is_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_structured_value_validates(v in json_value(), era in era()) {
        assert_valid(era, &structured(era, &v));
    }

    #[test]
    fn any_error_or_blocks_validate(
        message in tricky_string(),
        uri in "[a-z]{1,8}:[a-z/]{0,12}",
        name in tricky_string(),
        data in proptest::collection::vec(any::<u8>(), 0..32),
        era in era(),
    ) {
        let mut buf = vec![0u8; 4096];
        let n = encode_error(&mut buf, era, &message).unwrap().len;
        assert_valid(era, &buf[..n]);
        let mut sink = VecSink::default();
        let mut w = ResultWriter::new(&mut sink, era);
        w.text(&message).unwrap();
        w.image_bytes(&data, &name).unwrap();
        w.resource_link(&uri, &name, Some(&message), Some(&name)).unwrap();
        w.finish().unwrap();
        assert_valid(era, &sink.0);
    }
}
