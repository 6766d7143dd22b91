//! The MCP rules around full JSON Schema validation: dialects, `$ref` that is never fetched,
//! bounds for hostile schemas and instances, and the strict-client checks of tool results and
//! arguments.

use std::io::ErrorKind;
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use embedded_mcp_std::full::{
    FullOptions, FullValidator, Remotes, SchemaError, ToolChecker, ValidationFailure,
};
use serde_json::{json, Value};

/// Hosts share validators between threads (the bridge, the test statics).
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<FullValidator>();
    send_sync::<ToolChecker>();
    send_sync::<embedded_mcp_std::mcp_schema::McpSchemas>();
};

// ---------------------------------------------------------------------------------------------
// Dialects

#[test]
fn no_schema_keyword_means_2020_12() {
    // `prefixItems` exists only in 2020-12; under an older draft it would be ignored.
    let validator = FullValidator::new(&json!({"prefixItems": [{"type": "integer"}]})).unwrap();
    assert!(validator.is_valid(&json!([1, "x"])));
    let failure = validator.validate(&json!(["x"])).unwrap_err();
    assert_eq!(failure.instance_path, "/0");
    assert_eq!(failure.keyword, "type");
}

#[test]
fn draft_07_and_2019_09_are_served_with_their_own_semantics() {
    // Draft-07 ignores the siblings of `$ref`; 2020-12 applies them.
    let body = json!({
        "definitions": {"s": {"type": "string"}},
        "properties": {"a": {"$ref": "#/definitions/s", "maxLength": 1}}
    });
    let mut draft7 = body.clone();
    draft7["$schema"] = json!("http://json-schema.org/draft-07/schema#");
    let draft7 = FullValidator::new(&draft7).unwrap();
    let current = FullValidator::new(&body).unwrap();
    assert!(draft7.is_valid(&json!({"a": "abc"})));
    assert!(!current.is_valid(&json!({"a": "abc"})));

    // 2019-09: the array form of `items` is positional.
    let draft2019 = FullValidator::new(&json!({
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "items": [{"type": "integer"}],
        "additionalItems": false
    }))
    .unwrap();
    assert!(draft2019.is_valid(&json!([1])));
    assert!(!draft2019.is_valid(&json!([1, 2])));
}

#[test]
fn other_declared_dialects_are_refused_by_name() {
    for dialect in [
        "http://json-schema.org/draft-04/schema#",
        "http://json-schema.org/draft-06/schema#",
        "https://example.com/my-dialect",
        "https://json-schema.org/schema",
    ] {
        let error = FullValidator::new(&json!({"$schema": dialect, "type": "string"})).unwrap_err();
        assert_eq!(error, SchemaError::UnsupportedDialect(dialect.to_owned()));
        let text = error.to_string();
        assert!(
            text.contains(&format!("dialect {dialect} is not supported")),
            "{text}"
        );
    }
    // Also in an embedded resource, which the crate alone would silently read as 2020-12.
    let nested = json!({
        "$defs": {"x": {"$id": "https://example.com/x", "$schema": "https://example.com/other"}},
        "$ref": "#/$defs/x"
    });
    assert_eq!(
        FullValidator::new(&nested).unwrap_err(),
        SchemaError::UnsupportedDialect("https://example.com/other".to_owned())
    );
    // A `$schema` key that is data (a property name, a `const` value) is not a declaration.
    let data = json!({
        "properties": {"$schema": {"type": "string"}},
        "const": {"$schema": "https://example.com/not-a-dialect"}
    });
    assert!(FullValidator::new(&data).is_ok());
}

#[test]
fn a_registered_meta_schema_is_a_served_dialect_if_its_chain_ends_in_one() {
    let mut remotes = Remotes::new();
    remotes
        .insert(
            "https://example.com/meta",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$id": "https://example.com/meta",
                "$dynamicAnchor": "meta",
                "$vocabulary": {
                    "https://json-schema.org/draft/2020-12/vocab/core": true,
                    "https://json-schema.org/draft/2020-12/vocab/applicator": true,
                    "https://json-schema.org/draft/2020-12/vocab/validation": true
                },
                "allOf": [{"$ref": "https://json-schema.org/draft/2020-12/schema"}]
            }),
        )
        .unwrap();
    let options = FullOptions {
        remotes,
        ..FullOptions::default()
    };
    let validator = FullValidator::with_options(
        &json!({"$schema": "https://example.com/meta", "type": "integer"}),
        &options,
    )
    .unwrap();
    assert!(validator.is_valid(&json!(3)));
    assert!(!validator.is_valid(&json!("3")));
}

