//! Differential test: random schemas inside the dialect and random instances, checked by the
//! core's compiled subset validator and by the host's full 2020-12 validator
//! (`embedded_mcp_std::full::FullValidator`, built on the `jsonschema` crate). They must agree
//! on every case.
//!
//! Numbers are drawn from values both implementations represent exactly (small integers,
//! halves and quarters), so a disagreement is a semantic difference, not float rounding.
//!
//! The evaluators built for fewer keywords (`Program::validate_for`) are checked on the same
//! cases against the core's full one: the same result, byte for byte, when their set covers
//! the program; otherwise that result or a refusal (`ViolationKind::Unsupported`), never
//! another verdict.

use std::sync::atomic::{AtomicUsize, Ordering};

use embedded_mcp::schema::__private::{Op, Str};
use embedded_mcp::schema::{
    compile, KeywordSet, Keywords, Program, Storage, Violation, ViolationKind,
};
use embedded_mcp_std::full::FullValidator;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Map, Value};

/// Schemas per run (each proptest case carries 1 to 4 instances); `SUBSET_DIFF_CASES`
/// overrides it for longer local runs.
const CASES: u32 = 6_000;

const KEYS: &[&str] = &["a", "b", "c", "ab", "1", ""];
const PATTERNS: &[&str] = &[
    "^a", "b$", "^[ab]*$", "a|1", "^.{2}$", "[0-9]", "^(ab)+$", "^$", "_", "^[^a]+$", "a?b{1,2}",
];
const TYPES: &[&str] = &[
    "null", "boolean", "integer", "number", "string", "array", "object",
];

fn key() -> impl Strategy<Value = String> {
    prop::sample::select(KEYS).prop_map(str::to_owned)
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-3i64..10).prop_map(Value::from),
        prop::sample::select(vec![0.5, 1.5, 2.0, -1.0, 2.5, 0.25, 3.0, -0.5])
            .prop_map(|f| json!(f)),
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        number(),
        "[ab1 _é]{0,4}".prop_map(Value::from),
    ]
}

fn instance() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 20, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(key(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn count() -> impl Strategy<Value = Value> {
    (0u64..4).prop_map(Value::from)
}

/// One assertion keyword (no subschemas).
fn assertion() -> impl Strategy<Value = (String, Value)> {
    let kw = |k: &'static str| move |v: Value| (k.to_owned(), v);
    prop_oneof![
        prop_oneof![
            prop::sample::select(TYPES).prop_map(|t| json!(t)),
            prop::sample::subsequence(TYPES, 1..3).prop_map(|t| json!(t)),
        ]
        .prop_map(kw("type")),
        prop::collection::vec(instance(), 1..4).prop_map(|v| ("enum".to_owned(), Value::Array(v))),
        instance().prop_map(kw("const")),
        number().prop_map(kw("minimum")),
        number().prop_map(kw("maximum")),
        number().prop_map(kw("exclusiveMinimum")),
        number().prop_map(kw("exclusiveMaximum")),
        prop::sample::select(vec![
            json!(1),
            json!(2),
            json!(3),
            json!(0.5),
            json!(2.5),
            json!(0.25)
        ])
        .prop_map(kw("multipleOf")),
        count().prop_map(kw("minLength")),
        count().prop_map(kw("maxLength")),
        prop::sample::select(PATTERNS).prop_map(|p| ("pattern".to_owned(), json!(p))),
        count().prop_map(kw("minItems")),
        count().prop_map(kw("maxItems")),
        any::<bool>().prop_map(|b| ("uniqueItems".to_owned(), json!(b))),
        count().prop_map(kw("minProperties")),
        count().prop_map(kw("maxProperties")),
        prop::sample::subsequence(KEYS, 0..3).prop_map(|k| ("required".to_owned(), json!(k))),
        (key(), prop::sample::subsequence(KEYS, 0..3))
            .prop_map(|(k, v)| ("dependentRequired".to_owned(), json!({ k: v }))),
    ]
}

/// One keyword with subschemas drawn from `inner`.
fn applicator(inner: BoxedStrategy<Value>) -> impl Strategy<Value = (String, Value)> {
    let one = |k: &'static str, s: BoxedStrategy<Value>| s.prop_map(move |v| (k.to_owned(), v));
    let list = |k: &'static str, s: BoxedStrategy<Value>| {
        prop::collection::vec(s, 1..4).prop_map(move |v| (k.to_owned(), Value::Array(v)))
    };
    let map = |k: &'static str, keys: BoxedStrategy<String>, s: BoxedStrategy<Value>| {
        prop::collection::btree_map(keys, s, 1..3)
            .prop_map(move |m| (k.to_owned(), Value::Object(m.into_iter().collect())))
    };
    let pattern = prop::sample::select(PATTERNS)
        .prop_map(str::to_owned)
        .boxed();
    prop_oneof![
        map("properties", key().boxed(), inner.clone()),
        map("patternProperties", pattern, inner.clone()),
        one("additionalProperties", inner.clone()),
        one("propertyNames", inner.clone()),
        one("items", inner.clone()),
        list("prefixItems", inner.clone()),
        one("contains", inner.clone()),
        count().prop_map(|c| ("minContains".to_owned(), c)),
        count().prop_map(|c| ("maxContains".to_owned(), c)),
        list("allOf", inner.clone()),
        list("anyOf", inner.clone()),
        list("oneOf", inner.clone()),
        one("not", inner.clone()),
        one("if", inner.clone()),
        one("then", inner.clone()),
        one("else", inner.clone()),
        map("dependentSchemas", key().boxed(), inner.clone()),
        one("unevaluatedProperties", inner.clone()),
        one("unevaluatedItems", inner),
        prop::sample::select(vec!["#/$defs/d0", "#/$defs/d1", "#"])
            .prop_map(|r| ("$ref".to_owned(), json!(r))),
    ]
}

