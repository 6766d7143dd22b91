//! `mcp_schema::McpSchemas` against the official MCP schemas and example messages in `shared/`.

use std::path::PathBuf;
use std::sync::OnceLock;

use embedded_mcp_std::mcp_schema::McpSchemas;
use embedded_mcp_tests::mcp_schema_dir;
use serde_json::{json, Value};

/// Every revision vendored in `tests/vectors/mcp-schema`: the three the engine speaks and the two
/// older ones the bridge answers old clients in.
const REVISIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

fn schemas() -> &'static McpSchemas {
    static SCHEMAS: OnceLock<McpSchemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| McpSchemas::load(&mcp_schema_dir()).expect("official MCP schemas load"))
}

/// `(type name, file, example)` for every official example of 2026-07-28.
fn examples() -> Vec<(String, PathBuf, Value)> {
    let root = mcp_schema_dir().join("2026-07-28/examples");
    let mut examples = Vec::new();
    for folder in std::fs::read_dir(&root).expect("examples folder") {
        let folder = folder.expect("entry").path();
        let type_name = folder.file_name().unwrap().to_string_lossy().into_owned();
        for file in std::fs::read_dir(&folder).expect("type folder") {
            let file = file.expect("entry").path();
            let text = std::fs::read_to_string(&file).expect("example readable");
            let value = serde_json::from_str(&text).expect("example is JSON");
            examples.push((type_name.clone(), file, value));
        }
    }
    examples.sort_by(|a, b| a.1.cmp(&b.1));
    examples
}