// ---------------------------------------------------------------------------------------------
// `$ref`

#[test]
fn same_document_refs_and_anchors_resolve() {
    let validator = FullValidator::new(&json!({
        "$defs": {
            "celsius": {"$anchor": "celsius", "type": "number", "minimum": -273.15},
            "reading": {"type": "object", "properties": {"t": {"$ref": "#celsius"}}}
        },
        "$ref": "#/$defs/reading"
    }))
    .unwrap();
    assert!(validator.is_valid(&json!({"t": 20})));
    let failure = validator.validate(&json!({"t": -300})).unwrap_err();
    assert_eq!(failure.instance_path, "/t");
    assert_eq!(failure.keyword, "minimum");
}

/// Accepts connections on `listener` for `window`, returning how many arrived.
fn count_connections(listener: &TcpListener, window: Duration) -> usize {
    let mut seen = 0;
    let end = Instant::now() + window;
    while Instant::now() < end {
        match listener.accept() {
            Ok(_) => seen += 1,
            Err(error) if error.kind() == ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(5))
            }
            Err(error) => panic!("accept failed: {error}"),
        }
    }
    seen
}

#[test]
fn network_refs_are_refused_by_name_and_never_fetched() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("loopback listener");
    listener.set_nonblocking(true).unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());

    let direct = format!("{base}/schema.json");
    let cases = [
        (json!({"$ref": direct}), direct.clone()),
        (
            json!({"properties": {"a": {"$ref": format!("{base}/deep.json#/$defs/x")}}}),
            format!("{base}/deep.json"),
        ),
        // A relative `$ref` under a network `$id` resolves to a network URI.
        (
            json!({"$id": format!("{base}/root.json"), "items": {"$ref": "other.json"}}),
            format!("{base}/other.json"),
        ),
        (
            json!({"$dynamicRef": format!("{base}/dyn.json#meta")}),
            format!("{base}/dyn.json"),
        ),
    ];
    for (schema, uri) in cases {
        let error = FullValidator::new(&schema).unwrap_err();
        assert_eq!(error, SchemaError::NetworkRef(uri.clone()), "{schema}");
        assert!(error.to_string().contains(&uri), "{error}");
    }
    // A meta-schema on the listener is refused as a dialect, not fetched either.
    let dialect = format!("{base}/meta.json");
    assert_eq!(
        FullValidator::new(&json!({"$schema": dialect})).unwrap_err(),
        SchemaError::UnsupportedDialect(dialect)
    );
    // A registered document at the same address is served from memory.
    let mut remotes = Remotes::new();
    remotes
        .insert(&format!("{base}/known.json"), json!({"type": "integer"}))
        .unwrap();
    let options = FullOptions {
        remotes,
        ..FullOptions::default()
    };
    let known =
        FullValidator::with_options(&json!({"$ref": format!("{base}/known.json")}), &options)
            .unwrap();
    assert!(known.is_valid(&json!(1)));
    assert!(!known.is_valid(&json!("1")));

    assert_eq!(
        count_connections(&listener, Duration::from_millis(300)),
        0,
        "a $ref was fetched"
    );
    // Control: the probe does see a connection, so the zero above means something.
    let _client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    assert_eq!(count_connections(&listener, Duration::from_millis(300)), 1);
}

#[test]
fn non_network_refs_that_are_not_registered_are_refused() {
    for (schema, uri) in [
        (
            json!({"$ref": "urn:example:missing"}),
            "urn:example:missing",
        ),
        (json!({"$ref": "file:///etc/passwd"}), "file:///etc/passwd"),
        (
            json!({"$ref": "missing.json"}),
            "json-schema:///missing.json",
        ),
    ] {
        assert_eq!(
            FullValidator::new(&schema).unwrap_err(),
            SchemaError::UnresolvedRef(uri.to_owned())
        );
    }
    // A pointer into the same document that leads nowhere is an invalid schema, not permissive.
    assert!(matches!(
        FullValidator::new(&json!({"$ref": "#/$defs/missing"})),
        Err(SchemaError::Invalid(_))
    ));
}

