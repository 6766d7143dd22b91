//! The compiled subset validator, schema and instance together.
//!
//! Input: schema text, a NUL byte, instance text. Asserted, whenever the schema compiles:
//! - `validate_bytes` and `validate` of the parsed instance give the same verdict;
//! - a verdict that is not a spent bound (`TooDeep`, `BudgetExceeded`) is the same with a
//!   budget 20 times larger (the budget only ever turns work into `BudgetExceeded`);
//! - the program loaded back from its postcard form gives the same verdict;
//! - a violation has a keyword (for `Invalid`) and a message, and its `Display` starts with its
//!   instance path;
//! - an instance the validator accepts is JSON to `serde_json`;
//! - the evaluator built for the derive's keywords (`validate_for::<DerivedKeywords>`) gives the
//!   full verdict, byte for byte, on every program those keywords cover, and the full verdict or
//!   `Unsupported` (never another) on every other.
#![no_main]

use embedded_mcp::json::{Limits, Value};
use embedded_mcp::schema::{
    compile, KeywordSet, Keywords, Program, Storage, ValidationLimits, ViolationKind,
    DEFAULT_MAX_STEPS,
};
use embedded_mcp_fuzz::derived::DerivedKeywords;
use embedded_mcp_fuzz::serde_json_accepts;
use libfuzzer_sys::fuzz_target;

type Store = Storage<256, 1024, 2048>;

fuzz_target!(|data: &[u8]| {
    let Some(split) = data.iter().position(|&b| b == 0) else {
        return;
    };
    let (schema, instance) = (&data[..split], &data[split + 1..]);
    let mut storage = Box::new(Store::new());
    let Ok(program) = compile(schema, &mut storage) else {
        return;
    };
    let limits = ValidationLimits::default();
    let verdict = program.validate_bytes_with(instance, &limits);

    // The same through a parsed value.
    let parse = Value::parse_with(
        instance,
        Limits {
            max_depth: limits.instance_max_depth,
        },
    );
    match parse {
        Ok(value) => {
            assert!(
                serde_json_accepts(instance),
                "parsed an instance that is not JSON"
            );
            assert_eq!(program.validate_with(value, &limits), verdict);
            let built = program.validate_for_with::<DerivedKeywords>(value, &limits);
            let shown = |r: &Result<(), _>| {
                r.as_ref()
                    .map_err(|v: &embedded_mcp::schema::Violation| v.to_string())
                    .err()
            };
            if DerivedKeywords::SET.covers(KeywordSet::of(&program)) {
                assert_eq!(built, verdict, "covered by the derive's keywords");
                assert_eq!(shown(&built), shown(&verdict), "the same message");
            } else if !matches!(&built, Err(v) if v.kind == ViolationKind::Unsupported) {
                assert_eq!(
                    built, verdict,
                    "not covered: the full verdict or Unsupported"
                );
            }
        }
        Err(_) => assert_eq!(
            verdict.map_err(|v| v.kind),
            Err(ViolationKind::NotJson),
            "an unparsable instance is NotJson"
        ),
    }

    if let Err(v) = &verdict {
        assert!(!v.message().is_empty(), "a violation says why");
        if v.kind == ViolationKind::Invalid {
            assert!(
                !v.keyword.is_empty(),
                "an invalid instance names the keyword"
            );
        }
        let shown = v.to_string();
        let path = if v.path.as_str().is_empty() {
            "(root)"
        } else {
            v.path.as_str()
        };
        assert!(shown.starts_with(path), "{shown}");
    }

    // A larger budget changes nothing unless the budget was spent.
    let spent = matches!(
        verdict,
        Err(ref v) if matches!(v.kind, ViolationKind::BudgetExceeded | ViolationKind::TooDeep)
    );
    if !spent {
        let generous = ValidationLimits {
            max_steps: DEFAULT_MAX_STEPS * 20,
            ..limits
        };
        assert_eq!(program.validate_bytes_with(instance, &generous), verdict);
    }

    // The postcard form validates the same.
    let mut bytes = vec![0u8; program.postcard_len()];
    let written = program.to_postcard(&mut bytes).expect("fits").len();
    let mut again = Box::new(Store::new());
    let loaded = Program::from_postcard(&bytes[..written], &mut again).expect("loads");
    assert_eq!(loaded.validate_bytes_with(instance, &limits), verdict);
});
