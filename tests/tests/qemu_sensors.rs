//! The `examples/qemu-sensors` firmware under QEMU (`lm3s6965evb`, Cortex-M3): scripted MCP
//! sessions over its UART in both eras, a pipelined burst, idle CPU, the `cargo run` stdio path
//! and the stack figure.
//!
//! Every response is checked against the official MCP schema of its revision
//! (`McpSchemas::check_message` and `check_response`), and every `tools/call` result against the
//! tool's advertised `outputSchema` as a strict client checks it (`ToolChecker`). The firmware's
//! simulated sensors are deterministic from boot, so results are also compared byte for byte.
//!
//! Each test boots its own QEMU (released, i.e. killed, by `QemuGuard` also when it fails).
#![cfg(unix)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use embedded_mcp_std::full::ToolChecker;
use embedded_mcp_std::mcp_schema::McpSchemas;
use embedded_mcp_tests::qemu::{build_firmware, cargo_runner, Board, QemuGuard};
use embedded_mcp_tests::{mcp_schema_dir, project_root};
use serde_json::{json, Value};

const BOARD: Board = Board::Lm3s6965evb;
const READY: &str = "qemu-sensors: ready";
/// Generous: two cores are shared with builds of other work.
const TIMEOUT: Duration = Duration::from_secs(10);
/// The tools, in listing order.
const TOOL_NAMES: [&str; 5] = [
    "read_temperature",
    "read_acceleration",
    "set_led",
    "device_info",
    "sample_temperature",
];
/// The firmware's input line buffer (`INPUT_LINE_BYTES` in src/mcp.rs).
const INPUT_LINE_BYTES: usize = 512;
const LEGACY: [&str; 2] = ["2025-06-18", "2025-11-25"];
const STATELESS: &str = "2026-07-28";

fn firmware_dir() -> PathBuf {
    project_root().join("examples").join("qemu-sensors")
}

/// The firmware, built once per test run.
fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        build_firmware(&firmware_dir(), BOARD.rust_target()).unwrap_or_else(|e| panic!("{e}"))
    })
}

fn schemas() -> &'static McpSchemas {
    static SCHEMAS: OnceLock<McpSchemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| McpSchemas::load(&mcp_schema_dir()).expect("official MCP schemas"))
}

fn wait_ready(qemu: &QemuGuard) -> String {
    qemu.wait_for_log(READY, TIMEOUT).unwrap_or_else(|| {
        panic!(
            "firmware never logged {READY:?}; QEMU stderr:\n{}",
            qemu.logs().join("\n")
        )
    })
}

fn boot() -> QemuGuard {
    let qemu = QemuGuard::start_socket(BOARD, firmware()).unwrap_or_else(|e| panic!("{e}"));
    wait_ready(&qemu);
    qemu
}

/// Checks a response line against the official schema of `version`: as a JSON-RPC message,
/// and as the response to `method`.
fn check_schema(version: &str, method: &str, line: &str) -> Value {
    let value: Value =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
    schemas()
        .check_message(version, &value)
        .unwrap_or_else(|e| panic!("{e}\n{line}"));
    schemas()
        .check_response(version, method, &value)
        .unwrap_or_else(|e| panic!("{e}\n{line}"));
    value
}

/// An MCP client over the firmware's UART, speaking one revision.
struct Session {
    qemu: QemuGuard,
    version: &'static str,
    next_id: u64,
    checker: ToolChecker,
}

impl Session {
    fn new(qemu: QemuGuard, version: &'static str) -> Self {
        Self {
            qemu,
            version,
            next_id: 1,
            checker: ToolChecker::new(),
        }
    }

    fn stateless(&self) -> bool {
        self.version == STATELESS
    }

