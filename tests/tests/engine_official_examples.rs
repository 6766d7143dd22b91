//! The official 2026-07-28 example messages fed to the engine.
//!
//! - The requests a tools-only server receives (`CallToolRequest`, `ListToolsRequest`,
//!   `DiscoverRequest`) must be answered with a success whose envelope and result validate
//!   against the official schema; the weather tool they call exists on this server.
//! - Every other example request (prompts, resources, completion, and the server-to-client
//!   requests a client never sends) must get -32601, schema-valid; the two examples that carry
//!   no `id` (bare `{method, params}` objects) must get no answer, and the one without
//!   `jsonrpc` gets -32600.
//! - Every example notification must get no answer.
//!
//! The examples are pretty-printed over several lines; a line transport carries each one
//! compacted to a single line, so they are compacted with serde_json before being fed.
//!
//! Expected failures: none. (The list below is empty on purpose; an entry would name the
//! example file and say why it cannot be answered as the schema requires.)

mod engine_support;

use std::path::PathBuf;

use embedded_mcp::server::{
    Annotations, Call, Done, Output, SchemaStorage, Server, ServerInfo, Tool, ToolError,
};
use embedded_mcp_tests::vectors_dir;
use engine_support::{check, schemas};
use serde::{Deserialize, Serialize};

/// Example files that are expected to fail, with the reason. Empty: every example passes.
const EXPECTED_FAILURES: &[(&str, &str)] = &[];

const ANSWERED: [(&str, &str); 3] = [
    ("CallToolRequest", "tools/call"),
    ("ListToolsRequest", "tools/list"),
    ("DiscoverRequest", "server/discover"),
];

static TOOLS: [Tool; 1] = [Tool::new(
    "get_weather",
    r#"{"type":"object","properties":{"location":{"type":"string","description":"City name or zip code"}},"required":["location"]}"#,
)
.title("Weather Information Provider")
.description("Get current weather information for a location")
.output_schema(
    r#"{"type":"object","properties":{"temperature":{"type":"number"},"conditions":{"type":"string"},"humidity":{"type":"number"}},"required":["temperature","conditions","humidity"]}"#,
)
.annotations(Annotations::SENSOR)];

#[derive(Deserialize)]
struct Args<'a> {
    location: &'a str,
}

#[derive(Serialize)]
struct Weather {
    temperature: f32,
    conditions: &'static str,
    humidity: u8,
}

fn weather(call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
    let mut scratch = [0u8; 64];
    let args: Args<'_> = call.parse(&mut scratch)?;
    assert_eq!(args.location, "New York");
    Ok(out.structured(&Weather {
        temperature: 22.5,
        conditions: "Partly cloudy",
        humidity: 65,
    }))
}

type H = fn(&Call<'_>, Output<'_>) -> Result<Done, ToolError>;

fn server() -> Server<'static, H, 1> {
    let storage = Box::leak(Box::new(SchemaStorage::<1, 16, 48, 160>::new()));
    Server::new(
        ServerInfo::new("ExampleServer", "1.0.0"),
        &TOOLS,
        storage,
        weather as H,
    )
    .unwrap()
}

/// Every example file of the type directories whose name ends with `suffix`.
fn examples(suffix: &str) -> Vec<(String, PathBuf)> {
    let dir = vectors_dir().join("mcp-schema/2026-07-28/examples");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("examples folder") {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(suffix) {
            continue;
        }
        for file in std::fs::read_dir(entry.path()).unwrap() {
            found.push((name.clone(), file.unwrap().path()));
        }
    }
    found.sort();
    found
}

fn one_line(path: &PathBuf) -> String {
    let value: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    serde_json::to_string(&value).unwrap()
}

fn answer(line: &str) -> Option<String> {
    let mut s = server();
    let mut out = [0u8; 2048];
    let n = s.handle_line(line.as_bytes(), &mut out)?;
    Some(String::from_utf8(out[..n - 1].to_vec()).unwrap())
}

#[test]
fn tools_only_requests_are_answered() {
    let _ = schemas();
    let mut failures = Vec::new();
    let mut seen = 0;
    for (kind, method) in ANSWERED {
        for (_, path) in examples(kind).into_iter().filter(|(k, _)| k == kind) {
            seen += 1;
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            let line = one_line(&path);
            let outcome = match answer(&line) {
                None => Err("no response".to_owned()),
                Some(r) => {
                    let v: serde_json::Value = serde_json::from_str(&r).unwrap();
                    let request: serde_json::Value = serde_json::from_str(&line).unwrap();
                    if v.get("result").is_none() {
                        Err(format!("not a success: {r}"))
                    } else if v["id"] != request["id"] {
                        Err(format!("id not echoed: {r}"))
                    } else {
                        std::panic::catch_unwind(|| check("2026-07-28", method, &r))
                            .map_err(|_| format!("schema: {r}"))
                    }
                }
            };
            let expected = EXPECTED_FAILURES.iter().any(|(f, _)| *f == file);
            match (outcome, expected) {
                (Ok(()), false) => {}
                (Err(e), false) => failures.push(format!("{file}: {e}")),
                (Ok(()), true) => {
                    failures.push(format!("{file}: passes; remove it from EXPECTED_FAILURES"))
                }
                (Err(_), true) => {}
            }
        }
    }
    assert_eq!(seen, 3, "one example of each request type");
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_weather_call_is_byte_exact() {
    let (_, path) = examples("CallToolRequest").remove(0);
    assert_eq!(
        answer(&one_line(&path)).unwrap(),
        r#"{"jsonrpc":"2.0","id":"call-tool-example","result":{"structuredContent":{"temperature":22.5,"conditions":"Partly cloudy","humidity":65},"content":[{"type":"text","text":"{\"temperature\":22.5,\"conditions\":\"Partly cloudy\",\"humidity\":65}"}],"resultType":"complete"}}"#
    );
}

#[test]
fn other_requests_get_method_not_found() {
    let answered: Vec<&str> = ANSWERED.iter().map(|(k, _)| *k).collect();
    let mut n = 0;
    for (kind, path) in examples("Request") {
        if answered.contains(&kind.as_str()) {
            continue;
        }
        n += 1;
        let line = one_line(&path);
        let request: serde_json::Value = serde_json::from_str(&line).unwrap();
        if request.get("id").is_none() {
            // `CreateMessageRequest` and `ElicitRequest` examples are bare `{method, params}`
            // objects (2026-07-28 embeds them in `InputRequests`), not JSON-RPC requests:
            // without an id they read as notifications and are not answered.
            assert_eq!(answer(&line), None, "{kind}");
            continue;
        }
        let r = answer(&line).unwrap_or_else(|| panic!("{kind}: no response"));
        let v: serde_json::Value = serde_json::from_str(&r).unwrap();
        // The `ListRootsRequest` example has an id but no `"jsonrpc":"2.0"`: not a valid
        // JSON-RPC request, so -32600 (with its id) is the right answer, not -32601.
        let want = if request.get("jsonrpc").is_some() {
            -32601
        } else {
            -32600
        };
        assert_eq!(v["error"]["code"], want, "{kind}: {r}");
        assert_eq!(v["id"], request["id"], "{kind}: {r}");
        schemas()
            .check_message("2026-07-28", &v)
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
    }
    assert!(n >= 8, "{n} other requests");
}

#[test]
fn notifications_are_not_answered() {
    let mut n = 0;
    for (kind, path) in examples("Notification") {
        n += 1;
        assert_eq!(answer(&one_line(&path)), None, "{kind}");
    }
    assert!(n >= 5);
}
