//! Hosts of the old revisions through the bridge (one device, the scripted fake on a unix
//! socket): a 2024-11-05 and a 2025-03-26 session — `initialize`, `tools/list`, `tools/call` and
//! a batch — answered in the host's revision.
//!
//! Every line the bridge writes is compared byte for byte (the fake answers deterministically)
//! and validated against the vendored official schema of the host's revision
//! (`tests/vectors/mcp-schema/<version>/schema.json`): the message against `JSONRPCMessage`, and
//! each response against its method's result type.
//!
//! One carve-out: JSON-RPC 2.0 answers a message whose id cannot be known (not a request, not
//! JSON, an empty batch) with `"id": null`, which these MCP schemas have no form for
//! (`RequestId` is a string or an integer). Such an error is checked with `id` set aside: it must
//! be `null`, and the rest must be a valid `JSONRPCError`.
#![cfg(unix)]

mod bridge_support;

use std::collections::HashMap;
use std::sync::OnceLock;

use bridge_support::*;
use embedded_mcp_std::device::Endpoint;
use embedded_mcp_std::mcp_schema::McpSchemas;
use serde_json::{json, Value};

fn schemas() -> &'static McpSchemas {
    static SCHEMAS: OnceLock<McpSchemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        McpSchemas::load(&embedded_mcp_tests::mcp_schema_dir()).expect("official MCP schemas")
    })
}

/// `message` with a `null` id set aside (see the module doc); panics if such a message is not an
/// error.
fn unknown_id_set_aside(message: &Value) -> Value {
    let mut message = message.clone();
    if message.get("id") == Some(&Value::Null) {
        assert!(
            message.get("error").is_some(),
            "id null on a success: {message}"
        );
        message["id"] = json!("(unknown id)");
    }
    message
}

/// Validates one message the bridge wrote to a host of `version`; `methods` says what each
/// request id asked.
fn check_one(version: &str, message: &Value, methods: &HashMap<String, &str>) {
    let unknown_id = message.get("id") == Some(&Value::Null);
    let message = unknown_id_set_aside(message);
    schemas()
        .check_message(version, &message)
        .unwrap_or_else(|e| panic!("{version}: {e}\n{message}"));
    if unknown_id {
        return;
    }
    if let Some(id) = message.get("id") {
        let method = methods
            .get(&id.to_string())
            .unwrap_or_else(|| panic!("an answer to no request: {message}"));
        schemas()
            .check_response(version, method, &message)
            .unwrap_or_else(|e| panic!("{version} {method}: {e}\n{message}"));
    }
}