    /// A request line with the next id; 2026-07-28 requests carry the `_meta` members.
    fn request_line(&mut self, method: &str, params: Value) -> (u64, String) {
        let id = self.next_id;
        self.next_id += 1;
        let mut params = params;
        if self.stateless() {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": STATELESS,
                "io.modelcontextprotocol/clientCapabilities": {}
            });
        }
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        (id, line.to_string())
    }

    /// The next response line, which must answer request `id`.
    fn response_to(&mut self, id: u64, method: &str) -> (String, Value) {
        let line = self.qemu.read_line(TIMEOUT).unwrap_or_else(|| {
            panic!(
                "no answer to {method} (id {id}); QEMU stderr:\n{}",
                self.qemu.logs().join("\n")
            )
        });
        let value = check_schema(self.version, method, &line);
        assert_eq!(value["id"], json!(id), "answer to another request: {line}");
        (line, value)
    }

    /// Sends a request and returns its response line and value (schema-checked).
    fn request(&mut self, method: &str, params: Value) -> (String, Value) {
        let (id, line) = self.request_line(method, params);
        self.qemu.send_line(&line).unwrap();
        self.response_to(id, method)
    }

    /// Sends a request and returns its `result` (the response must not be an error).
    fn result(&mut self, method: &str, params: Value) -> Value {
        let (line, value) = self.request(method, params);
        assert!(value.get("error").is_none(), "{method} failed: {line}");
        value["result"].clone()
    }

    /// The `initialize` handshake of the legacy revisions, then `notifications/initialized`.
    fn initialize(&mut self) -> String {
        let (line, value) = self.request(
            "initialize",
            json!({
                "protocolVersion": self.version,
                "capabilities": {},
                "clientInfo": {"name": "qemu-tests", "version": "1.0.0"}
            }),
        );
        assert_eq!(value["result"]["protocolVersion"], self.version, "{line}");
        self.qemu
            .send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .unwrap();
        line
    }

    /// Walks `tools/list` page by page; registers the tools with the checker and returns them.
    fn list_tools(&mut self) -> (Vec<Value>, usize) {
        let mut tools = Vec::new();
        let mut pages = 0;
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let result = self.result("tools/list", params);
            pages += 1;
            let page = result["tools"].as_array().expect("tools array").clone();
            assert!(!page.is_empty(), "an empty page: {result}");
            let failed = self.checker.register_tools(&Value::Array(page.clone()));
            assert!(failed.is_empty(), "schemas that do not compile: {failed:?}");
            tools.extend(page);
            if self.stateless() {
                assert_eq!(result["ttlMs"], 300_000);
                assert_eq!(result["cacheScope"], "public");
            }
            match result.get("nextCursor").and_then(Value::as_str) {
                Some(next) => cursor = Some(next.to_owned()),
                None => break,
            }
            assert!(pages < 10, "tools/list never ends");
        }
        (tools, pages)
    }

    /// Calls `tool`; checks the result as a strict client does and that its text block holds
    /// the same JSON as `structuredContent`. Returns the response line and the result.
    fn call(&mut self, tool: &str, arguments: Value) -> (String, Value) {
        let (line, value) =
            self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = value["result"].clone();
        assert!(!result.is_null(), "tools/call {tool} failed: {line}");
        self.checker
            .check_result(self.version, tool, &result)
            .unwrap_or_else(|e| panic!("{e}\n{line}"));
        if result.get("isError") != Some(&json!(true)) {
            let text = result["content"][0]["text"].as_str().expect("a text block");
            let from_text: Value = serde_json::from_str(text).expect("the text block is JSON");
            assert_eq!(from_text, result["structuredContent"], "{line}");
        }
        (line, result)
    }

    /// Calls `tool` with bad arguments: an `isError` result whose text is `message`.
    fn call_refused(&mut self, tool: &str, arguments: Value, message: &str) {
        let (line, result) = self.call(tool, arguments);
        assert_eq!(result["isError"], true, "{line}");
        assert_eq!(
            result["content"],
            json!([{"type": "text", "text": message}]),
            "{line}"
        );
        assert!(result.get("structuredContent").is_none(), "{line}");
    }
}