// ---------------------------------------------------------------------------------------------
// Bounds

fn nested_not(levels: usize) -> Value {
    let mut schema = json!({"type": "string"});
    for _ in 0..levels {
        schema = json!({"not": schema});
    }
    schema
}

#[test]
fn schema_depth_and_subschema_count_are_bounded() {
    let options = FullOptions {
        max_depth: 20,
        ..FullOptions::default()
    };
    assert!(FullValidator::with_options(&nested_not(19), &options).is_ok());
    match FullValidator::with_options(&nested_not(20), &options) {
        Err(SchemaError::TooDeep { path, max: 20 }) => {
            assert_eq!(path, "/not".repeat(20));
        }
        other => panic!("expected TooDeep, got {other:?}"),
    }
    // The default bound (64) leaves room for the crate's recursion on a test thread's stack.
    let deepest = nested_not(63);
    let validator = FullValidator::new(&deepest).unwrap();
    assert!(!validator.is_valid(&json!("x")));
    assert!(validator.is_valid(&json!(1)));
    let mut properties = json!({"type": "integer"});
    let mut instance = json!("not an integer");
    for _ in 0..31 {
        properties = json!({"properties": {"p": properties}});
        instance = json!({"p": instance});
    }
    let failure = FullValidator::new(&properties)
        .unwrap()
        .validate(&instance)
        .unwrap_err();
    assert_eq!(failure.instance_path, "/p".repeat(31));
    assert!(matches!(
        FullValidator::new(&nested_not(64)),
        Err(SchemaError::TooDeep { max: 64, .. })
    ));
    // Depth is counted on the whole document, `const` values included.
    let mut deep_data = json!(0);
    for _ in 0..100 {
        deep_data = json!([deep_data]);
    }
    assert!(matches!(
        FullValidator::new(&json!({"const": deep_data})),
        Err(SchemaError::TooDeep { max: 64, .. })
    ));

    let many: Vec<Value> = (0..10_000).map(|_| json!({})).collect();
    assert_eq!(
        FullValidator::new(&json!({"anyOf": many})).unwrap_err(),
        SchemaError::TooManySubschemas { max: 10_000 }
    );
    let options = FullOptions {
        max_subschemas: 50,
        ..FullOptions::default()
    };
    let some: Vec<Value> = (0..49).map(|i| json!({"const": i})).collect();
    assert!(FullValidator::with_options(&json!({"anyOf": some}), &options).is_ok());
    let fifty = [some, vec![json!(true)]].concat();
    let error = FullValidator::with_options(&json!({"anyOf": fifty}), &options).unwrap_err();
    assert_eq!(error.to_string(), "schema has more than 50 subschemas");
}

/// `d0: anyOf[d1, d1]`, …, `d{k-1}: anyOf[dk, dk]`, `dk: leaf`: 2^k visits when every branch
/// fails, from a schema of k + 2 subschemas.
fn exponential(k: usize, combinator: &str, leaf: Value) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..k {
        let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
        defs.insert(format!("d{i}"), json!({combinator: [next.clone(), next]}));
    }
    defs.insert(format!("d{k}"), leaf);
    json!({"$defs": defs, "$ref": "#/$defs/d0"})
}

#[test]
fn exponential_evaluation_is_stopped_by_the_step_budget() {
    let options = FullOptions {
        max_steps: 200_000,
        time_limit: None,
        ..FullOptions::default()
    };
    // Without a budget each of these takes 2^60 steps.
    let cases = [
        ("anyOf", json!({"type": "string"}), json!(1)),
        ("anyOf", json!(false), json!({"a": 1})),
        ("allOf", json!(true), json!(1)),
        ("oneOf", json!({}), json!([1, 2])),
    ];
    for (combinator, leaf, instance) in cases {
        let validator =
            FullValidator::with_options(&exponential(60, combinator, leaf.clone()), &options)
                .unwrap();
        let started = Instant::now();
        let failure = validator.validate(&instance).unwrap_err();
        assert_eq!(
            failure.keyword, "max_steps",
            "{combinator} {leaf}: {failure}"
        );
        assert!(failure.is_limit());
        assert!(!validator.is_valid(&instance));
        let all = validator.all_errors(&instance);
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].keyword, "max_steps");
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{combinator} {leaf} took {:?}",
            started.elapsed()
        );
    }
    // The same shape, shallow enough, is evaluated normally under the same budget.
    let small = FullValidator::with_options(
        &exponential(6, "anyOf", json!({"type": "string"})),
        &options,
    )
    .unwrap();
    assert!(small.is_valid(&json!("x")));
    let failure = small.validate(&json!(1)).unwrap_err();
    assert!(!failure.is_limit());
    assert_eq!(failure.keyword, "anyOf");
}