/// Validates every line the bridge wrote in a session; `requests` are the (raw id, method) pairs
/// the host sent.
fn check_all(version: &str, lines: &[String], requests: &[(&str, &'static str)]) {
    let methods: HashMap<String, &str> = requests
        .iter()
        .map(|(id, method)| (json(id).to_string(), *method))
        .collect();
    for line in lines {
        match json(line) {
            Value::Array(batch) => {
                // A batch answer is one message of 2025-03-26 (`JSONRPCBatchResponse`).
                let whole = Value::Array(batch.iter().map(unknown_id_set_aside).collect());
                schemas()
                    .check_message(version, &whole)
                    .unwrap_or_else(|e| panic!("{version}: {e}\n{line}"));
                for message in &batch {
                    check_one(version, message, &methods);
                }
            }
            one => check_one(version, &one, &methods),
        }
    }
}

/// What the device's twelve tools look like in 2024-11-05: name, description, input schema.
const TOOLS_2024: &str = r#"[{"description":"Temperature of sensor t0.","inputSchema":{"type":"object"},"name":"read_temp"},{"inputSchema":{"type":"object"},"name":"bad_temp"},{"inputSchema":{"type":"object"},"name":"wrong_type"},{"inputSchema":{"type":"object"},"name":"no_structured"},{"inputSchema":{"type":"object"},"name":"tool_error"},{"inputSchema":{"type":"object"},"name":"hang"},{"inputSchema":{"type":"object"},"name":"crash"},{"inputSchema":{"properties":{"n":{"type":"integer"},"s":{"type":"string"}},"type":"object"},"name":"echo"},{"inputSchema":{"type":"object"},"name":"pid"},{"inputSchema":{"type":"object"},"name":"iconic"},{"inputSchema":{"type":"object"},"name":"garbage"},{"inputSchema":{"type":"object"},"name":"ask_host"}]"#;

/// The same in 2025-03-26: annotations kept (`title`, `outputSchema` and `icons` still removed).
const TOOLS_2025_03: &str = r#"[{"annotations":{"openWorldHint":false,"readOnlyHint":true},"description":"Temperature of sensor t0.","inputSchema":{"type":"object"},"name":"read_temp"},{"annotations":{"openWorldHint":false,"readOnlyHint":true},"inputSchema":{"type":"object"},"name":"bad_temp"},{"inputSchema":{"type":"object"},"name":"wrong_type"},{"inputSchema":{"type":"object"},"name":"no_structured"},{"inputSchema":{"type":"object"},"name":"tool_error"},{"inputSchema":{"type":"object"},"name":"hang"},{"inputSchema":{"type":"object"},"name":"crash"},{"inputSchema":{"properties":{"n":{"type":"integer"},"s":{"type":"string"}},"type":"object"},"name":"echo"},{"inputSchema":{"type":"object"},"name":"pid"},{"inputSchema":{"type":"object"},"name":"iconic"},{"inputSchema":{"type":"object"},"name":"garbage"},{"inputSchema":{"type":"object"},"name":"ask_host"}]"#;

/// `read_temp` for an old host: `structuredContent` removed, the text block carries it.
const READ_TEMP: &str =
    r#"{"content":[{"text":"{\"celsius\":21.50,\"sensor\":\"t0\"}","type":"text"}]}"#;

/// A batch: a call, a notification (no answer), a ping, an `initialize` (refused inside a batch)
/// and a `7` (no message at all).
const BATCH: &str = r#"[{"jsonrpc":"2.0","id":"b1","method":"tools/call","params":{"name":"read_temp","arguments":{}}},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"zz"}},{"jsonrpc":"2.0","id":"b2","method":"ping"},{"jsonrpc":"2.0","id":"b3","method":"initialize","params":{}},7]"#;

const INVALID: &str = r#"{"code":-32600,"message":"Invalid request: not a JSON-RPC 2.0 request, notification or response"}"#;

/// Runs the session of a `version` host; returns every line the bridge wrote, in order.
fn old_session(version: &str) -> (Vec<String>, Vec<(&'static str, &'static str)>) {
    let dev = SocketDevice::start();
    let mut b = Bridge::start(config(Endpoint::Unix(dev.path.clone())));
    let init = b.initialize(version);
    assert_eq!(
        init,
        format!(
            r#"{{"jsonrpc":"2.0","id":0,"result":{{"capabilities":{{"tools":{{"listChanged":false}}}},"protocolVersion":"{version}","serverInfo":{{"name":"fake-device","version":"1.0.0"}}}}}}"#
        )
    );
    let tools = if version == "2024-11-05" {
        TOOLS_2024
    } else {
        TOOLS_2025_03
    };
    // One page, though the device lists four tools per page.
    assert_eq!(
        b.request(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
        format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":{tools}}}}}"#)
    );
    assert_eq!(
        b.request(&call("2", "read_temp")),
        format!(r#"{{"jsonrpc":"2.0","id":2,"result":{READ_TEMP}}}"#)
    );
    // Nothing to remove: the device's bytes pass unchanged.
    assert_eq!(
        b.request(&call("3", "tool_error")),
        r#"{"jsonrpc":"2.0", "id":3, "result":{"content":[{"type":"text","text":"sensor t0 not responding"}],"isError":true}}"#
    );
    let batch = b.request(BATCH);
    if version == "2025-03-26" {
        assert_eq!(
            batch,
            format!(
                r#"[{{"jsonrpc":"2.0","id":"b3","error":{{"code":-32600,"message":"Invalid request: initialize must not be part of a JSON-RPC batch"}}}},{{"jsonrpc":"2.0","id":null,"error":{INVALID}}},{{"jsonrpc":"2.0","id":"b1","result":{READ_TEMP}}},{{"jsonrpc":"2.0", "id":"b2", "result":{{}}}}]"#
            )
        );
        // A batch of notifications only is answered with nothing: the ping's answer comes next.
        b.send(r#"[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"zz"}},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}]"#);
    } else {
        // 2024-11-05 has no batches: the array is no message at all.
        assert_eq!(
            batch,
            format!(r#"{{"jsonrpc":"2.0","id":null,"error":{INVALID}}}"#)
        );
    }
    b.send("[]");
    assert_eq!(
        b.recv(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: an empty batch"}}"#
    );
    assert_eq!(
        b.request(r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#),
        r#"{"jsonrpc":"2.0", "id":4, "result":{}}"#
    );
    let out = b.out.lock().unwrap().clone();
    b.finish().unwrap();
    let requests = vec![
        ("0", "initialize"),
        ("1", "tools/list"),
        ("2", "tools/call"),
        ("3", "tools/call"),
        ("\"b1\"", "tools/call"),
        ("\"b2\"", "ping"),
        ("\"b3\"", "initialize"),
        ("4", "ping"),
    ];
    (out, requests)
}

#[test]
fn a_2024_11_05_session_is_answered_in_its_revision() {
    let (lines, requests) = old_session("2024-11-05");
    assert_eq!(lines.len(), 7, "{lines:#?}");
    check_all("2024-11-05", &lines, &requests);
}

#[test]
fn a_2025_03_26_session_and_its_batches_are_answered_in_its_revision() {
    let (lines, requests) = old_session("2025-03-26");
    assert_eq!(lines.len(), 7, "{lines:#?}");
    check_all("2025-03-26", &lines, &requests);
}

/// The checks above can fail: the old schemas refuse a content block type they lack (what the
/// bridge removes), a `null` id (what the carve-out sets aside) and, in 2024-11-05, a batch.
#[test]
fn the_old_schemas_refuse_what_the_bridge_removes() {
    let link = json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [
        {"type": "resource_link", "uri": "x:y", "name": "y"}]}});
    let null_id = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "x"}});
    for version in ["2024-11-05", "2025-03-26"] {
        let refused = schemas().check_response(version, "tools/call", &link);
        assert!(refused.is_err(), "{version} accepted a resource_link block");
        assert!(schemas().check_message(version, &null_id).is_err());
    }
    let batch = json!([{"jsonrpc": "2.0", "id": 1, "result": {}}]);
    assert!(schemas().check_message("2024-11-05", &batch).is_err());
    assert!(schemas().check_message("2025-03-26", &batch).is_ok());
}