/// The tail of a result line: `resultType` only in 2026-07-28.
fn tail(version: &str) -> &'static str {
    if version == STATELESS {
        r#","resultType":"complete"}}"#
    } else {
        "}}"
    }
}

/// Checks the listed tools: order, titles, closed input schemas, output schemas, annotations,
/// and the `{"result": ...}` wrap of the array output for legacy peers.
fn check_tool_list(tools: &[Value], version: &str) {
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, TOOL_NAMES);
    for tool in tools {
        let name = &tool["name"];
        assert!(tool["title"].is_string(), "{name}: title");
        assert!(tool["description"].is_string(), "{name}: description");
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
        assert_eq!(
            tool["inputSchema"]["additionalProperties"], false,
            "{name}: closed inputSchema"
        );
        assert!(tool["outputSchema"].is_object(), "{name}: outputSchema");
        assert!(tool["annotations"].is_object(), "{name}: annotations");
    }
    let sensor = json!({"readOnlyHint": true, "openWorldHint": false});
    assert_eq!(tools[0]["annotations"], sensor);
    assert_eq!(tools[1]["annotations"], sensor);
    assert_eq!(tools[3]["annotations"], sensor);
    assert_eq!(
        tools[2]["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
    let led = &tools[2]["inputSchema"]["properties"];
    assert_eq!(led["led"]["enum"], json!(["red", "green", "blue"]));
    assert_eq!(led["brightness"]["minimum"], 0);
    assert_eq!(led["brightness"]["maximum"], 100);
    let array = json!({"type":"array","items":{"type":"number","minimum":-40,"maximum":40},"minItems":3,"maxItems":3});
    let expected = if version == STATELESS {
        array
    } else {
        json!({"type":"object","properties":{"result": array},"required":["result"]})
    };
    assert_eq!(tools[1]["outputSchema"], expected);
}

/// Calls every tool and checks the (deterministic) results byte for byte.
fn call_every_tool(s: &mut Session) {
    let v = s.version;
    let t = tail(v);
    let id = s.next_id;
    let (line, _) = s.call("read_temperature", json!({}));
    assert_eq!(
        line,
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"structuredContent":{{"value":36.88,"unit":"°C","sensorId":"tmp-board","sample":1}},"content":[{{"type":"text","text":"{{\"value\":36.88,\"unit\":\"°C\",\"sensorId\":\"tmp-board\",\"sample\":1}}"}}]{t}"#
        )
    );
    // The sample counter advances per call, and the value changes.
    let (_, second) = s.call("read_temperature", json!({"sensor": 0}));
    assert_eq!(second["structuredContent"]["sample"], 2);
    assert_ne!(second["structuredContent"]["value"], 36.88);
    let (_, ambient) = s.call("read_temperature", json!({"sensor": 1}));
    assert_eq!(ambient["structuredContent"]["sensorId"], "tmp-ambient");
    assert_eq!(ambient["structuredContent"]["sample"], 1);

    let id = s.next_id;
    let (line, _) = s.call("read_acceleration", json!({}));
    let expected = if v == STATELESS {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"structuredContent":[0.36,1.01,9.69],"content":[{{"type":"text","text":"[0.36,1.01,9.69]"}}]{t}"#
        )
    } else {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"structuredContent":{{"result":[0.36,1.01,9.69]}},"content":[{{"type":"text","text":"{{\"result\":[0.36,1.01,9.69]}}"}}]{t}"#
        )
    };
    assert_eq!(line, expected);

    let id = s.next_id;
    let (line, _) = s.call("set_led", json!({"led": "green", "brightness": 40}));
    assert_eq!(
        line,
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"structuredContent":{{"led":"green","brightness":40,"previous":0}},"content":[{{"type":"text","text":"{{\"led\":\"green\",\"brightness\":40,\"previous\":0}}"}}]{t}"#
        )
    );
    // Idempotent: the same call again leaves the same state. Integral numbers in any JSON
    // spelling are integers (`4e1`, `40.0`).
    for spelling in ["4e1", "40.0", "400e-1"] {
        let raw = format!(
            r#"{{"jsonrpc":"2.0","id":"{spelling}","method":"tools/call","params":{{"name":"set_led","arguments":{{"led":"green","brightness":{spelling}}}{}}}}}"#,
            if v == STATELESS {
                r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#
            } else {
                ""
            }
        );
        s.qemu.send_line(&raw).unwrap();
        let reply = s.qemu.read_line(TIMEOUT).expect("set_led answer");
        check_schema(v, "tools/call", &reply);
        assert!(
            reply.contains(r#"{"led":"green","brightness":40,"previous":40}"#),
            "{reply}"
        );
    }

    let (line, info) = s.call("device_info", json!({}));
    let info = &info["structuredContent"];
    assert_eq!(info["firmware"], "qemu-sensors", "{line}");
    assert_eq!(info["board"], "lm3s6965evb");
    assert_eq!(info["inputBufferBytes"], INPUT_LINE_BYTES);
    assert_eq!(info["outputBufferBytes"], 1200);
    assert_eq!(
        info["calls"], 9,
        "every call so far reached the handler once"
    );
    let uptime = info["uptimeMs"].as_u64().unwrap();
    assert!(uptime > 0 && uptime < 600_000, "{line}");
    let (peak, size) = (
        info["stackPeakBytes"].as_u64().unwrap(),
        info["stackSizeBytes"].as_u64().unwrap(),
    );
    assert!(peak > 0 && peak < size, "{line}");
    assert!(info["rxFreeBytes"].as_u64().unwrap() <= 256);
}