#[test]
fn the_time_limit_stops_a_costly_evaluation() {
    let options = FullOptions {
        max_steps: u64::MAX,
        time_limit: Some(Duration::from_millis(200)),
        ..FullOptions::default()
    };
    let validator = FullValidator::with_options(
        &exponential(60, "anyOf", json!({"type": "string"})),
        &options,
    )
    .unwrap();
    let started = Instant::now();
    let failure = validator.validate(&json!(1)).unwrap_err();
    assert_eq!(failure.keyword, "time_limit");
    assert!(failure.is_limit());
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn instance_depth_is_bounded_and_legit_recursion_is_not() {
    let tree = FullValidator::new(&json!({
        "$defs": {"node": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        "$ref": "#/$defs/node"
    }))
    .unwrap();
    let nest = |levels: usize| {
        let mut value = json!([]);
        for _ in 1..levels {
            value = json!([value]);
        }
        value
    };
    // 128 levels (the default bound, and what serde_json parses) validate on a test thread.
    assert!(tree.is_valid(&nest(128)));
    assert!(tree.all_errors(&nest(128)).is_empty());
    let failure = tree.validate(&nest(129)).unwrap_err();
    assert_eq!(failure.keyword, "max_instance_depth");
    assert!(failure.is_limit());
    assert_eq!(failure.instance_path, "/0".repeat(128));
    assert!(!tree.is_valid(&nest(129)));
}

#[test]
fn failures_carry_instance_path_schema_path_keyword_and_message() {
    let validator = FullValidator::new(&json!({
        "type": "object",
        "properties": {
            "readings": {"type": "array", "items": {"type": "number"}},
            "unit": {"enum": ["C", "F"]}
        },
        "required": ["readings"]
    }))
    .unwrap();
    let failure = validator
        .validate(&json!({"readings": [1.5, "hot"]}))
        .unwrap_err();
    assert_eq!(failure.instance_path, "/readings/1");
    assert_eq!(failure.schema_path, "/properties/readings/items/type");
    assert_eq!(failure.keyword, "type");
    assert!(
        failure.message.contains("\"number\""),
        "{}",
        failure.message
    );
    assert!(
        failure.to_string().starts_with("at /readings/1: "),
        "{failure}"
    );

    let mut all = validator.all_errors(&json!({"unit": "K", "readings": [true]}));
    all.sort_by(|a, b| a.instance_path.cmp(&b.instance_path));
    let found: Vec<(&str, &str)> = all
        .iter()
        .map(|f| (f.instance_path.as_str(), f.keyword.as_str()))
        .collect();
    assert_eq!(found, [("/readings/0", "type"), ("/unit", "enum")]);
}

// ---------------------------------------------------------------------------------------------
// Tool results and arguments

fn sensor_tools() -> Value {
    json!([
        {
            "name": "read_temp",
            "inputSchema": {
                "type": "object",
                "properties": {"sensor": {"type": "integer", "minimum": 0}},
                "required": ["sensor"]
            },
            "outputSchema": {
                "type": "object",
                "properties": {
                    "celsius": {"type": "number"},
                    "history": {"type": "array", "items": {"type": "number"}}
                },
                "required": ["celsius"]
            }
        },
        {
            "name": "samples",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "array", "items": {"type": "number"}}
        },
        {
            "name": "maybe",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": ["object", "null"]}
        },
        {"name": "plain", "inputSchema": {"type": "object"}}
    ])
}

fn checker() -> ToolChecker {
    let mut checker = ToolChecker::new();
    let failed = checker.register_tools(&sensor_tools());
    assert!(failed.is_empty(), "{failed:?}");
    checker
}

const ALL_REVISIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

fn expect_failure(outcome: Result<(), ValidationFailure>) -> ValidationFailure {
    outcome.expect_err("expected a failure")
}

#[test]
fn a_result_without_structured_content_fails_when_the_tool_has_an_output_schema() {
    let checker = checker();
    let text_only = json!({"content": [{"type": "text", "text": "21.5"}]});
    for version in ALL_REVISIONS {
        let failure = expect_failure(checker.check_result(version, "read_temp", &text_only));
        assert_eq!(failure.keyword, "structuredContent");
        assert_eq!(failure.instance_path, "");
        assert!(failure.message.contains("read_temp"), "{failure}");
        // A tool without an outputSchema may return text only.
        assert!(checker.check_result(version, "plain", &text_only).is_ok());
    }
}

#[test]
fn is_error_results_are_not_validated() {
    let checker = checker();
    let error_result = json!({
        "content": [{"type": "text", "text": "sensor 3 does not answer"}],
        "isError": true
    });
    let wrong_shape = json!({
        "content": [], "isError": true, "structuredContent": {"celsius": "n/a"}
    });
    for version in ALL_REVISIONS {
        assert!(checker
            .check_result(version, "read_temp", &error_result)
            .is_ok());
        assert!(checker
            .check_result(version, "read_temp", &wrong_shape)
            .is_ok());
    }
    // `isError: false` is a success and is validated.
    let not_error = json!({"content": [], "isError": false});
    assert!(checker
        .check_result("2026-07-28", "read_temp", &not_error)
        .is_err());
}

#[test]
fn only_complete_results_are_checked_against_the_output_schema() {
    let checker = checker();
    // A 2026-07-28 `input_required` answer of a tool with an outputSchema: no tool output.
    let input_required = json!({
        "resultType": "input_required",
        "inputRequests": {"approval": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "Go?",
            "requestedSchema": {"type": "object", "properties": {"approve": {"type": "boolean"}}}
        }}},
        "requestState": "s"
    });
    for version in ALL_REVISIONS {
        assert!(checker
            .check_result(version, "read_temp", &input_required)
            .is_ok());
    }
    // `complete` is checked as before.
    let complete = json!({"content": [], "resultType": "complete"});
    let failure = expect_failure(checker.check_result("2026-07-28", "read_temp", &complete));
    assert_eq!(failure.keyword, "structuredContent");
    // A `resultType` that is not a string is refused.
    let failure = expect_failure(checker.check_result(
        "2026-07-28",
        "read_temp",
        &json!({"content": [], "resultType": 1}),
    ));
    assert_eq!(failure.keyword, "resultType");
    assert_eq!(failure.instance_path, "/resultType");
}

