//! Hostile schemas against both validators: the core's compiled subset
//! (`embedded_mcp::schema`) and the host's full 2020-12 validator (`embedded_mcp_std::full`).
//!
//! Each case is a schema built to make a validator work without end (exponential `anyOf`/
//! `oneOf`/`allOf` graphs, quadratic `uniqueItems`, `$ref` loops, huge `enum`s, catastrophic
//! patterns, deep or wide schemas) with an instance, and what each validator must do: refuse
//! the schema with a clear error, give the right verdict, or stop with a spent budget. Never
//! "valid" by accident, never a crash, and always bounded: each compile and each validation
//! must end within [`TIME_LIMIT`] (debug build, shared machine), on a thread with a fixed stack.

use std::time::{Duration, Instant};

use embedded_mcp::schema::{compile, Storage, ViolationKind};
use embedded_mcp_std::full::{FullValidator, SchemaError};
use serde_json::{json, Value};

/// Per compile or validation, debug build. The full validator's own wall-clock budget is 2 s
/// (`FullOptions::time_limit`); its step budget ends costly evaluations well before that.
const TIME_LIMIT: Duration = Duration::from_secs(2);

/// Storage as large as the core's program format allows.
type Big = Storage<4096, 65535, 65535>;

/// What the core must do.
#[derive(Debug, Clone, Copy)]
enum Core {
    /// Refuse the schema; the compile error's text contains this.
    Refused(&'static str),
    /// Accept the instance.
    Valid,
    /// Reject it with a violation of this keyword.
    Invalid(&'static str),
    /// Stop with a spent bound (`BudgetExceeded`, `TooDeep`, or the parser's nesting bound).
    Spent,
}

/// What the full validator must do.
#[derive(Debug, Clone, Copy)]
enum Full {
    /// Refuse the schema; the error's text contains this.
    Refused(&'static str),
    /// Accept the instance.
    Valid,
    /// Reject it with a failure of this keyword.
    Invalid(&'static str),
    /// Stop with a spent limit (`max_steps`, `time_limit`, `max_instance_depth`).
    Spent,
}

struct Case {
    name: &'static str,
    schema: Value,
    instance: Value,
    core: Core,
    full: Full,
}

/// `$defs` d0..dk where each di applies d(i+1) twice through `combinator`, and dk is `leaf`:
/// k + 2 subschemas, 2^k visits.
fn exponential(combinator: &str, k: usize, leaf: Value) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..k {
        let next = format!("#/$defs/d{}", i + 1);
        defs.insert(
            format!("d{i}"),
            json!({ combinator: [{"$ref": next}, {"$ref": next}] }),
        );
    }
    defs.insert(format!("d{k}"), leaf);
    json!({"$defs": defs, "$ref": "#/$defs/d0"})
}

fn nested_array(depth: usize, leaf: Value) -> Value {
    (0..depth).fold(leaf, |v, _| Value::Array(vec![v]))
}

/// `{key: {key: … leaf}}`, `depth` levels (built without `json!`, which would copy `leaf`).
fn nested_object(key: &str, depth: usize, leaf: Value) -> Value {
    (0..depth).fold(leaf, |v, _| {
        Value::Object([(key.to_owned(), v)].into_iter().collect())
    })
}

fn cases() -> Vec<Case> {
    let mut c = Vec::new();
    c.push(Case {
        name: "any_of_exponential_ref_graph",
        schema: exponential("anyOf", 40, json!(false)),
        instance: json!(1),
        core: Core::Spent,
        full: Full::Spent,
    });
    c.push(Case {
        name: "one_of_exponential_ref_graph",
        schema: exponential("oneOf", 40, json!(true)),
        instance: json!("x"),
        core: Core::Spent,
        full: Full::Spent,
    });
    c.push(Case {
        name: "all_of_exponential_ref_graph",
        schema: exponential("allOf", 40, json!({"type": "integer"})),
        instance: json!(1),
        core: Core::Spent,
        full: Full::Spent,
    });
    c.push(Case {
        name: "any_of_small_graph_gets_the_right_answer",
        // 2^8 visits: within every budget, so the verdict is exact.
        schema: exponential("anyOf", 8, json!({"type": "string"})),
        instance: json!(1),
        core: Core::Invalid("anyOf"),
        full: Full::Invalid("anyOf"),
    });
    c.push(Case {
        name: "twenty_nested_nots",
        schema: nested_object("not", 20, json!({"type": "integer"})),
        instance: json!(1),
        core: Core::Valid,
        full: Full::Valid,
    });
    c.push(Case {
        name: "sixty_nested_nots",
        schema: nested_object("not", 60, json!({"type": "integer"})),
        instance: json!(1),
        // Deeper than the core's evaluation depth bound: a clear "too deep", never a guess.
        core: Core::Spent,
        full: Full::Valid,
    });
    c.push(Case {
        name: "unique_items_ten_thousand_distinct",
        schema: json!({"uniqueItems": true}),
        instance: Value::Array((0..10_000).map(|i| json!(i)).collect()),
        // Pairwise comparison in the core: 50 million pairs, far over its budget.
        core: Core::Spent,
        full: Full::Valid,
    });
    c.push(Case {
        name: "unique_items_duplicate_at_the_end",
        schema: json!({"uniqueItems": true}),
        instance: Value::Array((0..10_001).map(|i| json!(i % 10_000)).collect()),
        // The first item's duplicate is found on the first pass, within the budget.
        core: Core::Invalid("uniqueItems"),
        full: Full::Invalid("uniqueItems"),
    });
    c.push(Case {
        name: "unique_items_of_deep_arrays",
        schema: json!({"uniqueItems": true}),
        instance: Value::Array((0..200).map(|i| nested_array(20, json!(i))).collect()),
        core: Core::Spent,
        full: Full::Valid,
    });
    c.push(Case {
        name: "unique_items_small_duplicate_found",
        schema: json!({"uniqueItems": true}),
        instance: json!([{"a": [1, 2]}, 1, {"a": [1, 2.0]}]),
        core: Core::Invalid("uniqueItems"),
        full: Full::Invalid("uniqueItems"),
    });
    c.push(Case {
        name: "ref_to_itself",
        schema: json!({"$ref": "#"}),
        instance: json!(1),
        // The core refuses a loop that never descends; the full validator detects it and
        // lets it add no constraint (the schema allows everything).
        core: Core::Refused("loop"),
        full: Full::Valid,
    });
    c.push(Case {
        name: "mutual_ref_loop",
        schema: json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
        instance: json!(1),
        core: Core::Refused("loop"),
        full: Full::Valid,
    });
    c.push(Case {
        name: "ref_loop_through_all_of",
        schema: json!({"allOf": [{"$ref": "#"}], "type": "integer"}),
        instance: json!(1),
        core: Core::Refused("loop"),
        full: Full::Valid,
    });
    c.push(Case {
        name: "ref_loop_through_all_of_still_checks_its_siblings",
        schema: json!({"allOf": [{"$ref": "#"}], "type": "integer"}),
        instance: json!("x"),
        core: Core::Refused("loop"),
        full: Full::Invalid("type"),
    });
    c.push(Case {
        name: "recursive_ref_that_descends_on_a_deep_instance",
        schema: json!({"type": "object", "properties": {"a": {"$ref": "#"}}}),
        instance: nested_object("a", 1000, json!({})),
        core: Core::Spent,
        full: Full::Spent,
    });
    c.push(Case {
        name: "huge_enum_of_ten_thousand_strings",
        schema: json!({"enum": (0..10_000).map(|i| format!("value-{i:05}")).collect::<Vec<_>>()}),
        instance: json!("value-absent"),
        // 10,000 strings of 13 bytes do not fit the core's 65,535 bytes of program text.
        core: Core::Refused("bytes of names and values"),
        full: Full::Invalid("enum"),
    });
    c.push(Case {
        name: "huge_enum_of_three_thousand_integers",
        schema: json!({"enum": (0..3_000).collect::<Vec<_>>()}),
        instance: json!(3_000),
        core: Core::Invalid("enum"),
        full: Full::Invalid("enum"),
    });
    c.push(Case {
        name: "enum_of_big_objects",
        schema: json!({"enum": (0..100).map(|i| {
            let mut m = serde_json::Map::new();
            for k in 0..40 { m.insert(format!("k{k}"), json!(k)); }
            m.insert("id".into(), json!(i));
            Value::Object(m)
        }).collect::<Vec<_>>()}),
        instance: {
            let mut m = serde_json::Map::new();
            for k in 0..40 {
                m.insert(format!("k{k}"), json!(k));
            }
            m.insert("id".into(), json!(-1));
            Value::Object(m)
        },
        core: Core::Invalid("enum"),
        full: Full::Invalid("enum"),
    });
    c.push(Case {
        name: "catastrophic_pattern",
        schema: json!({"type": "string", "pattern": "^(a+)+$"}),
        instance: json!(format!("{}!", "a".repeat(5_000))),
        core: Core::Invalid("pattern"),
        full: Full::Invalid("pattern"),
    });
    c.push(Case {
        name: "schema_nested_ten_thousand_deep",
        schema: nested_object("items", 10_000, json!({})),
        instance: json!([]),
        core: Core::Refused("nests deeper"),
        full: Full::Refused("nests deeper"),
    });
    c.push(Case {
        name: "schema_with_twenty_thousand_properties",
        schema: json!({"properties": (0..20_000).map(|i| (format!("p{i}"), json!({"type": "integer"}))).collect::<serde_json::Map<_, _>>()}),
        instance: json!({"p1": 1}),
        core: Core::Refused("subschemas"),
        full: Full::Refused("subschemas"),
    });
    c.push(Case {
        name: "network_ref",
        schema: json!({"$ref": "https://example.com/schema.json"}),
        instance: json!(1),
        core: Core::Refused("$ref"),
        full: Full::Refused("never fetched"),
    });
    c.push(Case {
        name: "contains_over_a_huge_array",
        schema: json!({"contains": {"const": "needle"}, "minContains": 2}),
        instance: Value::Array((0..50_000).map(|i| json!(format!("hay{i}"))).collect()),
        core: Core::Spent,
        full: Full::Invalid("contains"),
    });
    c.push(Case {
        name: "many_pattern_properties_on_many_members",
        schema: json!({"patternProperties": (0..40).map(|i| (format!("^p{i}[0-9]*$"), json!({"type": "integer"}))).collect::<serde_json::Map<_, _>>()}),
        instance: Value::Object((0..3_000).map(|i| (format!("p{i}"), json!(i))).collect()),
        core: Core::Valid,
        full: Full::Valid,
    });
    c.push(Case {
        name: "max_length_on_a_megabyte_string",
        schema: json!({"type": "string", "maxLength": 5}),
        instance: json!("é".repeat(500_000)),
        core: Core::Invalid("maxLength"),
        full: Full::Invalid("maxLength"),
    });
    c.push(Case {
        name: "unevaluated_properties_over_twenty_any_of_branches",
        schema: json!({
            "anyOf": (0..20).map(|i| json!({"properties": {format!("b{i}"): {"type": "integer"}}})).collect::<Vec<_>>(),
            "unevaluatedProperties": false
        }),
        instance: Value::Object((0..20).map(|i| (format!("b{i}"), json!(i))).chain([("extra".to_owned(), json!(0))]).collect()),
        core: Core::Invalid("unevaluatedProperties"),
        full: Full::Invalid("unevaluatedProperties"),
    });
    c.push(Case {
        name: "dependent_schemas_chain",
        schema: {
            let mut deps = serde_json::Map::new();
            for i in 0..200 {
                deps.insert(
                    format!("k{i}"),
                    json!({"required": [format!("k{}", i + 1)]}),
                );
            }
            json!({"dependentSchemas": deps})
        },
        instance: Value::Object((0..200).map(|i| (format!("k{i}"), json!(i))).collect()),
        core: Core::Invalid("required"),
        full: Full::Invalid("required"),
    });
    c.push(Case {
        name: "prefix_items_ten_thousand",
        schema: json!({"prefixItems": (0..10_000).map(|_| json!({"type": "integer"})).collect::<Vec<_>>()}),
        instance: json!([1, 2, "three"]),
        core: Core::Refused("subschemas"),
        full: Full::Refused("subschemas"),
    });
    c
}

fn core_outcome(case: &Case) -> Result<String, String> {
    let schema = serde_json::to_vec(&case.schema).unwrap();
    let instance = serde_json::to_vec(&case.instance).unwrap();
    let mut storage = Box::new(Big::new());
    let started = Instant::now();
    let compiled = compile(&schema, &mut storage);
    let compile_time = started.elapsed();
    if compile_time > TIME_LIMIT {
        return Err(format!("core compile took {compile_time:?}"));
    }
    let program = match (compiled, case.core) {
        (Err(e), Core::Refused(text)) if e.to_string().contains(text) => {
            return Ok(format!("refused in {compile_time:?}: {e}"))
        }
        (Err(e), want) => return Err(format!("core refused ({e}), expected {want:?}")),
        (Ok(_), Core::Refused(text)) => {
            return Err(format!("core compiled, expected a refusal ({text})"))
        }
        (Ok(p), _) => p,
    };
    let started = Instant::now();
    let verdict = program.validate_bytes(&instance);
    let took = started.elapsed();
    if took > TIME_LIMIT {
        return Err(format!("core validation took {took:?}"));
    }
    let shown = match &verdict {
        Ok(()) => "valid".to_owned(),
        Err(v) => format!("{:?} {}: {v}", v.kind, v.keyword),
    };
    let ok = match (&verdict, case.core) {
        (Ok(()), Core::Valid) => true,
        (Err(v), Core::Invalid(kw)) => v.kind == ViolationKind::Invalid && v.keyword == kw,
        (Err(v), Core::Spent) => {
            matches!(
                v.kind,
                ViolationKind::BudgetExceeded | ViolationKind::TooDeep
            ) || (v.kind == ViolationKind::NotJson && v.message().contains("too deep"))
        }
        _ => false,
    };
    if let Err(v) = &verdict {
        assert!(
            !v.message().is_empty(),
            "{}: a violation says why",
            case.name
        );
    }
    if ok {
        Ok(format!(
            "{shown} (compile {compile_time:?}, validate {took:?})"
        ))
    } else {
        Err(format!("core: {shown}, expected {:?}", case.core))
    }
}

fn full_outcome(case: &Case) -> Result<String, String> {
    let started = Instant::now();
    let compiled = FullValidator::new(&case.schema);
    let compile_time = started.elapsed();
    if compile_time > TIME_LIMIT {
        return Err(format!("full compile took {compile_time:?}"));
    }
    let validator = match (compiled, case.full) {
        (Err(e), Full::Refused(text)) if e.to_string().contains(text) => {
            return Ok(format!("refused in {compile_time:?}: {e}"))
        }
        (Err(e), want) => return Err(format!("full refused ({e}), expected {want:?}")),
        (Ok(_), Full::Refused(text)) => {
            return Err(format!("full compiled, expected a refusal ({text})"))
        }
        (Ok(v), _) => v,
    };
    let started = Instant::now();
    let verdict = validator.validate(&case.instance);
    let took = started.elapsed();
    // The wall-clock budget is itself 2 s: allow it its own overshoot.
    if took > TIME_LIMIT + Duration::from_millis(500) {
        return Err(format!("full validation took {took:?}"));
    }
    let shown = match &verdict {
        Ok(()) => "valid".to_owned(),
        Err(f) => f.to_string(),
    };
    let ok = match (&verdict, case.full) {
        (Ok(()), Full::Valid) => true,
        (Err(f), Full::Invalid(kw)) => !f.is_limit() && f.keyword == kw,
        (Err(f), Full::Spent) => f.is_limit(),
        _ => false,
    };
    if ok {
        Ok(format!(
            "{shown} (compile {compile_time:?}, validate {took:?})"
        ))
    } else {
        Err(format!("full: {shown}, expected {:?}", case.full))
    }
}

#[test]
fn hostile_schemas_end_quickly_with_clear_answers_in_both_validators() {
    let failures: Vec<String> = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(|| {
            let mut failures = Vec::new();
            let built = Instant::now();
            let all = cases();
            println!("cases built in {:?}", built.elapsed());
            for case in all {
                let started = Instant::now();
                for (who, outcome) in [("core", core_outcome(&case)), ("full", full_outcome(&case))]
                {
                    match outcome {
                        Ok(text) => println!("{:<50} {who}: {text}", case.name),
                        Err(e) => failures.push(format!("{}: {e}", case.name)),
                    }
                }
                println!("{:<50} case total {:?}", case.name, started.elapsed());
            }
            failures
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn refusals_name_what_was_refused() {
    let mut storage = Box::new(Big::new());
    let e = compile(
        br##"{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}"##,
        &mut storage,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "/$defs/a: `$ref` loop that never descends into the instance"
    );
    let e = FullValidator::new(&json!({"$ref": "http://127.0.0.1:9/x.json"})).unwrap_err();
    assert!(
        matches!(e, SchemaError::NetworkRef(ref uri) if uri == "http://127.0.0.1:9/x.json"),
        "{e}"
    );
}