/// Arguments that fail the compiled `inputSchema`: `isError` results that say what is wrong.
fn bad_arguments(s: &mut Session) {
    s.call_refused(
        "read_temperature",
        json!({"sensor": "board"}),
        r#"Invalid arguments for tool read_temperature: /sensor: "board" is not of type integer"#,
    );
    s.call_refused(
        "read_temperature",
        json!({"sensor": 2}),
        "Invalid arguments for tool read_temperature: /sensor: 2 is greater than the maximum 1",
    );
    s.call_refused(
        "set_led",
        json!({"led": "red", "brightness": 101}),
        "Invalid arguments for tool set_led: /brightness: 101 is greater than the maximum 100",
    );
    s.call_refused(
        "set_led",
        json!({"led": "red", "brightness": -1}),
        "Invalid arguments for tool set_led: /brightness: -1 is less than the minimum 0",
    );
    s.call_refused(
        "set_led",
        json!({"led": "purple", "brightness": 1}),
        r#"Invalid arguments for tool set_led: /led: "purple" is not one of the enum values"#,
    );
    s.call_refused(
        "set_led",
        json!({"led": "red", "brightness": 2.5}),
        "Invalid arguments for tool set_led: /brightness: 2.5 is not of type integer",
    );
    s.call_refused(
        "set_led",
        json!({"led": "red"}),
        r#"Invalid arguments for tool set_led: (root): missing required property "brightness""#,
    );
    s.call_refused(
        "read_acceleration",
        json!({"axis": "x"}),
        r#"Invalid arguments for tool read_acceleration: (root): property "axis" not allowed (additionalProperties)"#,
    );
    s.call_refused(
        "set_led",
        json!({"led": "red", "brightness": 3, "blink": true}),
        r#"Invalid arguments for tool set_led: (root): property "blink" not allowed (additionalProperties)"#,
    );
    // None of these reached the handler: the LED is unchanged.
    let (_, level) = s.call("set_led", json!({"led": "red", "brightness": 0}));
    assert_eq!(level["structuredContent"]["previous"], 0);
}