#[test]
fn null_structured_content_is_a_value_in_2026_and_not_an_object_before() {
    let checker = checker();
    let null = json!({"content": [{"type": "text", "text": "null"}], "structuredContent": null});
    assert!(checker.check_result("2026-07-28", "maybe", &null).is_ok());
    // Present-but-null is validated, not taken as absent.
    let failure = expect_failure(checker.check_result("2026-07-28", "read_temp", &null));
    assert_eq!(failure.instance_path, "/structuredContent");
    assert_eq!(failure.keyword, "type");
    for version in ["2025-06-18", "2025-11-25"] {
        let failure = expect_failure(checker.check_result(version, "maybe", &null));
        assert_eq!(failure.instance_path, "/structuredContent");
        assert_eq!(failure.keyword, "structuredContent");
        assert!(failure.message.contains("must be an object"), "{failure}");
    }
}

#[test]
fn wrong_types_are_reported_with_the_instance_path() {
    let checker = checker();
    let result = json!({
        "content": [],
        "structuredContent": {"celsius": 21.5, "history": [20.5, "21", 22]}
    });
    for version in ALL_REVISIONS {
        let failure = expect_failure(checker.check_result(version, "read_temp", &result));
        assert_eq!(failure.instance_path, "/structuredContent/history/1");
        assert_eq!(failure.schema_path, "/properties/history/items/type");
        assert_eq!(failure.keyword, "type");
        assert!(failure.message.contains("number"), "{failure}");
    }
    let missing = json!({"content": [], "structuredContent": {"history": []}});
    let failure = expect_failure(checker.check_result("2026-07-28", "read_temp", &missing));
    assert_eq!(failure.keyword, "required");
    assert!(failure.message.contains("celsius"), "{failure}");
    let ok = json!({"content": [], "structuredContent": {"celsius": 21.5, "history": [1, 2]}});
    for version in ALL_REVISIONS {
        assert!(checker.check_result(version, "read_temp", &ok).is_ok());
    }
}

