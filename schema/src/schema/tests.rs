//! Unit tests of the schema layer: byte-exact messages, pointers and program bytes.

use std::string::{String, ToString};
use std::vec::Vec;

use super::*;

type S = Storage<64, 512, 2048>;

fn check(schema: &str, instance: &str) -> Result<(), String> {
    let mut storage = S::new();
    let p = compile(schema.as_bytes(), &mut storage).map_err(|e| e.to_string())?;
    p.validate_bytes(instance.as_bytes())
        .map_err(|v| v.to_string())
}

fn violation(schema: &str, instance: &str) -> (String, &'static str) {
    let mut storage = S::new();
    let p = compile(schema.as_bytes(), &mut storage).unwrap();
    let v = p.validate_bytes(instance.as_bytes()).unwrap_err();
    (v.to_string(), v.keyword)
}

#[test]
fn messages_are_byte_exact() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            r#"{"type":"integer"}"#,
            "1.5",
            "type",
            "(root): 1.5 is not of type integer",
        ),
        (
            r#"{"type":["string","null"]}"#,
            "[1]",
            "type",
            "(root): an array is not of type null or string",
        ),
        (
            r#"{"properties":{"level":{"maximum":10}}}"#,
            r#"{"level":12}"#,
            "maximum",
            "/level: 12 is greater than the maximum 10",
        ),
        (
            r#"{"minimum":-1.5}"#,
            "-2",
            "minimum",
            "(root): -2 is less than the minimum -1.5",
        ),
        (
            r#"{"exclusiveMinimum":0}"#,
            "0",
            "exclusiveMinimum",
            "(root): 0 is not greater than exclusiveMinimum 0",
        ),
        (
            r#"{"exclusiveMaximum":1e2}"#,
            "100.0",
            "exclusiveMaximum",
            "(root): 100.0 is not less than exclusiveMaximum 1e2",
        ),
        (
            r#"{"multipleOf":0.01}"#,
            "19.999",
            "multipleOf",
            "(root): 19.999 is not a multiple of 0.01",
        ),
        (
            r#"{"const":"on"}"#,
            r#""off""#,
            "const",
            r#"(root): "off" is not the const "on""#,
        ),
        (
            r#"{"enum":["c","f"]}"#,
            r#""kelvin""#,
            "enum",
            r#"(root): "kelvin" is not one of the enum values"#,
        ),
        (
            r#"{"minLength":3}"#,
            r#""é""#,
            "minLength",
            r#"(root): "é" is shorter than 3 characters"#,
        ),
        (
            r#"{"maxLength":2}"#,
            r#""abcdefghijklmnopqrstuvwxyz""#,
            "maxLength",
            r#"(root): "abcdefghijklmno…" is longer than 2 characters"#,
        ),
        (
            r#"{"minItems":2}"#,
            "[1]",
            "minItems",
            "(root): 1 items, fewer than minItems 2",
        ),
        (
            r#"{"maxItems":1}"#,
            "[1,2]",
            "maxItems",
            "(root): more than maxItems 1 items",
        ),
        (
            r#"{"uniqueItems":true}"#,
            r#"[{"a":1,"b":[2]},3,{"b":[2.0],"a":1e0}]"#,
            "uniqueItems",
            "(root): items 0 and 2 are equal (uniqueItems)",
        ),
        (
            r#"{"prefixItems":[true],"items":false}"#,
            "[1,2]",
            "items",
            "(root): item 1 not allowed: at most 1 items",
        ),
        (
            r#"{"contains":{"type":"string"}}"#,
            "[1]",
            "contains",
            r#"(root): 0 items match "contains", need 1"#,
        ),
        (
            r#"{"contains":{"type":"string"},"minContains":2}"#,
            r#"["a"]"#,
            "minContains",
            r#"(root): 1 items match "contains", need 2"#,
        ),
        (
            r#"{"contains":true,"maxContains":1}"#,
            "[1,2]",
            "maxContains",
            "(root): more than maxContains 1 items match",
        ),
        (
            r#"{"required":["celsius"]}"#,
            "{}",
            "required",
            r#"(root): missing required property "celsius""#,
        ),
        (
            r#"{"minProperties":1}"#,
            "{}",
            "minProperties",
            "(root): 0 properties, fewer than minProperties 1",
        ),
        (
            r#"{"maxProperties":0}"#,
            r#"{"a":1}"#,
            "maxProperties",
            "(root): more than maxProperties 0 properties",
        ),
        (
            r#"{"additionalProperties":false}"#,
            r#"{"extra":1}"#,
            "additionalProperties",
            r#"(root): property "extra" not allowed (additionalProperties)"#,
        ),
        (
            r#"{"propertyNames":{"maxLength":2}}"#,
            r#"{"abc":1}"#,
            "propertyNames",
            r#"(root): name "abc" fails propertyNames"#,
        ),
        (
            r#"{"dependentRequired":{"a":["b"]}}"#,
            r#"{"a":1}"#,
            "dependentRequired",
            r#"(root): "a" requires property "b""#,
        ),
        (
            r#"{"not":{"type":"null"}}"#,
            "null",
            "not",
            r#"(root): null must not match "not""#,
        ),
        (
            r#"{"anyOf":[{"type":"string"},{"minimum":5}]}"#,
            "1",
            "anyOf",
            "(root): 1 matches no schema of anyOf",
        ),
        (
            r#"{"oneOf":[{"minimum":1},{"maximum":5}]}"#,
            "3",
            "oneOf",
            "(root): 3 matches oneOf 0 and 1, not one",
        ),
        (
            r#"{"oneOf":[{"minimum":10},{"maximum":0}]}"#,
            "3",
            "oneOf",
            "(root): 3 matches no schema of oneOf",
        ),
        (
            r#"{"if":{"minimum":0},"then":{"multipleOf":2},"else":{"const":-1}}"#,
            "3",
            "multipleOf",
            "(root): 3 is not a multiple of 2",
        ),
        (
            r#"false"#,
            "1",
            "false",
            "(root): not allowed (the schema is false)",
        ),
        (
            r#"{"unevaluatedProperties":false,"allOf":[{"properties":{"a":true}}]}"#,
            r#"{"a":1,"b":2}"#,
            "unevaluatedProperties",
            r#"(root): property "b" not allowed (unevaluatedProperties)"#,
        ),
        (
            r#"{"prefixItems":[true],"unevaluatedItems":false}"#,
            "[1,2]",
            "unevaluatedItems",
            "(root): item 1 not allowed (unevaluatedItems)",
        ),
        (
            r#"{"items":{"properties":{"a/b~":{"type":"string"}}}}"#,
            r#"[{},{"a/b~":0}]"#,
            "type",
            "/1/a~1b~0: 0 is not of type string",
        ),
    ];
    for (schema, instance, keyword, text) in cases {
        let (got, kw) = violation(schema, instance);
        assert_eq!(&got, text, "{schema} / {instance}");
        assert_eq!(&kw, keyword, "{schema} / {instance}");
    }
}