/// Protocol errors, garbage and overlong lines: the next request is still answered.
fn protocol_errors_and_noise(s: &mut Session) {
    let v = s.version;
    let id = s.next_id;
    let (line, _) = s.request(
        "tools/call",
        json!({"name": "read_humidity", "arguments": {}}),
    );
    assert_eq!(
        line,
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32602,"message":"Unknown tool: read_humidity"}}}}"#
        )
    );
    let id = s.next_id;
    let (line, _) = s.request("resources/list", json!({}));
    assert_eq!(
        line,
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32601,"message":"Method not found"}}}}"#
        )
    );

    // Garbage is dropped without an answer (as the official SDKs do): the next line out is the
    // answer to the next request.
    for garbage in [
        &b"hello device\n"[..],
        b"{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\n",
        b"\x01\x02\x1b[0m binary noise\n",
        b"\xff\xfe not UTF-8 \xc0\n",
        b"\n",
        b"   \r\n",
        b"]]]}}}\n",
    ] {
        s.qemu.send_bytes(garbage).unwrap();
    }
    // A CRLF-terminated request is fine.
    let (id, request) = s.request_line("tools/call", json!({"name": "read_temperature"}));
    s.qemu
        .send_bytes(format!("{request}\r\n").as_bytes())
        .unwrap();
    s.response_to(id, "tools/call");

    // A line longer than the input buffer: skipped up to its LF and answered with -32600 because
    // its id can be recovered; one without an id is dropped. Both are several times the
    // firmware's 256-byte receive ring.
    let pad = "x".repeat(3 * INPUT_LINE_BYTES);
    let overlong = format!(
        r#"{{"jsonrpc":"2.0","id":"too-long","method":"tools/call","params":{{"name":"set_led","arguments":{{"led":"red","brightness":1,"pad":"{pad}"}}}}}}"#
    );
    s.qemu.send_line(&overlong).unwrap();
    let line = s
        .qemu
        .read_line(TIMEOUT)
        .expect("answer to the overlong line");
    check_schema(v, "tools/call", &line);
    assert_eq!(
        line,
        r#"{"jsonrpc":"2.0","id":"too-long","error":{"code":-32600,"message":"Invalid request: the message is longer than the device's input buffer"}}"#
    );
    s.qemu
        .send_line(&format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"data":"{}"}}}}"#,
            "y".repeat(10 * INPUT_LINE_BYTES)
        ))
        .unwrap();
    // Nested deeper than the firmware accepts (16 levels): refused with the id.
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{{"name":"device_info","arguments":{{"a":{}1{}}}}}}}"#,
        "[".repeat(20),
        "]".repeat(20)
    );
    s.qemu.send_line(&deep).unwrap();
    let line = s.qemu.read_line(TIMEOUT).expect("answer to the deep line");
    check_schema(v, "tools/call", &line);
    assert_eq!(
        line,
        r#"{"jsonrpc":"2.0","id":"deep","error":{"code":-32600,"message":"Invalid request: the message is nested deeper than the device accepts"}}"#
    );
    // The next request is answered normally.
    let (_, result) = s.call("read_temperature", json!({}));
    assert!(result.get("isError").is_none());
    assert_eq!(
        s.qemu.read_line(Duration::from_millis(200)),
        None,
        "one answer per request, nothing else"
    );
}

#[test]
fn legacy_sessions_list_call_every_tool_refuse_bad_input_and_survive_noise() {
    for version in LEGACY {
        let started = Instant::now();
        let mut s = Session::new(boot(), version);
        let line = s.initialize();
        let server_info = if version == "2025-06-18" {
            r#"{"name":"qemu-sensors","version":"0.1.0","title":"QEMU sensor board"}"#
        } else {
            r#"{"name":"qemu-sensors","version":"0.1.0","title":"QEMU sensor board","description":"Simulated sensors and an RGB LED on an LM3S6965 (Cortex-M3) under QEMU"}"#
        };
        assert_eq!(
            line,
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{{"protocolVersion":"{version}","capabilities":{{"tools":{{"listChanged":false}},"logging":{{}}}},"serverInfo":{server_info},"instructions":"Sensor values are simulated: deterministic sequences that change on every call."}}}}"#
            )
        );
        let (_, ping) = s.request("ping", json!({}));
        assert_eq!(ping["result"], json!({}));
        let (tools, pages) = s.list_tools();
        assert!(pages >= 2, "the output buffer makes tools/list page");
        check_tool_list(&tools, version);
        call_every_tool(&mut s);
        bad_arguments(&mut s);
        protocol_errors_and_noise(&mut s);
        eprintln!("{version}: session took {:?}", started.elapsed());
    }
}