#[test]
fn legacy_peers_see_non_object_output_wrapped_under_result() {
    let checker = checker();
    let bare = json!({"content": [], "structuredContent": [1.5, 2]});
    let wrapped = json!({"content": [], "structuredContent": {"result": [1.5, 2]}});
    assert!(checker.check_result("2026-07-28", "samples", &bare).is_ok());
    assert!(checker
        .check_result("2026-07-28", "samples", &wrapped)
        .is_err());
    for version in ["2025-06-18", "2025-11-25"] {
        assert!(checker.check_result(version, "samples", &wrapped).is_ok());
        let failure = expect_failure(checker.check_result(version, "samples", &bare));
        assert_eq!(failure.keyword, "structuredContent");
        let bad = json!({"content": [], "structuredContent": {"result": [1, "x"]}});
        let failure = expect_failure(checker.check_result(version, "samples", &bad));
        assert_eq!(failure.instance_path, "/structuredContent/result/1");
        assert_eq!(failure.schema_path, "/properties/result/items/type");
        let none = json!({"content": [], "structuredContent": {}});
        let failure = expect_failure(checker.check_result(version, "samples", &none));
        assert_eq!(failure.keyword, "required");
    }
}

#[test]
fn arguments_are_checked_against_the_input_schema() {
    let checker = checker();
    assert!(checker
        .check_arguments("read_temp", &json!({"sensor": 3}))
        .is_ok());
    let failure = expect_failure(checker.check_arguments("read_temp", &json!({"sensor": "3"})));
    assert_eq!(failure.instance_path, "/sensor");
    assert_eq!(failure.keyword, "type");
    let failure = expect_failure(checker.check_arguments("read_temp", &json!({"sensor": -1})));
    assert_eq!(failure.keyword, "minimum");
    let failure = expect_failure(checker.check_arguments("read_temp", &json!({})));
    assert_eq!(failure.keyword, "required");
    assert_eq!(failure.instance_path, "");
    let failure = expect_failure(checker.check_arguments("nope", &json!({})));
    assert_eq!(failure.keyword, "tool");
    let failure = expect_failure(checker.check_result("2026-07-28", "nope", &json!({})));
    assert_eq!(failure.keyword, "tool");
    let failure = expect_failure(checker.check_result("2025-03-26", "plain", &json!({})));
    assert_eq!(failure.keyword, "protocolVersion");
}

#[test]
fn tools_whose_schemas_fail_are_reported_and_fail_their_checks() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("loopback listener");
    listener.set_nonblocking(true).unwrap();
    let remote = format!(
        "http://127.0.0.1:{}/out.json",
        listener.local_addr().unwrap().port()
    );
    let mut checker = ToolChecker::new();
    let failed = checker.register_tools(&json!([
        {"name": "fetchy", "inputSchema": {"type": "object"}, "outputSchema": {"$ref": remote}},
        {"name": "scalar_input", "inputSchema": {"type": "string"}},
        {"name": "no_input"},
        {"inputSchema": {"type": "object"}},
        {"name": "old", "inputSchema": {"type": "object",
            "$schema": "http://json-schema.org/draft-04/schema#"}},
        {"name": "fine", "inputSchema": {"type": "object"}},
        {"name": "fine", "inputSchema": {"type": "object"}}
    ]));
    let names: Vec<&str> = failed.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        ["fetchy", "scalar_input", "no_input", "#3", "old", "fine"]
    );
    assert_eq!(failed[0].1, SchemaError::NetworkRef(remote));
    assert!(matches!(failed[4].1, SchemaError::UnsupportedDialect(_)));
    let result = json!({"content": [], "structuredContent": {}});
    let failure = expect_failure(checker.check_result("2026-07-28", "fetchy", &result));
    assert_eq!(failure.keyword, "outputSchema");
    let failure = expect_failure(checker.check_arguments("scalar_input", &json!({})));
    assert_eq!(failure.keyword, "inputSchema");
    assert!(checker.check_arguments("fine", &json!({})).is_ok());
    assert_eq!(count_connections(&listener, Duration::from_millis(100)), 0);
}
