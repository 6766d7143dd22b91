//! The derive's schemas agree with serde and with a full validator: random values serialised
//! by serde validate under the derived program and under `embedded_mcp_std::full` run on the
//! derived schema text; mutated values (wrong type, out of range, missing required property,
//! extra property) are refused by both, and by serde.
//!
//! Every instance is also checked by the evaluators built for the derived programs' keywords
//! alone (`Program::validate_for`, which `Server::from_tools` uses): their result must be the
//! full evaluator's, violation kind, keyword, path and message byte for byte, on these values
//! and on random JSON values of every shape.

mod types;

use std::marker::PhantomData;

use embedded_mcp::schema::{KeywordSet, Keywords, McpSchema, Program};
use embedded_mcp_std::full::FullValidator;
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use types::*;

fn full(schema: &str) -> FullValidator {
    FullValidator::new(&serde_json::from_str(schema).unwrap()).unwrap()
}

/// The keywords of `T`'s input program.
struct InputKeywords<T>(PhantomData<T>);

impl<T: McpSchema> Keywords for InputKeywords<T> {
    const SET: KeywordSet = KeywordSet::of(&T::INPUT_PROGRAM);
}

/// The keywords of `T`'s output program.
struct OutputKeywords<T>(PhantomData<T>);

impl<T: McpSchema> Keywords for OutputKeywords<T> {
    const SET: KeywordSet = KeywordSet::of(&T::OUTPUT_PROGRAM);
}

/// The keywords of both, as a server built from tools taking and returning `T` has them.
struct BothKeywords<T>(PhantomData<T>);

impl<T: McpSchema> Keywords for BothKeywords<T> {
    const SET: KeywordSet = InputKeywords::<T>::SET.union(OutputKeywords::<T>::SET);
}

/// Under both of `T`'s programs, the evaluators built for their keywords give the full
/// evaluator's result on the JSON `text`, byte for byte; returns the full input verdict.
fn subsets_agree<T: McpSchema>(text: &str) -> bool {
    let value = embedded_mcp::json::Value::parse(text.as_bytes()).unwrap();
    let sides = [
        (
            T::INPUT_PROGRAM,
            T::INPUT_PROGRAM.validate_for::<InputKeywords<T>>(value),
            T::INPUT_PROGRAM.validate_for::<BothKeywords<T>>(value),
        ),
        (
            T::OUTPUT_PROGRAM,
            T::OUTPUT_PROGRAM.validate_for::<OutputKeywords<T>>(value),
            T::OUTPUT_PROGRAM.validate_for::<BothKeywords<T>>(value),
        ),
    ];
    for (program, own, both) in sides {
        let all = program.validate(value);
        let shown = |r: &Result<(), embedded_mcp::schema::Violation>| {
            r.map_err(|v| (v.kind, v.keyword, v.to_string()))
        };
        assert_eq!(shown(&own), shown(&all), "{text}");
        assert_eq!(own, all, "{text}");
        assert_eq!(both, all, "{text}");
    }
    T::INPUT_PROGRAM.validate(value).is_ok()
}

fn accepted<T: McpSchema>(program: Program<'_>, schema: &str, v: &Value) -> (bool, bool) {
    let text = serde_json::to_string(v).unwrap();
    subsets_agree::<T>(&text);
    (
        program.validate_bytes(text.as_bytes()).is_ok(),
        full(schema).is_valid(v),
    )
}

/// `v` read by the derived `FromJson` reader (what the device runs after the schema).
fn read<T: for<'a> embedded_mcp::json::FromJson<'a>>(v: &Value) -> Option<T> {
    let text = serde_json::to_string(v).unwrap();
    let value = embedded_mcp::json::Value::parse(text.as_bytes()).ok()?;
    let mut scratch = [0u8; 256];
    embedded_mcp::json::from_value_json::<T>(value, &mut scratch).ok()
}

/// `value` as serde writes it validates under the output schema, and (when `reads_back`)
/// under the input schema.
fn valid<T: McpSchema + Serialize>(value: &T, reads_back: bool) -> Value {
    let v = serde_json::to_value(value).unwrap();
    assert_eq!(
        accepted::<T>(T::OUTPUT_PROGRAM, T::OUTPUT_SCHEMA, &v),
        (true, true),
        "{v}"
    );
    if reads_back {
        assert_eq!(
            accepted::<T>(T::INPUT_PROGRAM, T::INPUT_SCHEMA, &v),
            (true, true),
            "{v}"
        );
    }
    v
}