#[test]
fn stateless_session_2026_discovers_lists_calls_every_tool_refuses_bad_input_and_survives_noise() {
    let mut s = Session::new(boot(), STATELESS);
    // Without `_meta` and without a handshake: -32602.
    s.qemu
        .send_line(r#"{"jsonrpc":"2.0","id":"no-meta","method":"tools/list"}"#)
        .unwrap();
    let line = s.qemu.read_line(TIMEOUT).expect("answer");
    check_schema(STATELESS, "tools/list", &line);
    assert!(
        line.starts_with(r#"{"jsonrpc":"2.0","id":"no-meta","error":{"code":-32602,"#),
        "{line}"
    );
    // An unsupported revision: -32022 with the supported ones.
    s.qemu
        .send_line(r#"{"jsonrpc":"2.0","id":"old","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2024-11-05","io.modelcontextprotocol/clientCapabilities":{}}}}"#)
        .unwrap();
    let line = s.qemu.read_line(TIMEOUT).expect("answer");
    check_schema(STATELESS, "tools/list", &line);
    let value: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(value["error"]["code"], -32022, "{line}");
    assert_eq!(
        value["error"]["data"],
        json!({"supported": ["2026-07-28", "2025-11-25", "2025-06-18"], "requested": "2024-11-05"})
    );

    let discover = s.result("server/discover", json!({}));
    assert_eq!(
        discover["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18"])
    );
    assert_eq!(
        discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "qemu-sensors"
    );
    // `ping` does not exist in 2026-07-28.
    let (line, _) = s.request("ping", json!({}));
    assert!(line.contains(r#""code":-32601"#), "{line}");
    // A cursor the device did not issue.
    let (line, _) = s.request("tools/list", json!({"cursor": "page-2"}));
    assert!(
        line.contains(r#""error":{"code":-32602,"message":"Invalid cursor"}"#),
        "{line}"
    );

    let (tools, pages) = s.list_tools();
    assert!(pages >= 2, "the output buffer makes tools/list page");
    check_tool_list(&tools, STATELESS);
    call_every_tool(&mut s);
    bad_arguments(&mut s);
    protocol_errors_and_noise(&mut s);
}

#[test]
fn a_thousand_pipelined_calls_get_a_thousand_answers_in_order() {
    const CALLS: usize = 1000;
    let mut qemu = boot();
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    // Ids alternate between integers and strings; tools rotate. All lines are written by another
    // thread without waiting for any answer.
    let lines: Vec<(Value, &str, String)> = (0..CALLS)
        .map(|i| {
            let id = if i % 2 == 0 { json!(i) } else { json!(format!("req-{i}")) };
            let (tool, arguments) = match i % 4 {
                0 | 2 => ("read_temperature", r#"{"sensor":0}"#.to_owned()),
                1 => ("read_acceleration", "{}".to_owned()),
                _ => ("set_led", format!(r#"{{"led":"blue","brightness":{}}}"#, i % 101)),
            };
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{meta},"name":"{tool}","arguments":{arguments}}}}}"#
            );
            (id, tool, line)
        })
        .collect();
    let payload: String = lines.iter().map(|(_, _, l)| format!("{l}\n")).collect();
    let mut writer = qemu.stream().expect("socket UART").try_clone().unwrap();
    let started = Instant::now();
    let sender = std::thread::spawn(move || writer.write_all(payload.as_bytes()));

    let mut checker = ToolChecker::new();
    let failed = checker.register_tools(&json!([
        {"name": "read_temperature", "inputSchema": {"type": "object"}, "outputSchema": {"type":"object","properties":{"value":{"type":"number","minimum":-40,"maximum":125},"unit":{"const":"°C"},"sensorId":{"enum":["tmp-board","tmp-ambient"]},"sample":{"type":"integer","minimum":1}},"required":["value","unit","sensorId","sample"],"additionalProperties":false}},
        {"name": "read_acceleration", "inputSchema": {"type": "object"}, "outputSchema": {"type":"array","items":{"type":"number","minimum":-40,"maximum":40},"minItems":3,"maxItems":3}},
        {"name": "set_led", "inputSchema": {"type": "object"}, "outputSchema": {"type":"object","properties":{"led":{"enum":["red","green","blue"]},"brightness":{"type":"integer","minimum":0,"maximum":100},"previous":{"type":"integer","minimum":0,"maximum":100}},"required":["led","brightness","previous"],"additionalProperties":false}}
    ]));
    assert!(failed.is_empty(), "{failed:?}");
    // Read every answer first (the device's pace), then check them all.
    let answers: Vec<String> = (0..CALLS)
        .map(|i| {
            qemu.read_line(Duration::from_secs(30)).unwrap_or_else(|| {
                panic!(
                    "only {i} of {CALLS} answers; QEMU stderr:\n{}",
                    qemu.logs().join("\n")
                )
            })
        })
        .collect();
    let elapsed = started.elapsed();
    sender.join().unwrap().unwrap();
    assert_eq!(
        qemu.read_line(Duration::from_millis(300)),
        None,
        "exactly one answer per request"
    );
    let mut samples = 0;
    let mut seen = std::collections::HashSet::new();
    for (i, ((id, tool, _), line)) in lines.iter().zip(&answers).enumerate() {
        let value = check_schema(STATELESS, "tools/call", line);
        assert_eq!(
            &value["id"], id,
            "answers out of order or lost at {i}: {line}"
        );
        assert!(seen.insert(id.to_string()), "duplicate answer: {line}");
        let result = &value["result"];
        checker
            .check_result(STATELESS, tool, result)
            .unwrap_or_else(|e| panic!("{e}\n{line}"));
        assert!(result.get("isError").is_none(), "{line}");
        if *tool == "read_temperature" {
            // Each call advanced the board sensor's counter exactly once.
            samples += 1;
            assert_eq!(result["structuredContent"]["sample"], samples, "{line}");
        }
    }
    assert_eq!(seen.len(), CALLS);
    // Under QEMU the device keeps up with the UART (QEMU hands over one byte at a time with the
    // FIFOs off), so its receive ring is not expected to fill here; the count of pauses is
    // logged for the record.
    if let Some(log) = qemu.wait_for_log("qemu-sensors: 512 responses", TIMEOUT) {
        eprintln!("{log}");
    }
    eprintln!("{CALLS} pipelined tools/call: {elapsed:?}");
    assert!(elapsed < Duration::from_secs(90), "took {elapsed:?}");
}

#[test]
fn idle_firmware_sleeps_instead_of_spinning_a_host_core() {
    let mut s = Session::new(boot(), STATELESS);
    s.list_tools();
    s.call("read_temperature", json!({}));
    let window = Duration::from_secs(2);
    let before = s.qemu.cpu_time().expect("/proc/PID/stat");
    std::thread::sleep(window);
    let used = s.qemu.cpu_time().expect("/proc/PID/stat") - before;
    // A spinning executor burns about the whole window (a full host core); WFI idles near 0.
    assert!(
        used < window / 5,
        "idle QEMU used {used:?} of CPU in {window:?}"
    );
}

#[test]
fn cargo_run_command_is_an_mcp_stdio_server_that_logs_only_on_stderr() {
    // Exactly what `cargo run --release` runs, taken from the firmware's .cargo/config.toml.
    let runner = cargo_runner(&firmware_dir(), BOARD.rust_target()).unwrap();
    assert!(
        runner.iter().any(|arg| arg == "stdio"),
        "runner: {runner:?}"
    );
    let qemu = QemuGuard::start_stdio_command(&runner, firmware()).unwrap();
    let mut s = Session::new(qemu, "2025-11-25");
    // Like an MCP host, write `initialize` at once, before the firmware has booted: QEMU hands
    // its first byte to UART0 before the firmware runs a single instruction.
    let line = s.initialize();
    wait_ready(&s.qemu);
    // The first stdout line is the answer: no log came before it on the MCP channel.
    assert!(line.starts_with(r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25""#));
    let (tools, _) = s.list_tools();
    check_tool_list(&tools, "2025-11-25");
    s.call("read_acceleration", json!({}));
    assert!(
        s.qemu
            .wait_for_log("qemu-sensors: 4 responses", TIMEOUT)
            .is_some(),
        "progress logs go to stderr: {:?}",
        s.qemu.logs()
    );
    assert_eq!(
        s.qemu.read_line(Duration::from_millis(300)),
        None,
        "stdout carries only responses"
    );
}

/// Parses "stack peak N of M bytes" from a firmware log line.
fn stack_peak(log: &str) -> (usize, usize) {
    let rest = log
        .split("stack peak ")
        .nth(1)
        .unwrap_or_else(|| panic!("no stack peak in {log:?}"));
    let mut numbers = rest
        .split_whitespace()
        .filter_map(|w| w.parse::<usize>().ok());
    let (Some(used), Some(size)) = (numbers.next(), numbers.next()) else {
        panic!("cannot parse stack peak in {log:?}");
    };
    (used, size)
}

/// Upper bound on the measured stack peak: a regression guard (the measured figure and the gap
/// to the 8 KiB RAM target are in examples/qemu-sensors/README.md).
const STACK_PEAK_LIMIT: usize = 10 * 1024;

#[test]
fn stack_peak_is_reported_and_bounded_and_qemu_dies_with_its_guard() {
    let mut s = Session::new(boot(), STATELESS);
    let ready = wait_ready(&s.qemu);
    let (at_boot, size) = stack_peak(&ready);
    // Exercise the deepest paths: validation of arguments and results, refusals, listing.
    s.list_tools();
    for tool in TOOL_NAMES {
        s.call(tool, json!({}));
    }
    s.call("set_led", json!({"led": "red", "brightness": 100}));
    s.call("set_led", json!({"led": "red", "brightness": "max"}));
    for refused in [
        format!(
            r#"{{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{{"name":"device_info","pad":"{}"}}}}"#,
            "z".repeat(2 * INPUT_LINE_BYTES)
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{{"name":"device_info","arguments":{{"a":{}0{}}}}}}}"#,
            "[".repeat(40),
            "]".repeat(40)
        ),
    ] {
        s.qemu.send_line(&refused).unwrap();
        let line = s.qemu.read_line(TIMEOUT).expect("answer");
        assert!(line.contains(r#""code":-32600"#), "{line}");
    }
    let (_, info) = s.call("device_info", json!({}));
    let peak = info["structuredContent"]["stackPeakBytes"]
        .as_u64()
        .unwrap() as usize;
    eprintln!("stack peak: {at_boot} bytes at boot, {peak} of {size} after a session");
    assert!(
        peak >= at_boot && peak < STACK_PEAK_LIMIT,
        "stack peak {peak} bytes"
    );
    let log = s
        .qemu
        .wait_for_log("qemu-sensors: 8 responses", TIMEOUT)
        .expect("log after 8 responses");
    let (logged, _) = stack_peak(&log);
    assert!(logged <= peak, "{log}");

    let pid = s.qemu.pid();
    drop(s);
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "QEMU (pid {pid}) still exists after its guard dropped"
    );
}