fn request(method: &str, id: i64, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[test]
fn every_revision_present_is_loaded() {
    assert_eq!(schemas().versions(), REVISIONS);
    let error = McpSchemas::load(&mcp_schema_dir().join("no-such-folder"))
        .err()
        .expect("a missing folder is an error")
        .to_string();
    assert!(error.contains("no-such-folder"), "{error}");
    let unknown = schemas()
        .check_def("2024-01-01", "Result", &json!({}))
        .unwrap_err()
        .to_string();
    assert!(
        unknown.contains("2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"),
        "{unknown}"
    );
    let missing = schemas()
        .check_def("2026-07-28", "NoSuchThing", &json!({}))
        .unwrap_err()
        .to_string();
    assert!(missing.contains("NoSuchThing"), "{missing}");
}

#[test]
fn every_official_example_validates_against_its_type() {
    let examples = examples();
    assert_eq!(examples.len(), 129, "the 2026-07-28 examples");
    let mut failures = Vec::new();
    let mut messages = 0;
    for (type_name, file, example) in &examples {
        if let Err(error) = schemas().check_def("2026-07-28", type_name, example) {
            failures.push(format!("{}: {error}", file.display()));
        }
        if example.get("jsonrpc").is_some() {
            messages += 1;
            if let Err(error) = schemas().check_message("2026-07-28", example) {
                failures.push(format!("{} as a message: {error}", file.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        messages >= 30,
        "only {messages} whole messages among the examples"
    );
}

/// The official example that `check_response` rejects on purpose: its `resultType` is
/// `"complete"` but it lacks the `ttlMs` and `cacheScope` that `ReadResourceResult` requires. It
/// validates against `ReadResourceResultResponse` only through that type's other branch,
/// `InputRequiredResult`, which asks for little more than `resultType`.
const LOOSE_EXAMPLE: &str = "ReadResourceResultResponse/read-resource-result-response.json";

#[test]
fn every_official_result_response_passes_check_response() {
    let examples = examples();
    let mut checked = 0;
    let mut rejected = Vec::new();
    for (type_name, file, example) in &examples {
        let Some(stem) = type_name.strip_suffix("ResultResponse") else {
            continue;
        };
        // The method comes from the matching request example.
        let method = examples
            .iter()
            .find(|(name, _, _)| *name == format!("{stem}Request"))
            .and_then(|(_, _, request)| request["method"].as_str())
            .unwrap_or_else(|| panic!("no request example for {type_name}"));
        checked += 1;
        if let Err(error) = schemas().check_response("2026-07-28", method, example) {
            rejected.push((file.clone(), error.to_string()));
        }
    }
    assert!(checked >= 10, "only {checked} result responses checked");
    match rejected.as_slice() {
        [(file, error)] if file.ends_with(LOOSE_EXAMPLE) => {
            assert!(error.contains("at /result:"), "{error}");
            assert!(
                error.contains("ttlMs") && error.contains("cacheScope"),
                "{error}"
            );
        }
        other => panic!("unexpected rejections: {other:#?}"),
    }
}

#[test]
fn input_required_results_are_checked_where_the_method_allows_them() {
    let pending = json!({"jsonrpc": "2.0", "id": 9, "result": {
        "resultType": "input_required",
        "requestState": "eyJzdGVwIjoxfQ"
    }});
    schemas()
        .check_response("2026-07-28", "tools/call", &pending)
        .unwrap();
    // tools/list has no InputRequiredResult alternative: its own result type applies.
    let error = schemas()
        .check_response("2026-07-28", "tools/list", &pending)
        .unwrap_err()
        .to_string();
    assert!(error.contains("ListToolsResult"), "{error}");
    let mut broken = pending.clone();
    broken["result"]["requestState"] = json!(5);
    let error = schemas()
        .check_response("2026-07-28", "tools/call", &broken)
        .unwrap_err()
        .to_string();
    assert!(error.contains("at /result/requestState:"), "{error}");
}

#[test]
fn check_def_lists_each_failure_with_its_instance_path() {
    let result = json!({
        "resultType": "complete",
        "content": [{"type": "text", "text": 5}],
        "isError": "no"
    });
    let error = schemas()
        .check_def("2026-07-28", "CallToolResult", &result)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("not a valid CallToolResult (2026-07-28)"),
        "{error}"
    );
    assert!(error.contains("at /isError:"), "{error}");
    assert!(error.contains("at /content/0:"), "{error}");
    // `content` is required in every revision.
    for version in REVISIONS {
        let error = schemas()
            .check_def(
                version,
                "CallToolResult",
                &json!({"resultType": "complete"}),
            )
            .unwrap_err()
            .to_string();
        assert!(error.contains("content"), "{version}: {error}");
    }
}

#[test]
fn check_message_explains_failures_with_the_member_the_shape_selects() {
    let call = request(
        "tools/call",
        7,
        json!({"name": "read_temp", "arguments": {}}),
    );
    for version in ["2025-06-18", "2025-11-25"] {
        schemas().check_message(version, &call).unwrap();
        schemas()
            .check_message(
                version,
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            )
            .unwrap();
    }
    let mut bad = call.clone();
    bad["jsonrpc"] = json!("1.0");
    let error = schemas()
        .check_message("2025-11-25", &bad)
        .unwrap_err()
        .to_string();
    assert!(error.contains("not a valid JSONRPCRequest"), "{error}");
    assert!(error.contains("at /jsonrpc:"), "{error}");

    let bad_error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": "oops", "message": "x"}});
    let error = schemas()
        .check_message("2025-06-18", &bad_error)
        .unwrap_err()
        .to_string();
    assert!(error.contains("not a valid JSONRPCError"), "{error}");
    assert!(error.contains("at /error/code:"), "{error}");
    let error = schemas()
        .check_message("2026-07-28", &bad_error)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("not a valid JSONRPCErrorResponse"),
        "{error}"
    );

    // A null id is never a request id. (As a whole message it still matches the official
    // `JSONRPCNotification`, which does not forbid an `id` member.)
    let null_id = json!({"jsonrpc": "2.0", "id": null, "method": "tools/list"});
    for version in REVISIONS {
        let error = schemas()
            .check_def(version, "JSONRPCRequest", &null_id)
            .unwrap_err()
            .to_string();
        assert!(error.contains("at /id:"), "{version}: {error}");
    }
}

#[test]
fn check_response_checks_the_envelope_and_the_method_result() {
    let tool = json!({
        "name": "read_temp",
        "inputSchema": {"type": "object", "properties": {"sensor": {"type": "integer"}}},
        "outputSchema": {"type": "object", "properties": {"celsius": {"type": "number"}}},
        "annotations": {"readOnlyHint": true, "openWorldHint": false}
    });
    let init = json!({"jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {"name": "sensors", "version": "0.1.0"}
    }});
    let list = json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [tool]}});
    let call = json!({"jsonrpc": "2.0", "id": 3, "result": {
        "content": [{"type": "text", "text": "{\"celsius\":21.5}"}],
        "structuredContent": {"celsius": 21.5}
    }});
    let pong = json!({"jsonrpc": "2.0", "id": "p", "result": {}});
    for version in ["2025-06-18", "2025-11-25"] {
        schemas()
            .check_response(version, "initialize", &init)
            .unwrap();
        schemas()
            .check_response(version, "tools/list", &list)
            .unwrap();
        schemas()
            .check_response(version, "tools/call", &call)
            .unwrap();
        schemas().check_response(version, "ping", &pong).unwrap();
        let error = schemas()
            .check_response(version, "server/discover", &pong)
            .unwrap_err()
            .to_string();
        assert!(error.contains("not defined in revision"), "{error}");
    }
    // 2026-07-28: every result carries resultType; tools/list also ttlMs and cacheScope.
    let error = schemas()
        .check_response("2026-07-28", "tools/call", &call)
        .unwrap_err()
        .to_string();
    assert!(error.contains("at /result:"), "{error}");
    assert!(error.contains("resultType"), "{error}");
    let mut call_2026 = call.clone();
    call_2026["result"]["resultType"] = json!("complete");
    call_2026["result"]["structuredContent"] = json!([1, 2]);
    schemas()
        .check_response("2026-07-28", "tools/call", &call_2026)
        .unwrap();
    let mut list_2026 = list.clone();
    list_2026["result"]["resultType"] = json!("complete");
    assert!(schemas()
        .check_response("2026-07-28", "tools/list", &list_2026)
        .is_err());
    list_2026["result"]["ttlMs"] = json!(60_000);
    list_2026["result"]["cacheScope"] = json!("public");
    schemas()
        .check_response("2026-07-28", "tools/list", &list_2026)
        .unwrap();
    let error = schemas()
        .check_response("2026-07-28", "ping", &pong)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("ping is not defined in revision 2026-07-28"),
        "{error}"
    );

    // Error responses are checked for any method, and their shape matters.
    let not_found = json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "Method not found"}});
    for version in REVISIONS {
        schemas()
            .check_response(version, "no/such", &not_found)
            .unwrap();
        let error = schemas()
            .check_response(
                version,
                "tools/call",
                &json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32601}}),
            )
            .unwrap_err()
            .to_string();
        assert!(error.contains("message"), "{version}: {error}");
        let error = schemas()
            .check_response(version, "tools/list", &json!({"jsonrpc": "2.0", "id": 4}))
            .unwrap_err()
            .to_string();
        assert!(error.contains("neither result nor error"), "{error}");
    }
    // A legacy structuredContent must be an object; the official schema says so too.
    let mut scalar = call.clone();
    scalar["result"]["structuredContent"] = json!(21.5);
    for version in ["2025-06-18", "2025-11-25"] {
        let error = schemas()
            .check_response(version, "tools/call", &scalar)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("/result/structuredContent"),
            "{version}: {error}"
        );
    }
}

#[test]
fn definitions_are_compiled_once_and_reused() {
    // Thousands of checks in well under the 30 s budget: compiling per call would not be.
    let message = request("tools/list", 1, json!({}));
    let response = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}});
    for i in 0..3000 {
        let version = REVISIONS[i % 2];
        schemas().check_message(version, &message).unwrap();
        schemas()
            .check_response(version, "tools/list", &response)
            .unwrap();
    }
}