/// Both validators and serde refuse `v` as input.
fn refused<T: McpSchema + DeserializeOwned>(v: &Value) {
    refused_by_schemas::<T>(v);
    assert!(
        serde_json::from_value::<T>(v.clone()).is_err(),
        "serde read {v}"
    );
}

/// Both validators refuse `v` as input (serde ignores unknown properties, the input schema's
/// top level does not).
fn refused_by_schemas<T: McpSchema>(v: &Value) {
    assert_eq!(
        accepted::<T>(T::INPUT_PROGRAM, T::INPUT_SCHEMA, v),
        (false, false),
        "{v}"
    );
}

/// The mutations of an object instance every derived input schema must refuse: each property
/// with a value of the wrong type, each required property missing, one property too many.
fn mutations<T: McpSchema + DeserializeOwned>(v: &Value) {
    let schema: Value = serde_json::from_str(T::INPUT_SCHEMA).unwrap();
    let Value::Object(obj) = v else { return };
    for (k, field) in obj {
        let wrong = match field {
            Value::String(_) => json!(7),
            _ => json!("wrong"),
        };
        let mut m = obj.clone();
        m.insert(k.clone(), wrong);
        refused::<T>(&Value::Object(m));
    }
    for r in schema["required"].as_array().into_iter().flatten() {
        let mut m = obj.clone();
        m.remove(r.as_str().unwrap());
        refused::<T>(&Value::Object(m));
    }
    if schema["additionalProperties"] == json!(false) {
        let mut m = obj.clone();
        m.insert("extra".into(), json!(1));
        refused_by_schemas::<T>(&Value::Object(m));
    }
}

/// Sets integer property `k` one past each end of its schema's range. The number is written
/// exactly into the JSON text; the full validator reads numbers as `f64`/`i64`/`u64`, so it is
/// asked only where the number is exact in those (below 2^53 in magnitude).
fn out_of_range<T: McpSchema + DeserializeOwned>(v: &Value, k: &str) {
    let schema: Value = serde_json::from_str(T::INPUT_SCHEMA).unwrap();
    let p = &schema["properties"][k];
    for (bound, step) in [("minimum", -1i128), ("maximum", 1)] {
        let edge: i128 = p[bound].to_string().parse().unwrap();
        let beyond = edge + step;
        let mut m = v.as_object().unwrap().clone();
        m.insert(k.into(), json!("@"));
        let text = serde_json::to_string(&m)
            .unwrap()
            .replace("\"@\"", &beyond.to_string());
        assert!(!subsets_agree::<T>(&text), "{text}");
        assert!(
            T::INPUT_PROGRAM.validate_bytes(text.as_bytes()).is_err(),
            "{text}"
        );
        assert!(
            serde_json::from_str::<T>(&text).is_err(),
            "serde read {text}"
        );
        if beyond.abs() < 1 << 53 {
            let parsed: Value = serde_json::from_str(&text).unwrap();
            assert!(!full(T::INPUT_SCHEMA).is_valid(&parsed), "{text}");
        }
    }
}

fn settings() -> impl Strategy<Value = Settings> {
    (0u8..=10, any::<bool>()).prop_map(|(level, enabled)| Settings { level, enabled })
}

fn mode() -> impl Strategy<Value = Mode> {
    prop_oneof![
        Just(Mode::Idle),
        Just(Mode::FastSample),
        Just(Mode::PowerDown)
    ]
}

fn heapless_vec<T: std::fmt::Debug, const N: usize>(
    s: impl Strategy<Value = T>,
    min: usize,
) -> impl Strategy<Value = heapless::Vec<T, N>> {
    proptest::collection::vec(s, min..=N).prop_map(|v| v.into_iter().collect())
}