#[cfg(feature = "pattern")]
#[test]
fn pattern_messages_are_byte_exact() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            r#"{"pattern":"^[a-z]+$"}"#,
            r#""A1""#,
            "pattern",
            r#"(root): "A1" does not match ^[a-z]+$"#,
        ),
        (
            r#"{"patternProperties":{"^x":false}}"#,
            r#"{"xy":1}"#,
            "patternProperties",
            r#"(root): property "xy" not allowed (patternProperties)"#,
        ),
        (
            r#"{"patternProperties":{"^x":{"type":"string"},"y$":{"maxLength":1}},
                "additionalProperties":false}"#,
            r#"{"xay":"a","xy":"ab"}"#,
            "maxLength",
            r#"/xy: "ab" is longer than 1 characters"#,
        ),
        (
            r#"{"patternProperties":{"^x":true},"unevaluatedProperties":false}"#,
            r#"{"x1":1,"y":2}"#,
            "unevaluatedProperties",
            r#"(root): property "y" not allowed (unevaluatedProperties)"#,
        ),
    ];
    for (schema, instance, keyword, text) in cases {
        let (got, kw) = violation(schema, instance);
        assert_eq!(&got, text, "{schema} / {instance}");
        assert_eq!(&kw, keyword, "{schema} / {instance}");
    }
    assert!(check(r#"{"pattern":"^\\d+$"}"#, r#""123""#).is_ok());
    assert!(check(r#"{"pattern":"é"}"#, r#""caf\u00e9""#).is_ok());
    assert!(check(
        r#"{"patternProperties":{"^[a-z]{2}$":{"type":"integer"}},"additionalProperties":false}"#,
        r#"{"ab":1,"cd":2}"#
    )
    .is_ok());
}

/// `{"pattern":"^a[b-c]"}` as a postcard program: the automaton is stored in the program.
#[rustfmt::skip]
const PATTERN_PROGRAM: &[u8] = &[
    b'E', b'M', b'S', b'P', 2, // magic, version
    1, 0,                      // one node, at op 0
    7,                         // 7 ops, each (tag, a, b, c):
    11, 0, 7, 0,               //   Pattern("^a[b-c]": text 0..7)
    39, 5, 4, 0,               //   Regex { len: 5, states: 4 }
    45, 0, 0, 0,               //     0: ReStart
    40, 97, 0, 0,              //     1: ReChar('a')
    42, 4, 1, 0,               //     2: ReClass { ranges at 4, 1 range, flags 0 }
    47, 0, 0, 0,               //     3: ReMatch
    48, 98, 99, 0,             //     4: ReRange('b'..='c')
    7, b'^', b'a', b'[', b'b', b'-', b'c', b']', // text
];

#[cfg(feature = "pattern")]
#[test]
fn pattern_program_is_byte_exact() {
    let mut storage = S::new();
    let program = compile(br#"{"pattern":"^a[b-c]"}"#, &mut storage).unwrap();
    let mut buf = [0u8; 64];
    assert_eq!(program.to_postcard(&mut buf).unwrap(), PATTERN_PROGRAM);
    let mut back = S::new();
    let loaded = Program::from_postcard(PATTERN_PROGRAM, &mut back).unwrap();
    assert!(loaded.validate_bytes(br#""acx""#).is_ok());
    assert!(loaded.validate_bytes(br#""xab""#).is_err());
    // A target out of range, a range out of order: corrupt.
    let mut bad = PATTERN_PROGRAM.to_vec();
    bad[25] = 9; // ReClass ranges at 9, past the block
    assert_eq!(
        Program::from_postcard(&bad, &mut S::new()),
        Err(LoadError::Corrupt)
    );
    let mut bad = PATTERN_PROGRAM.to_vec();
    bad[34] = 97; // ReRange('b'..='a')
    assert_eq!(
        Program::from_postcard(&bad, &mut S::new()),
        Err(LoadError::Corrupt)
    );
}

#[cfg(not(feature = "pattern"))]
#[test]
fn patterns_need_the_feature() {
    let mut storage = S::new();
    for (schema, refusal) in [
        (
            r#"{"pattern":"^a"}"#,
            "/pattern: `pattern` is refused: regular expressions need the `pattern` feature of embedded-mcp",
        ),
        (
            r#"{"patternProperties":{"^a":true}}"#,
            "/patternProperties: `patternProperties` is refused: regular expressions need the `pattern` feature of embedded-mcp",
        ),
    ] {
        let err = compile(schema.as_bytes(), &mut storage).unwrap_err();
        assert_eq!(err.to_string(), refusal);
    }
    // Without regular expressions, an empty `patternProperties` still compiles.
    assert!(check(r#"{"patternProperties":{}}"#, "{}").is_ok());
    assert_eq!(
        Program::from_postcard(PATTERN_PROGRAM, &mut S::new()),
        Err(LoadError::NeedsFeature("pattern"))
    );
    assert_eq!(
        LoadError::NeedsFeature("pattern").to_string(),
        "schema program needs the `pattern` feature of embedded-mcp"
    );
}

#[test]
fn json_equality_and_numbers() {
    assert!(check(r#"{"const":1}"#, "1.0").is_ok());
    assert!(check(r#"{"const":1}"#, "1e0").is_ok());
    assert!(check(
        r#"{"const":{"a":[1,"é"],"b":null}}"#,
        r#"{"b":null,"a":[1.0,"\u00e9"]}"#
    )
    .is_ok());
    assert!(check(r#"{"const":{"a":1}}"#, r#"{"a":1,"b":1}"#).is_err());
    assert!(check(r#"{"enum":[[1,2]]}"#, "[1,2,3]").is_err());
    assert!(check(r#"{"type":"integer"}"#, "1e400").is_ok());
    assert!(check(
        r#"{"maximum":18446744073709551615}"#,
        "18446744073709551616"
    )
    .is_err());
    assert!(check(r#"{"multipleOf":0.1}"#, "0.3").is_ok());
    assert!(check(
        r#"{"uniqueItems":true}"#,
        r#"[1,"1",true,null,[1],{"1":1}]"#
    )
    .is_ok());
}

#[test]
fn refs_anchors_and_ids() {
    let schema = r##"{"$id":"https://example.com/sensor.json",
        "$defs":{"unit":{"$anchor":"unit","enum":["c","f"]},"a~b/c":{"type":"integer"}},
        "properties":{"u":{"$ref":"#unit"},"n":{"$ref":"#/$defs/a~0b~1c"},
            "m":{"$ref":"https://example.com/sensor.json#/$defs/unit"},"p":{"$ref":"#/$defs/a%7E0b~1c"}}}"##;
    assert!(check(schema, r#"{"u":"c","n":1,"m":"f","p":2}"#).is_ok());
    assert_eq!(
        check(schema, r#"{"u":"k"}"#).unwrap_err(),
        r#"/u: "k" is not one of the enum values"#
    );
    assert_eq!(
        check(schema, r#"{"p":"x"}"#).unwrap_err(),
        r#"/p: "x" is not of type integer"#
    );
    // Embedded resources: `$id` below the root changes the base URI of what it contains.
    let schema = r##"{"$id":"http://example.com/root.json",
        "properties":{"a":{"$ref":"item.json"},"b":{"$ref":"other/item.json#odd"},
            "c":{"$ref":"urn:example:leaf#/$defs/x"}},
        "$defs":{
            "item":{"$id":"item.json","type":"integer","$anchor":"odd","multipleOf":2},
            "nested":{"$id":"other/","$defs":{"i":{"$id":"item.json","$anchor":"odd","type":"string"}}},
            "leaf":{"$id":"urn:example:leaf","$defs":{"x":{"$ref":"#/$defs/y"},"y":{"const":"y"}}}}}"##;
    assert!(check(schema, r#"{"a":4,"b":"s","c":"y"}"#).is_ok());
    assert_eq!(
        check(schema, r#"{"a":3}"#).unwrap_err(),
        "/a: 3 is not a multiple of 2"
    );
    assert_eq!(
        check(schema, r#"{"b":1}"#).unwrap_err(),
        "/b: 1 is not of type string"
    );
    assert_eq!(
        check(schema, r#"{"c":"x"}"#).unwrap_err(),
        r#"/c: "x" is not the const "y""#
    );
    // A URI that no resource of the document has is another document: refused.
    let err = check(
        r##"{"$id":"http://example.com/a.json","$ref":"b.json"}"##,
        "1",
    )
    .unwrap_err();
    assert_eq!(
        err,
        "/$ref: `$ref` is refused: not a same-document reference (other documents are never fetched)"
    );
    // An `$anchor` inside data (a `const`) is not a schema.
    let err = check(r##"{"const":{"$anchor":"x"},"$ref":"#x"}"##, "1").unwrap_err();
    assert_eq!(err, "/$ref: `$ref` does not resolve inside the document");
}

#[test]
fn refusals_name_the_keyword_and_pointer() {
    #[cfg(feature = "pattern")]
    const PATTERN: &str = "/properties/b/pattern: `pattern` is refused: backreference";
    #[cfg(not(feature = "pattern"))]
    const PATTERN: &str = "/properties/b/pattern: `pattern` is refused: regular expressions need the `pattern` feature of embedded-mcp";
    let schema = br##"{"$schema":"http://json-schema.org/draft-07/schema#",
        "properties":{"a":{"$ref":"other.json"},"b":{"pattern":"(x)\\1"},
        "c":{"$dynamicRef":"#meta"},"d":{"$id":"inner"},"e":{"multipleOf":1.2345678901234567891}}}"##;
    let mut storage = S::new();
    let mut seen = Vec::new();
    let first =
        compile_reporting(schema, &mut storage, &mut |e| seen.push(e.to_string())).unwrap_err();
    assert_eq!(
        seen,
        [
            "/$schema: `$schema` is refused: only JSON Schema 2020-12 is supported (no other $schema)",
            "/properties/a/$ref: `$ref` is refused: not a same-document reference (other documents are never fetched)",
            PATTERN,
            "/properties/c/$dynamicRef: `$dynamicRef` is refused: dynamic references are not supported",
            "/properties/e/multipleOf: `multipleOf` is refused: divisors with more than 18 significant digits are not supported",
        ]
    );
    assert!(matches!(
        first,
        CompileError::Refused {
            keyword: "$schema",
            ..
        }
    ));
    let mut storage = S::new();
    let err = compile(br#"{"minLength":-1}"#, &mut storage).unwrap_err();
    assert_eq!(
        err.to_string(),
        "/minLength: invalid `minLength`: must be a non-negative integer"
    );
    assert_eq!(
        compile(b"{\"type\":", &mut storage)
            .unwrap_err()
            .to_string(),
        "schema is not JSON: unexpected end of input at byte 8"
    );
}

#[test]
fn capacities_are_reported() {
    let mut tiny = Storage::<2, 4, 4>::new();
    assert_eq!(
        compile(br#"{"items":{"items":{}}}"#, &mut tiny).unwrap_err(),
        CompileError::TooManyNodes { capacity: 2 }
    );
    assert_eq!(
        compile(br#"{"required":["a","a","a","a","a"]}"#, &mut tiny).unwrap_err(),
        CompileError::TooManyOps { capacity: 4 }
    );
    assert_eq!(
        compile(br#"{"const":"abcdef"}"#, &mut tiny).unwrap_err(),
        CompileError::TextFull { capacity: 4 }
    );
}

#[test]
fn every_op_round_trips_through_its_wire_form() {
    use super::program::{Op, Str};
    let x = Str { off: 7, len: 3 };
    let ops = [
        Op::Type(64),
        Op::False,
        Op::Const(x),
        Op::Enum(2),
        Op::MultipleOf(x),
        Op::Minimum(x),
        Op::ExclusiveMinimum(x),
        Op::Maximum(x),
        Op::ExclusiveMaximum(x),
        Op::MinLength(1),
        Op::MaxLength(u32::MAX),
        Op::Pattern(x),
        Op::MinItems(2),
        Op::MaxItems(3),
        Op::UniqueItems,
        Op::Items { prefix: 2, rest: 9 },
        Op::Contains(4),
        Op::MinContains(0),
        Op::MaxContains(7),
        Op::Required(x),
        Op::MinProperties(1),
        Op::MaxProperties(2),
        Op::Members {
            props: 1,
            patterns: 2,
            additional: 0xffff,
        },
        Op::PropertyNames(3),
        Op::DependentRequired {
            trigger: x,
            count: 2,
        },
        Op::DependentSchema {
            trigger: x,
            node: 5,
        },
        Op::Ref(6),
        Op::AllOf(2),
        Op::AnyOf(3),
        Op::OneOf(4),
        Op::Not(8),
        Op::If {
            cond: 1,
            then: 2,
            otherwise: 0xffff,
        },
        Op::UnevaluatedItems(2),
        Op::UnevaluatedProperties(3),
        Op::Child(9),
        Op::EnumValue(x),
        Op::Name(x),
        Op::Prop { name: x, node: 4 },
        Op::PatternProp {
            pattern: x,
            node: 5,
        },
        Op::Regex {
            len: 300,
            states: 128,
        },
        Op::ReChar('🐲'),
        Op::ReAny,
        Op::ReClass {
            at: 130,
            ranges: 48,
            flags: 0x85,
        },
        Op::ReSplit(1, 127),
        Op::ReJmp(4),
        Op::ReStart,
        Op::ReEnd,
        Op::ReMatch,
        Op::ReRange {
            lo: 'a',
            hi_low: 0xfffd,
            hi_plane: 0x10,
        },
    ];
    for op in ops {
        assert_eq!(Op::from_wire(op.to_wire()), Some(op), "{op:?}");
    }
    // Code points that are not characters do not load.
    assert_eq!(
        Op::from_wire(Op::ReChar('a').to_wire().with_a(0xd800)),
        None
    );
    assert_eq!(
        Op::from_wire(Op::ReChar('a').to_wire().with_a(0x11_0000)),
        None
    );
    // Eight bytes an op (the RAM figures of `Storage` rely on it).
    assert_eq!(core::mem::size_of::<Op>(), 8);
}

#[test]
fn object_schema_detection() {
    let mut s = S::new();
    assert!(compile(br#"{"type":"object"}"#, &mut s)
        .unwrap()
        .is_object_schema());
    assert!(!compile(br#"{"type":["object","null"]}"#, &mut s)
        .unwrap()
        .is_object_schema());
    assert!(!compile(br#"{"properties":{}}"#, &mut s)
        .unwrap()
        .is_object_schema());
    assert!(!compile(b"true", &mut s).unwrap().is_object_schema());
}

#[test]
fn postcard_program_is_byte_exact_and_loads() {
    let mut storage = S::new();
    let program = compile(
        br#"{"type":"object","properties":{"c":{"type":"number","maximum":50}},"required":["c"]}"#,
        &mut storage,
    )
    .unwrap();
    let mut buf = [0u8; 64];
    let bytes = program.to_postcard(&mut buf).unwrap();
    assert_eq!(program.postcard_len(), bytes.len());
    #[rustfmt::skip]
    let expected: &[u8] = &[
        b'E', b'M', b'S', b'P', // magic
        2,                      // version (varint)
        2, 0, 4,                // nodes: root at op 0, node 1 at op 4
        6,                      // 6 ops, each (tag, a, b, c):
        0, 64, 0, 0,            //   Type(object)
        19, 0, 1, 0,            //   Required("c": text 0..1)
        22, 1, 0, 0xff, 0xff, 3, //  Members { props: 1, patterns: 0, additional: NONE }
        37, 0, 1, 1,            //   Prop { name: "c", node: 1 }
        0, 8, 0, 0,             //   node 1: Type(number)
        7, 1, 2, 0,             //   Maximum("50": text 1..3)
        3, b'c', b'5', b'0',    // text
    ];
    assert_eq!(bytes, expected);
    let mut back = S::new();
    let loaded = Program::from_postcard(bytes, &mut back).unwrap();
    assert_eq!(loaded.validate_bytes(br#"{"c":49.5}"#), Ok(()));
    assert_eq!(
        loaded
            .validate_bytes(br#"{"c":51}"#)
            .unwrap_err()
            .to_string(),
        "/c: 51 is greater than the maximum 50"
    );
    // Truncated, bad magic, other version, too large for the storage.
    assert_eq!(
        Program::from_postcard(&bytes[..bytes.len() - 1], &mut S::new()),
        Err(LoadError::Malformed)
    );
    let mut bad = bytes.to_vec();
    bad[0] = b'X';
    assert_eq!(
        Program::from_postcard(&bad, &mut S::new()),
        Err(LoadError::BadMagic)
    );
    let mut v1 = bytes.to_vec();
    v1[4] = 1;
    assert_eq!(
        Program::from_postcard(&v1, &mut S::new()),
        Err(LoadError::UnsupportedVersion(1))
    );
    assert_eq!(
        Program::from_postcard(bytes, &mut Storage::<1, 8, 8>::new()),
        Err(LoadError::TooLarge)
    );
}

/// The duplicate-name check of `properties`/`patternProperties` sorts the names with
/// `compile::heap_sort`: O(n log n) comparisons on any input, where comparing every pair (the
/// check before) took n²/2.
#[test]
fn heap_sort_sorts_within_n_log_n_comparisons() {
    use core::cell::Cell;
    use std::vec;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for n in [0usize, 1, 2, 3, 4, 5, 7, 8, 9, 100, 1000, 4095, 16_383] {
        let inputs: [Vec<u64>; 5] = [
            (0..n as u64).collect(),
            (0..n as u64).rev().collect(),
            vec![7; n],
            (0..n).map(|_| random() % 16).collect(),
            (0..n).map(|_| random()).collect(),
        ];
        for input in inputs {
            let mut v = input.clone();
            let comparisons = Cell::new(0usize);
            compile::heap_sort(&mut v, |a, b| {
                comparisons.set(comparisons.get() + 1);
                a.cmp(b)
            });
            let mut want = input;
            want.sort_unstable();
            assert_eq!(v, want, "n = {n}");
            // Building the heap takes at most 2n comparisons, each of the n - 1 extractions at
            // most 2 per level of the heap.
            let levels = usize::BITS - n.leading_zeros();
            let budget = 2 * n + 2 * n * levels as usize;
            assert!(
                comparisons.get() <= budget,
                "n = {n}: {} comparisons, budget {budget}",
                comparisons.get()
            );
        }
    }
}

/// The sorted duplicate check finds exactly the objects that comparing every pair of decoded
/// names finds (the check before), on names mixing escapes, surrogate pairs and prefixes.
#[test]
fn duplicate_names_are_found_exactly_as_by_comparing_every_pair() {
    use std::format;
    const PIECES: [&str; 12] = [
        "a",
        "b",
        "\\u0061",
        "\\u0062",
        "\u{e9}",
        "\\u00e9",
        "\\u00E9",
        "\u{1f600}",
        "\\ud83d\\ude00",
        "\\n",
        "\\u000a",
        "\\/",
    ];
    let pairwise = |object: &str| -> bool {
        let value = crate::json::Value::parse(object.as_bytes()).unwrap();
        let names: Vec<_> = value.members().unwrap().map(|(k, _)| k).collect();
        names
            .iter()
            .enumerate()
            .any(|(i, a)| names.iter().skip(i + 1).any(|b| a.chars().eq(b.chars())))
    };
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = move |below: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % below as u64) as usize
    };
    let mut found = 0;
    for _ in 0..3000 {
        let members: Vec<String> = (0..random(7))
            .map(|_| {
                let name: String = (0..random(3))
                    .map(|_| PIECES[random(PIECES.len())])
                    .collect();
                format!("\"{name}\":{{}}")
            })
            .collect();
        let object = format!("{{{}}}", members.join(","));
        let duplicate = pairwise(&object);
        found += usize::from(duplicate);
        for keyword in ["properties", "patternProperties"] {
            let schema = format!("{{\"{keyword}\":{object}}}");
            let mut storage = S::new();
            match compile(schema.as_bytes(), &mut storage) {
                Err(e)
                    if e.to_string()
                        == format!("/{keyword}: invalid `{keyword}`: a name appears twice") =>
                {
                    assert!(duplicate, "{schema}: false duplicate")
                }
                // Without the `pattern` feature, or for names that are not valid patterns.
                Err(CompileError::Refused { .. }) => {
                    assert!(!duplicate && keyword == "patternProperties", "{schema}")
                }
                Err(e) => panic!("{schema}: {e}"),
                Ok(_) => assert!(!duplicate, "{schema}: duplicate missed"),
            }
        }
    }
    assert!(found > 300, "{found} objects with duplicates");
}