fn object_of(pairs: Vec<(String, Value)>) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k, v);
    }
    Value::Object(m)
}

fn schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        1 => any::<bool>().prop_map(Value::from),
        4 => prop::collection::vec(assertion(), 0..3).prop_map(object_of),
    ];
    leaf.prop_recursive(3, 24, 3, |inner| {
        let inner = inner.boxed();
        prop::collection::vec(
            prop_oneof![2 => assertion().boxed(), 3 => applicator(inner).boxed()],
            1..4,
        )
        .prop_map(object_of)
    })
}

fn root_schema() -> impl Strategy<Value = Value> {
    (schema(), schema(), schema()).prop_map(|(root, d0, d1)| match root {
        Value::Object(mut m) => {
            m.insert("$defs".to_owned(), json!({ "d0": d0, "d1": d1 }));
            Value::Object(m)
        }
        other => other,
    })
}

/// One op of every keyword `#[derive(McpSchema)]` emits.
static DERIVE_OPS: [Op; 18] = {
    const S: Str = Str { off: 0, len: 1 };
    [
        Op::Type(1),
        Op::False,
        Op::Enum(0),
        Op::MultipleOf(S),
        Op::Minimum(S),
        Op::ExclusiveMinimum(S),
        Op::Maximum(S),
        Op::ExclusiveMaximum(S),
        Op::MinLength(0),
        Op::MaxLength(0),
        Op::Pattern(S),
        Op::MinItems(0),
        Op::MaxItems(0),
        Op::UniqueItems,
        Op::Items { prefix: 0, rest: 0 },
        Op::Required(S),
        Op::Members {
            props: 0,
            patterns: 0,
            additional: 0,
        },
        Op::AnyOf(0),
    ]
};

/// The keywords the derive emits.
enum DeriveKeywords {}

impl Keywords for DeriveKeywords {
    const SET: KeywordSet = KeywordSet::of(&Program::from_static_parts(&[0], &DERIVE_OPS, "0"));
}

/// Only `type`, `enum` and the `false` schema (enum values are scalars: no container equality).
static SCALAR_OPS: [Op; 3] = [Op::Type(1), Op::Enum(0), Op::False];

enum ScalarKeywords {}

impl Keywords for ScalarKeywords {
    const SET: KeywordSet = KeywordSet::of(&Program::from_static_parts(&[0], &SCALAR_OPS, ""));
}