proptest! {
    #[test]
    fn settings_agree(s in settings()) {
        let v = valid(&s, true);
        mutations::<Settings>(&v);
        let mut m = v.as_object().unwrap().clone();
        m.insert("level".into(), json!(11));
        refused_by_schemas::<Settings>(&Value::Object(m)); // #[mcp(maximum = 10)]
    }

    #[test]
    fn celsius_and_mode_agree(c in -40.0f32..=125.0, m in mode()) {
        valid(&Celsius(c), true);
        refused_by_schemas::<Celsius>(&json!(126));
        refused::<Celsius>(&json!("hot"));
        valid(&m, true);
        refused::<Mode>(&json!("fastSample"));
        refused::<Mode>(&json!(1));
    }

    #[test]
    fn ints_agree(a: u8, b: i8, c: u16, d: i16, e: u32, f: i32, g: u64, h: i64, on: bool) {
        let v = valid(&Ints { a, b, c, d, e, f, g, h, on }, true);
        mutations::<Ints>(&v);
        for k in ["a", "b", "c", "d", "e", "f", "g", "h"] {
            out_of_range::<Ints>(&v, k);
        }
    }

    #[test]
    fn floats_agree(half_steps in 0u8..=6, x in -1.49f64..999.9) {
        let v = valid(&Floats { step: f32::from(half_steps) * 0.5, x }, true);
        mutations::<Floats>(&v);
        let mut m = v.as_object().unwrap().clone();
        m.insert("step".into(), json!(0.25));
        let (ours, theirs) = accepted::<Floats>(Floats::INPUT_PROGRAM, Floats::INPUT_SCHEMA, &Value::Object(m));
        prop_assert_eq!((ours, theirs), (false, false));
    }

    #[test]
    fn optional_agrees(a: Option<u8>, b: Option<i16>) {
        // serde writes `None` of `a` as `null`: the input schema takes it (`["integer","null"]`,
        // as strict tool calling and Python clients send an absent optional argument), and the
        // derived reader reads it as `None`, as serde does.
        let o = Optional { a, b };
        let v = valid(&o, true);
        mutations::<Optional>(&v);
        let mut m = v.as_object().unwrap().clone();
        m.insert("b".into(), Value::Null);
        let nulls = Value::Object(m);
        prop_assert_eq!(accepted::<Optional>(Optional::INPUT_PROGRAM, Optional::INPUT_SCHEMA, &nulls), (true, true));
        prop_assert_eq!(read::<Optional>(&nulls), Some(Optional { a, b: None }));
        prop_assert_eq!(serde_json::from_value::<Optional>(nulls).ok(), Some(Optional { a, b: None }));
    }

    #[test]
    fn float_ranges_agree(single in proptest::num::f32::NORMAL | proptest::num::f32::ZERO,
                          double in proptest::num::f64::NORMAL | proptest::num::f64::ZERO,
                          maybe: Option<f32>,
                          beyond in 3.41e38f64..1e308) {
        // Every finite value is accepted and read back; `null` for the `Option`.
        let maybe = maybe.filter(|m| m.is_finite());
        let r = Ranges { single, double, maybe };
        let v = valid(&r, true);
        mutations::<Ranges>(&v);
        prop_assert_eq!(read::<Ranges>(&v), Some(r.clone()));
        // Beyond `f32`'s range, either sign: refused by the schema, before the reader (which
        // would refuse it with a less clear error); `f64` has room for it.
        for beyond in [beyond, -beyond] {
            let mut m = v.as_object().unwrap().clone();
            m.insert("single".into(), json!(beyond));
            refused_by_schemas::<Ranges>(&Value::Object(m.clone()));
            m.insert("maybe".into(), json!(beyond));
            m.insert("single".into(), json!(1.5));
            refused_by_schemas::<Ranges>(&Value::Object(m.clone()));
            m.insert("maybe".into(), Value::Null);
            m.insert("double".into(), json!(beyond));
            prop_assert_eq!(accepted::<Ranges>(Ranges::INPUT_PROGRAM, Ranges::INPUT_SCHEMA, &Value::Object(m.clone())), (true, true));
            prop_assert!(read::<Ranges>(&Value::Object(m)).is_some());
        }
    }

    #[test]
    fn arrays_agree(xyz in proptest::array::uniform3(-1000i16..=1000),
                    samples in heapless_vec::<u8, 4>(0u8..=100, 1)) {
        let v = valid(&Fixed { xyz }, true);
        mutations::<Fixed>(&v);
        refused::<Fixed>(&json!({"xyz": [1, 2]}));
        refused::<Fixed>(&json!({"xyz": [1, 2, 3, 4]}));
        let v = valid(&Bounded { samples }, true);
        mutations::<Bounded>(&v);
        refused_by_schemas::<Bounded>(&json!({"samples": []})); // #[mcp(min_items = 1)]
        refused::<Bounded>(&json!({"samples": [1, 2, 3, 4, 5]}));
    }

    #[test]
    fn texts_agree(borrowed in "[a-zé]{1,12}", owned in "[a-z]{0,8}", letter: char) {
        let t = Texts { borrowed: &borrowed, owned: owned.as_str().try_into().unwrap(), letter };
        let v = valid(&t, true);
        let schema = Texts::INPUT_SCHEMA;
        for bad in [json!({"borrowed": "", "owned": "a", "letter": "x"}),
                    json!({"borrowed": "a", "owned": "abcdefghi", "letter": "x"}),
                    json!({"borrowed": "a", "owned": "a", "letter": "xy"})] {
            prop_assert_eq!(accepted::<Texts>(Texts::INPUT_PROGRAM, schema, &bad), (false, false));
        }
        let _ = v;
    }

    #[test]
    fn nested_agrees(mode in mode(), settings in settings(), c in -40.0f32..=125.0,
                     history in heapless_vec::<Settings, 2>(settings(), 0)) {
        let v = valid(&Nested { mode, settings, temperature: Celsius(c), history }, true);
        mutations::<Nested>(&v);
        let mut m = v.as_object().unwrap().clone();
        m.insert("settings".into(), json!({"level": 1}));
        refused::<Nested>(&Value::Object(m.clone()));
        m.insert("settings".into(), json!({"level": 11, "enabled": true}));
        refused_by_schemas::<Nested>(&Value::Object(m));
    }

    #[test]
    fn attributes_agree(sensor_id: u8, sample_count: u16, gain_db: u8) {
        let a = Attributes { sensor_id, sample_count, cache: 0, gain_db, write_only: false };
        let v = valid(&a, false);
        let input = json!({"ID": sensor_id, "write-only": true});
        prop_assert_eq!(accepted::<Attributes>(Attributes::INPUT_PROGRAM, Attributes::INPUT_SCHEMA, &input), (true, true));
        prop_assert!(serde_json::from_value::<Attributes>(input).is_ok());
        mutations::<Attributes>(&json!({"ID": sensor_id, "sample-count": sample_count, "gain-db": gain_db, "write-only": true}));
        let _ = v;
    }

    #[test]
    fn open_and_strict_agree(x: u8, y: bool) {
        let v = valid(&Open { x }, true);
        let mut m = v.as_object().unwrap().clone();
        m.insert("extra".into(), json!(1));
        prop_assert_eq!(accepted::<Open>(Open::INPUT_PROGRAM, Open::INPUT_SCHEMA, &Value::Object(m)), (true, true));
        let v = valid(&Strict { inner: StrictInner { y } }, true);
        mutations::<Strict>(&v);
        refused::<Strict>(&json!({"inner": {"y": y, "extra": 1}}));
    }
}

