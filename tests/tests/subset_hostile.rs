//! Hostile inputs against the core's compiled subset validator: deep nesting, huge arrays,
//! combinatorial `anyOf`/`oneOf`/`uniqueItems`, `$ref` loops, huge `enum`s, pathological
//! patterns and corrupted programs. Each must end quickly, within a small fixed stack, with a
//! clear error (never a panic, never a wrong "valid").

use std::time::{Duration, Instant};

use embedded_mcp::json::{Limits, Value};
use embedded_mcp::schema::{
    compile, CompileError, Program, Storage, ValidationLimits, ViolationKind, DEFAULT_MAX_STEPS,
};

type Big = Storage<4096, 65535, 65535>;

/// Debug builds are slow; this is generous and still catches exponential blow-ups.
const TIME_LIMIT: Duration = Duration::from_secs(5);

/// Runs `f` on a thread with a deliberately small stack (debug frames are large; release needs
/// far less), so unbounded recursion would crash the test.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let r = f();
    let took = start.elapsed();
    println!("{what}: {took:?}");
    assert!(took < TIME_LIMIT, "{what} took {took:?}");
    r
}

fn big() -> Box<Big> {
    Box::new(Big::new())
}

#[test]
fn hundred_thousand_deep_instance_is_refused_by_the_parser() {
    on_small_stack(|| {
        let mut storage = big();
        let program = compile(br##"{"items":{"$ref":"#"}}"##, &mut storage).unwrap();
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let err = timed("100k-deep instance", || {
            program.validate_bytes(deep.as_bytes())
        })
        .unwrap_err();
        assert_eq!(err.kind, ViolationKind::NotJson);
        assert_eq!(
            err.to_string(),
            "(root): not JSON: nesting too deep at byte 32"
        );
    });
}

#[test]
fn recursion_depth_is_bounded_explicitly() {
    on_small_stack(|| {
        let mut storage = big();
        // Each array level applies the root again through `$ref`.
        let program = compile(br##"{"items":{"$ref":"#"}}"##, &mut storage).unwrap();
        let deep = format!("{}{}", "[".repeat(128), "]".repeat(128));
        let instance = Value::parse_with(deep.as_bytes(), Limits { max_depth: 128 }).unwrap();
        let err = timed("128-deep recursive $ref", || program.validate(instance)).unwrap_err();
        assert_eq!(err.kind, ViolationKind::TooDeep);
        assert_eq!(err.keyword, "$depth");
        assert!(
            err.to_string()
                .ends_with(": evaluation deeper than 32 levels"),
            "{err}"
        );
        assert_eq!(err.path.as_str(), "/0".repeat(16));
        // Each array level below the first costs two evaluation levels here (the `items`
        // subschema, then the root again through `$ref`): 16 nested arrays need 31 levels and
        // fit the default depth of 32, 17 need 33 and do not.
        let ok = format!("{}{}", "[".repeat(16), "]".repeat(16));
        assert!(program.validate_bytes(ok.as_bytes()).is_ok());
        let too_deep = format!("{}{}", "[".repeat(17), "]".repeat(17));
        assert_eq!(
            program
                .validate_bytes(too_deep.as_bytes())
                .unwrap_err()
                .kind,
            ViolationKind::TooDeep
        );
        // A caller with a bigger stack raises the limit.
        let roomy = ValidationLimits {
            max_depth: 300,
            instance_max_depth: 128,
            ..ValidationLimits::default()
        };
        assert!(program.validate_with(instance, &roomy).is_ok());
        // A failure 127 levels down: its path is truncated at the front with a marker.
        let mut storage = big();
        let program = compile(br##"{"items":{"$ref":"#"},"minItems":1}"##, &mut storage).unwrap();
        let err = program.validate_with(instance, &roomy).unwrap_err();
        assert_eq!(err.keyword, "minItems");
        assert!(err.path.is_truncated(), "{}", err.path);
        assert_eq!(
            err.to_string(),
            format!("…{}: 0 items, fewer than minItems 1", "/0".repeat(17))
        );
    });
}

#[test]
fn huge_arrays_hit_the_step_budget() {
    let mut storage = big();
    let program = compile(
        br#"{"type":"array","items":{"type":"integer"}}"#,
        &mut storage,
    )
    .unwrap();
    let n = 1_000_000;
    let mut text = String::with_capacity(2 * n + 2);
    text.push('[');
    for i in 0..n {
        if i > 0 {
            text.push(',');
        }
        text.push('1');
    }
    text.push(']');
    let err = timed("1M-element array", || {
        program.validate_bytes(text.as_bytes())
    })
    .unwrap_err();
    assert_eq!(err.kind, ViolationKind::BudgetExceeded);
    assert_eq!(err.keyword, "$budget");
    // Two steps per element (the element, the `items` subschema): the budget runs out half way.
    assert_eq!(
        err.to_string(),
        format!(
            "/{}: budget of {DEFAULT_MAX_STEPS} steps exceeded",
            DEFAULT_MAX_STEPS / 2 - 1
        )
    );
    // A larger budget accepts it.
    let limits = ValidationLimits {
        max_steps: 10_000_000,
        ..ValidationLimits::default()
    };
    timed("1M-element array, larger budget", || {
        assert!(program
            .validate_bytes_with(text.as_bytes(), &limits)
            .is_ok())
    });
}

#[test]
fn unique_items_is_quadratic_but_bounded() {
    let mut storage = big();
    let program = compile(br#"{"uniqueItems":true}"#, &mut storage).unwrap();
    let items: Vec<String> = (0..20_000)
        .map(|i| format!("{{\"k\":[{i},\"x\"]}}"))
        .collect();
    let text = format!("[{}]", items.join(","));
    let err = timed("uniqueItems over 20k objects", || {
        program.validate_bytes(text.as_bytes())
    })
    .unwrap_err();
    assert_eq!(err.kind, ViolationKind::BudgetExceeded);
    // A duplicate early on is still found.
    let dup = format!("[1,1.0,{}]", items.join(","));
    let err = program.validate_bytes(dup.as_bytes()).unwrap_err();
    assert_eq!(err.keyword, "uniqueItems");
    assert_eq!(
        err.to_string(),
        "(root): items 0 and 1 are equal (uniqueItems)"
    );
}

/// `anyOf` nested `depth` deep, two branches each, every leaf failing: 2^depth evaluations
/// without the budget.
fn nested(keyword: &str, depth: usize) -> String {
    let mut s = String::from(r#"{"type":"string"}"#);
    for _ in 0..depth {
        s = format!(r#"{{"{keyword}":[{s},{s}]}}"#);
    }
    s
}

#[test]
fn combinatorial_any_of_and_one_of_hit_the_budget() {
    for keyword in ["anyOf", "oneOf", "allOf"] {
        // The schema text doubles per level: 2^11 leaves, 4095 subschemas, none shared.
        let schema = nested(keyword, 11);
        let mut storage = big();
        let program = compile(schema.as_bytes(), &mut storage).unwrap();
        // `anyOf` and `oneOf` try every branch of a failing instance; `allOf` every branch of a
        // passing one.
        let instance: &[u8] = if keyword == "allOf" { b"\"x\"" } else { b"42" };
        let err = timed(&format!("{keyword} x2^11"), || {
            let limits = ValidationLimits {
                max_steps: 1000,
                ..ValidationLimits::default()
            };
            program.validate_bytes_with(instance, &limits)
        })
        .unwrap_err();
        assert_eq!(err.kind, ViolationKind::BudgetExceeded, "{keyword}: {err}");
    }
    // Too many subschemas for the storage is a compile error, not a crash.
    let schema = nested("anyOf", 13);
    let mut small = Box::new(Storage::<1024, 4096, 256>::new());
    assert!(matches!(
        compile(schema.as_bytes(), &mut small),
        Err(CompileError::TooManyNodes { capacity: 1024 })
    ));
}

#[test]
fn ref_loops_are_refused_at_compile_time() {
    for schema in [
        r##"{"$ref":"#"}"##,
        r##"{"anyOf":[{"type":"string"},{"$ref":"#"}]}"##,
        r##"{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}"##,
        r##"{"not":{"if":{"$ref":"#"}}}"##,
        r##"{"dependentSchemas":{"x":{"$ref":"#"}}}"##,
    ] {
        let mut storage = big();
        let err = compile(schema.as_bytes(), &mut storage).unwrap_err();
        assert!(
            matches!(err, CompileError::RefCycle { .. }),
            "{schema}: {err}"
        );
        assert!(err.to_string().contains("loop"), "{err}");
    }
    // Recursion that moves into the instance is fine.
    let mut storage = big();
    let p = compile(
        br##"{"type":"object","properties":{"next":{"$ref":"#"}},"additionalProperties":false}"##,
        &mut storage,
    )
    .unwrap();
    assert!(p.validate_bytes(br#"{"next":{"next":{}}}"#).is_ok());
    let err = p
        .validate_bytes(br#"{"next":{"next":{"x":1}}}"#)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"/next/next: property "x" not allowed (additionalProperties)"#
    );
}

#[test]
fn reference_resolution_work_is_bounded() {
    // 400 embedded resources, each referring to the next by URI: resolving each `$ref` rescans
    // the document for the resource, so the compiler's work bound stops it with a clear error.
    let n = 400;
    let defs: Vec<String> = (0..n)
        .map(|i| {
            if i + 1 < n {
                format!(r#""d{i}":{{"$id":"d{i}.json","$ref":"d{}.json"}}"#, i + 1)
            } else {
                format!(r#""d{i}":{{"$id":"d{i}.json","type":"integer"}}"#)
            }
        })
        .collect();
    let schema = format!(
        r#"{{"$id":"http://example.com/root.json","$ref":"d0.json","$defs":{{{}}}}}"#,
        defs.join(",")
    );
    let mut storage = big();
    let err = timed("400 chained $id resources", || {
        compile(schema.as_bytes(), &mut storage)
    })
    .unwrap_err();
    assert_eq!(err, CompileError::TooComplex);
    assert_eq!(
        err.to_string(),
        "resolving references needs more work than the compiler's bound (REF_WORK_LIMIT)"
    );
    // 20 of them stay well inside the bound (and the chain of 20 `$ref`s inside the default
    // evaluation depth of 32).
    let defs: Vec<String> = (0..20)
        .map(|i| {
            if i + 1 < 20 {
                format!(r#""d{i}":{{"$id":"d{i}.json","$ref":"d{}.json"}}"#, i + 1)
            } else {
                format!(r#""d{i}":{{"$id":"d{i}.json","type":"integer"}}"#)
            }
        })
        .collect();
    let schema = format!(
        r#"{{"$id":"http://example.com/root.json","$ref":"d0.json","$defs":{{{}}}}}"#,
        defs.join(",")
    );
    let p = timed("20 chained $id resources", || {
        compile(schema.as_bytes(), &mut storage)
    })
    .unwrap();
    assert!(p.validate_bytes(b"7").is_ok());
    assert!(p.validate_bytes(b"\"7\"").is_err());
    // A handful of resources compile at once.
    let small = r##"{"$id":"http://example.com/r.json","$ref":"a.json",
        "$defs":{"a":{"$id":"a.json","$ref":"b.json"},"b":{"$id":"b.json","type":"integer"}}}"##;
    let p = timed("3 resources", || compile(small.as_bytes(), &mut storage)).unwrap();
    assert!(p.validate_bytes(b"3").is_ok());
    assert!(p.validate_bytes(b"3.5").is_err());
}

#[test]
fn huge_enums_are_bounded_by_storage_and_budget() {
    let enum_of = |n: usize| {
        let values: Vec<String> = (0..n).map(|i| format!("\"v{i}\"")).collect();
        format!(r#"{{"enum":[{}]}}"#, values.join(","))
    };
    // Too big for the storage: a clear capacity error, quickly.
    let mut small = Box::new(Storage::<16, 256, 4096>::new());
    assert!(matches!(
        compile(enum_of(50_000).as_bytes(), &mut small),
        Err(CompileError::TooManyOps { capacity: 256 })
    ));
    let mut storage = big();
    let huge = enum_of(200_000);
    let err = timed("compile 200k enum", || {
        compile(huge.as_bytes(), &mut storage)
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            CompileError::TooManyOps { .. } | CompileError::TextFull { .. }
        ),
        "{err}"
    );
    // 8,000 values fit the text area (64 KiB).
    let schema = enum_of(8_000);
    let program = timed("compile 8k enum", || {
        compile(schema.as_bytes(), &mut storage)
    })
    .unwrap();
    timed("enum hit at the end", || {
        assert!(program.validate_bytes(b"\"v7999\"").is_ok())
    });
    let err = timed("enum miss", || program.validate_bytes(b"\"nope\"")).unwrap_err();
    assert_eq!(err.keyword, "enum");
    let tight = ValidationLimits {
        max_steps: 1_000,
        ..ValidationLimits::default()
    };
    let err = program
        .validate_bytes_with(b"\"nope\"", &tight)
        .unwrap_err();
    assert_eq!(err.kind, ViolationKind::BudgetExceeded);
}

#[test]
fn deep_schemas_are_refused() {
    on_small_stack(|| {
        let schema = format!("{}{}", r#"{"not":"#.repeat(100_000), "}".repeat(100_000));
        let mut storage = big();
        let err = timed("100k-deep schema", || {
            compile(schema.as_bytes(), &mut storage)
        })
        .unwrap_err();
        assert_eq!(err, CompileError::TooDeep);
        // 30 levels of `not` (60 JSON levels) compile and validate.
        let schema = format!(
            "{}{}",
            r#"{"not":"#.repeat(30),
            "true}".to_owned() + &"}".repeat(29)
        );
        let p = compile(schema.as_bytes(), &mut storage).unwrap();
        assert!(p.validate_bytes(b"1").is_ok());
    });
}

#[test]
fn pathological_patterns_run_in_linear_time() {
    let mut storage = big();
    let program = compile(br#"{"pattern":"^(a*)*b$"}"#, &mut storage).unwrap();
    let subject = format!("\"{}\"", "a".repeat(100_000));
    let err = timed("(a*)*b over 100k a", || {
        program.validate_bytes(subject.as_bytes())
    })
    .unwrap_err();
    assert_eq!(err.keyword, "pattern");
    // Counted repetition that would explode is refused when compiling.
    let err = compile(br#"{"pattern":"((a{100}){100}){100}"}"#, &mut storage).unwrap_err();
    assert!(
        matches!(
            err,
            CompileError::Refused {
                keyword: "pattern",
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "/pattern: `pattern` is refused: pattern too large"
    );
}

#[test]
fn corrupted_programs_are_errors_not_panics() {
    let schema = br##"{"type":"object","properties":{"a":{"enum":[1,"x",{"k":[null]}]},
        "b":{"pattern":"^[a-z]+$","maxLength":4},"c":{"$ref":"#/$defs/n"}},
        "required":["a"],"additionalProperties":false,
        "$defs":{"n":{"anyOf":[{"type":"integer","multipleOf":0.5},{"type":"null"}]}}}"##;
    let mut storage = big();
    let program = compile(schema, &mut storage).unwrap();
    let mut buf = vec![0u8; program.postcard_len()];
    let bytes = program.to_postcard(&mut buf).unwrap().to_vec();
    let instances: [&[u8]; 4] = [
        br#"{"a":1,"b":"abc","c":1.5}"#,
        br#"{"a":"y"}"#,
        br#"{"a":{"k":[null]},"c":null,"z":0}"#,
        b"[1,2]",
    ];
    let mut loaded = big();
    let back = Program::from_postcard(&bytes, &mut loaded).unwrap();
    for i in instances {
        assert_eq!(
            back.validate_bytes(i).is_ok(),
            program.validate_bytes(i).is_ok()
        );
    }
    let mut accepted = 0;
    let mut rejected = 0;
    let mut check = |candidate: &[u8]| {
        let mut s = Box::new(Storage::<64, 256, 256>::new());
        match Program::from_postcard(candidate, &mut s) {
            Ok(p) => {
                accepted += 1;
                for i in instances {
                    let _ = p.validate_bytes(i);
                }
            }
            Err(_) => rejected += 1,
        }
    };
    // Every truncation, every single-byte change.
    for n in 0..bytes.len() {
        check(&bytes[..n]);
    }
    for at in 0..bytes.len() {
        for v in [0u8, 1, 0x7f, 0x80, 0xff, bytes[at] ^ 1] {
            let mut b = bytes.clone();
            b[at] = v;
            check(&b);
        }
    }
    // Pseudo-random garbage after a valid header.
    let mut x: u32 = 12345;
    for _ in 0..5_000 {
        let mut b = bytes[..6].to_vec();
        for _ in 0..(x % 200) {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            b.push((x >> 16) as u8);
        }
        check(&b);
    }
    println!(
        "corrupted programs: {rejected} rejected, {accepted} loaded (and validated without panic)"
    );
    assert!(rejected > accepted);
}