/// `validate_for::<K>` against the full evaluator's `full` on one case: `Some(true)` when the
/// set covers the program (and the results are equal), `Some(false)` when it was refused.
fn subset_case<K: Keywords>(
    program: &Program<'_>,
    instance: embedded_mcp::json::Value<'_>,
    full: &Result<(), Violation>,
) -> Result<Option<bool>, String> {
    let got = program.validate_for::<K>(instance);
    let shown = |r: &Result<(), Violation>| r.map_err(|v| (v.kind, v.keyword, v.to_string()));
    if K::SET.covers(KeywordSet::of(program)) {
        return match shown(&got) == shown(full) && got == *full {
            true => Ok(Some(true)),
            false => Err(format!(
                "covered: {:?}, full: {:?}",
                shown(&got),
                shown(full)
            )),
        };
    }
    match &got {
        Err(v) if v.kind == ViolationKind::Unsupported => Ok(Some(false)),
        _ if got == *full => Ok(None),
        _ => Err(format!(
            "not covered: {:?}, full: {:?}",
            shown(&got),
            shown(full)
        )),
    }
}

#[test]
fn core_agrees_with_full_validator() {
    static COMPARED: AtomicUsize = AtomicUsize::new(0);
    static REFUSED: AtomicUsize = AtomicUsize::new(0);
    static SKIPPED: AtomicUsize = AtomicUsize::new(0);
    static VALID: AtomicUsize = AtomicUsize::new(0);
    static COVERED: AtomicUsize = AtomicUsize::new(0);
    static UNSUPPORTED: AtomicUsize = AtomicUsize::new(0);
    let mut runner = TestRunner::new(Config {
        cases: std::env::var("SUBSET_DIFF_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(CASES),
        failure_persistence: None,
        ..Config::default()
    });
    let storage = std::cell::RefCell::new(Box::new(Storage::<512, 4096, 8192>::new()));
    let strategy = (root_schema(), prop::collection::vec(instance(), 1..5));
    let result = runner.run(&strategy, |(schema, instances)| {
        let bytes = serde_json::to_vec(&schema).unwrap();
        let mut storage = storage.borrow_mut();
        let program = match compile(&bytes, &mut **storage) {
            Ok(p) => p,
            Err(_) => {
                // `$ref` loops such as {"$ref": "#"} in place are refused by design.
                REFUSED.fetch_add(instances.len(), Ordering::Relaxed);
                return Ok(());
            }
        };
        let full = FullValidator::new(&schema)
            .map_err(|e| TestCaseError::fail(format!("full validator refused {schema}: {e}")))?;
        for instance in &instances {
            let expected = match full.validate(instance) {
                Ok(()) => true,
                Err(f) if f.is_limit() => {
                    SKIPPED.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                Err(_) => false,
            };
            let data = serde_json::to_vec(instance).unwrap();
            let got = program.validate_bytes(&data);
            COMPARED.fetch_add(1, Ordering::Relaxed);
            let value = embedded_mcp::json::Value::parse(&data).unwrap();
            for case in [
                subset_case::<DeriveKeywords>(&program, value, &got),
                subset_case::<ScalarKeywords>(&program, value, &got),
            ] {
                let counter = match case {
                    Ok(Some(true)) => &COVERED,
                    Ok(Some(false)) => &UNSUPPORTED,
                    Ok(None) => continue,
                    Err(e) => {
                        return Err(TestCaseError::fail(format!(
                            "schema {schema}\ninstance {instance}\n{e}"
                        )))
                    }
                };
                counter.fetch_add(1, Ordering::Relaxed);
            }
            if expected {
                VALID.fetch_add(1, Ordering::Relaxed);
            }
            prop_assert_eq!(
                got.is_ok(),
                expected,
                "schema {}\ninstance {}\ncore: {:?}",
                schema,
                instance,
                got
            );
        }
        Ok(())
    });
    let compared = COMPARED.load(Ordering::Relaxed);
    println!(
        "differential: {compared} instance verdicts compared ({} valid), {} on refused schemas, {} skipped (full validator limit)",
        VALID.load(Ordering::Relaxed),
        REFUSED.load(Ordering::Relaxed),
        SKIPPED.load(Ordering::Relaxed)
    );
    let covered = COVERED.load(Ordering::Relaxed);
    println!(
        "keyword subsets: {covered} results equal on covered programs, {} refused",
        UNSUPPORTED.load(Ordering::Relaxed)
    );
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(compared >= 10_000, "only {compared} verdicts compared");
    assert!(covered >= 2_000, "only {covered} subset results compared");
}
