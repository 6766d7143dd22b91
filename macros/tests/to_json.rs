//! The derived `ToJson` writes the bytes serde's derive writes (through `serde_json`), with the
//! serde attributes the derive reads, and falls back to serde for a field type without one.

use embedded_mcp::json::{SliceSink, ToJson};
use embedded_mcp::McpSchema;
use serde::Serialize;

fn written(v: &dyn ToJson) -> String {
    let mut buf = [0u8; 512];
    let mut sink = SliceSink::new(&mut buf);
    v.to_json(&mut sink).unwrap();
    let n = sink.finish().unwrap();
    String::from_utf8(buf[..n].to_vec()).unwrap()
}

fn same<T: ToJson + Serialize>(v: &T) {
    assert_eq!(written(v), serde_json::to_string(v).unwrap());
}

#[derive(McpSchema, Serialize, Clone, Copy)]
#[serde(rename_all = "kebab-case")]
enum Mode {
    SlowMode,
    #[serde(rename = "FAST")]
    Fast,
}

#[derive(McpSchema, Serialize)]
struct Celsius(f32);

#[derive(McpSchema, Serialize)]
#[serde(transparent)]
struct Count {
    n: u16,
}

/// Only serde can write it.
#[derive(Serialize)]
struct Foreign {
    x: i8,
}

#[derive(McpSchema, Serialize)]
struct Empty {}

#[derive(McpSchema, Serialize)]
#[serde(rename_all = "camelCase")]
struct Everything<'a> {
    sensor_name: &'a str,
    #[serde(rename = "T")]
    temp: Celsius,
    count: Count,
    #[serde(skip)]
    #[allow(dead_code)]
    hidden: u8,
    mode: Mode,
    modes: [Mode; 2],
    maybe: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    flag: bool,
    letter: char,
    label: heapless::String<8>,
    list: heapless::Vec<u32, 4>,
    nested: Empty,
    #[serde(skip_serializing_if = "is_zero")]
    zero: u64,
    #[mcp(description = "not derived")]
    foreign: ForeignField,
    #[mcp(minimum = -40)]
    fixed: embedded_mcp::json::FixedPoint<2>,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// A newtype with a derived schema around a type serde writes.
#[derive(McpSchema, Serialize)]
#[serde(transparent)]
struct ForeignField {
    inner: Count,
}

#[derive(McpSchema, Serialize)]
struct LeadingOptional {
    #[serde(skip_serializing_if = "Option::is_none")]
    a: Option<u8>,
    b: u8,
}

#[test]
fn derived_writer_is_serdes_bytes() {
    let mut e = Everything {
        sensor_name: "t\"0\n",
        temp: Celsius(36.88),
        count: Count { n: 7 },
        hidden: 9,
        mode: Mode::SlowMode,
        modes: [Mode::Fast, Mode::SlowMode],
        maybe: None,
        note: None,
        flag: true,
        letter: 'é',
        label: heapless::String::try_from("a\\b").unwrap(),
        list: heapless::Vec::from_slice(&[1, 2]).unwrap(),
        nested: Empty {},
        zero: 0,
        foreign: ForeignField {
            inner: Count { n: 1 },
        },
        fixed: embedded_mcp::json::FixedPoint(-3705),
    };
    same(&e);
    e.note = Some("n");
    e.zero = 5;
    e.maybe = Some(-3);
    same(&e);
    same(&LeadingOptional { a: None, b: 1 });
    same(&LeadingOptional { a: Some(2), b: 1 });
    same(&Empty {});
    same(&Mode::Fast);
    same(&Celsius(-0.5));
    // A fixed-point field is a number in the schema.
    assert!(Everything::OUTPUT_SCHEMA.contains(r#""fixed":{"type":"number","minimum":-40}"#));
}

/// `String` and `Vec` (std) have no `ToJson`: their fields go through serde.
#[derive(McpSchema, Serialize)]
struct Owned {
    name: String,
    values: Vec<u8>,
    n: u8,
}

#[test]
fn a_field_without_to_json_is_written_by_serde() {
    same(&Owned {
        name: "a\"b".into(),
        values: vec![1, 2],
        n: 3,
    });
    assert_eq!(
        written(&embedded_mcp::json::Serde(&Foreign { x: -1 })),
        r#"{"x":-1}"#
    );
}
