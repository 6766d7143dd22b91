//! Strategies and helpers shared by the `codec_*` tests (included with `mod codec_support;`).
#![allow(dead_code)] // each test file uses a different part

use embedded_mcp::json::{EncodeError, Sink};
use embedded_mcp::result::Era;
use proptest::prelude::*;
use serde_json::{json, Value as Json};

/// Characters that stress escaping: quotes, backslashes, every control character, DEL,
/// non-ASCII, line/paragraph separators, astral-plane characters, and anything at all.
pub fn tricky_char() -> impl Strategy<Value = char> {
    prop_oneof![
        Just('"'),
        Just('\\'),
        Just('/'),
        proptest::char::range('\u{0}', '\u{1f}'),
        Just('\u{7f}'),
        Just('é'),
        Just('\u{2028}'),
        Just('\u{fffd}'),
        proptest::char::range('\u{10000}', '\u{10ffff}'),
        proptest::char::range('a', 'z'),
        any::<char>(),
    ]
}

/// Strings made of [`tricky_char`]s.
pub fn tricky_string() -> impl Strategy<Value = String> {
    proptest::collection::vec(tricky_char(), 0..24).prop_map(String::from_iter)
}

/// Finite floats of every class (normal, subnormal, zero, both signs), as JSON can hold them.
pub fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
        Just(0.0),
        Just(-0.0),
        Just(0.1),
        Just(1e300),
        Just(5e-324),
        Just(9007199254740993.0),
    ]
}

/// Arbitrary JSON documents (depth up to 6), with tricky strings in keys and values.
pub fn json_value() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        any::<u64>().prop_map(|u| json!(u)),
        finite_f64().prop_map(|f| json!(f)),
        tricky_string().prop_map(Json::String),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Json::Array),
            proptest::collection::btree_map(tricky_string(), inner, 0..8)
                .prop_map(|m| Json::Object(m.into_iter().collect())),
        ]
    })
}

/// Either era.
pub fn era() -> impl Strategy<Value = Era> {
    prop_oneof![Just(Era::Legacy), Just(Era::Stateless)]
}

/// The structured value a result of `era` must carry for `value`: wrapped for legacy peers
/// when it is not an object.
pub fn expected_structured(era: Era, value: Json) -> Json {
    match (era, value) {
        (Era::Legacy, v) if !v.is_object() => json!({ "result": v }),
        (_, v) => v,
    }
}

/// A growable sink, to check the sink-generic encoders against the slice ones.
#[derive(Default)]
pub struct VecSink(pub Vec<u8>);

impl Sink for VecSink {
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}