/// `uniqueItems` over scalars and over arrays (its equality of containers), and an optional
/// nested type (`anyOf` with `null` on output).
#[derive(
    embedded_mcp_macros::McpSchema, Serialize, serde::Deserialize, Debug, Clone, PartialEq,
)]
struct Distinct {
    #[mcp(unique_items)]
    modes: heapless::Vec<Mode, 3>,
    #[mcp(unique_items, maximum = 9)]
    pairs: heapless::Vec<[u8; 2], 3>,
    inner: Option<Settings>,
}

/// Names the derived types use, so that random objects hit their properties.
const NAMES: &[&str] = &[
    "level",
    "enabled",
    "a",
    "b",
    "e",
    "h",
    "on",
    "step",
    "x",
    "xyz",
    "samples",
    "borrowed",
    "owned",
    "letter",
    "mode",
    "settings",
    "temperature",
    "history",
    "ID",
    "sample-count",
    "gain-db",
    "write-only",
    "inner",
    "y",
    "modes",
    "pairs",
    "extra",
];

fn any_json() -> impl Strategy<Value = Value> {
    let scalar = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..300).prop_map(Value::from),
        prop::sample::select(vec![0.5, 1.5, -1.5, 2.75, 1e3, 1e20, -40.0, 125.0])
            .prop_map(|f| json!(f)),
        prop::sample::select(vec![i64::MIN, -129, 65_536, i64::MAX]).prop_map(Value::from),
        prop::sample::select(vec![
            "idle",
            "fast_sample",
            "off",
            "",
            "é",
            "abcdefghi",
            "q\"\n"
        ])
        .prop_map(Value::from),
    ];
    scalar.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(prop::sample::select(NAMES), inner, 0..5).prop_map(|m| {
                Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

/// Every derived type's evaluators on `text`.
fn all_subsets_agree(text: &str) {
    subsets_agree::<Settings>(text);
    subsets_agree::<Celsius>(text);
    subsets_agree::<Mode>(text);
    subsets_agree::<Ints>(text);
    subsets_agree::<Floats>(text);
    subsets_agree::<Optional>(text);
    subsets_agree::<Ranges>(text);
    subsets_agree::<Fixed>(text);
    subsets_agree::<Bounded>(text);
    subsets_agree::<Texts>(text);
    subsets_agree::<Nested>(text);
    subsets_agree::<Attributes>(text);
    subsets_agree::<Open>(text);
    subsets_agree::<Strict>(text);
    subsets_agree::<Distinct>(text);
}

/// Strings with escapes (serde writes none of these) against the derived `enum`s and names.
#[test]
fn subset_evaluators_agree_on_escaped_strings() {
    let mode = [
        r#""\u0069dle""#,
        r#""fast\u005fsample""#,
        r#""of\u0066""#,
        r#""\u00e9""#,
        r#""idle\n""#,
        r#""\"idle\"""#,
        r#""id\u006ce\u0000""#,
    ];
    for m in mode {
        all_subsets_agree(m);
        all_subsets_agree(&format!(
            r#"{{"mode":{m},"settings":{{"level":1,"enabled":true}},"temperature":1,"history":[]}}"#
        ));
        all_subsets_agree(&format!(
            r#"{{"modes":[{m},"idle",{m}],"pairs":[],"inner":null}}"#
        ));
        all_subsets_agree(&format!(
            r#"{{"\u006c\u0065vel":{m},"enabled":true,"\u0065xtra":1}}"#
        ));
    }
}

proptest! {
    #[test]
    fn subset_evaluators_agree_on_any_value(v in any_json(), distinct in any_json()) {
        all_subsets_agree(&serde_json::to_string(&v).unwrap());
        // Shaped like `Distinct`, to reach `uniqueItems` with equal and unequal items.
        let shaped = json!({"modes": [distinct.clone(), "idle", distinct.clone()],
                            "pairs": [[1, 2], [1, 2.0]], "inner": distinct.clone()});
        subsets_agree::<Distinct>(&serde_json::to_string(&shaped).unwrap());
        let shaped = json!({"modes": [], "pairs": [distinct.clone(), [3, 4], distinct]});
        subsets_agree::<Distinct>(&serde_json::to_string(&shaped).unwrap());
    }

    #[test]
    fn distinct_agrees(modes in heapless_vec::<Mode, 3>(mode(), 0), a: u8, b: u8) {
        let distinct = Distinct { modes, pairs: [[a % 10, b % 10]].into_iter().collect(), inner: None };
        let mut v = serde_json::to_value(&distinct).unwrap();
        v.as_object_mut().unwrap().remove("inner"); // `None` is written as `null`, not read
        let unique = { let m = distinct.modes.clone(); m.iter().enumerate().all(|(i, x)| !m[..i].contains(x)) };
        prop_assert_eq!(accepted::<Distinct>(Distinct::INPUT_PROGRAM, Distinct::INPUT_SCHEMA, &v), (unique, unique));
        let twice = json!({"modes": [], "pairs": [[a % 10, b % 10], [a % 10, b % 10]], "inner": null});
        prop_assert_eq!(accepted::<Distinct>(Distinct::OUTPUT_PROGRAM, Distinct::OUTPUT_SCHEMA, &twice), (false, false));
    }
}
