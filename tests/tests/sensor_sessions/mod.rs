//! Shared harness of the sensor firmware's QEMU session tests (`qemu_sensors` on the Cortex-M3
//! `examples/qemu-sensors`, `qemu_riscv` on the RISC-V `examples/qemu-riscv`): both serve the
//! same tools of `examples/sensor-tools`, so the same scripted sessions run against each, with
//! only the [`Firmware`] facts (board, names, limits) differing.
//!
//! Every response is checked against the official MCP schema of its revision
//! (`McpSchemas::check_message` and `check_response`), and every `tools/call` result against the
//! tool's advertised `outputSchema` as a strict client checks it (`ToolChecker`). The simulated
//! sensors are deterministic from boot, so results are also compared byte for byte.
//!
//! Each scenario boots its own QEMU (released, i.e. killed, by `QemuGuard` also when it fails).

pub mod scenarios;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use embedded_mcp_std::full::ToolChecker;
use embedded_mcp_std::mcp_schema::McpSchemas;
use embedded_mcp_tests::qemu::{build_firmware, Board, QemuGuard};
use embedded_mcp_tests::{mcp_schema_dir, project_root};
use serde_json::{json, Value};

/// Generous: two cores are shared with builds of other work.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// The tools, in listing order.
pub const TOOL_NAMES: [&str; 6] = [
    "read_temperature",
    "read_acceleration",
    "set_led",
    "device_info",
    "sample_temperature",
    "set_relay",
];
/// The firmware's input line buffer (`INPUT_LINE_BYTES` in its src/mcp.rs).
pub const INPUT_LINE_BYTES: usize = 512;
pub const LEGACY: [&str; 2] = ["2025-06-18", "2025-11-25"];
pub const STATELESS: &str = "2026-07-28";

/// One sensor firmware under test: where it is, what it runs on and what it calls itself.
pub struct Firmware {
    /// Its folder under `examples/`.
    pub dir: &'static str,
    /// The QEMU board (and Rust target).
    pub board: Board,
    /// Its `serverInfo.name`, `device_info.firmware` and the prefix of its logs.
    pub name: &'static str,
    /// Its `serverInfo.description`.
    pub description: &'static str,
    /// Its `device_info.board`.
    pub board_name: &'static str,
    /// Upper bound on its measured stack peak: a regression guard (the measured figure is in
    /// the firmware's README).
    pub stack_peak_limit: usize,
    /// The ELF, built once per test run.
    pub elf: OnceLock<PathBuf>,
}

impl Firmware {
    /// The firmware crate's folder.
    pub fn dir(&self) -> PathBuf {
        project_root().join("examples").join(self.dir)
    }

    /// The firmware, built once per test run.
    pub fn elf(&self) -> &Path {
        self.elf.get_or_init(|| {
            build_firmware(&self.dir(), self.board.rust_target()).unwrap_or_else(|e| panic!("{e}"))
        })
    }

    /// Its "ready" log line's start.
    pub fn ready(&self) -> String {
        format!("{}: ready", self.name)
    }

    /// Boots it with the UART on a socket and waits until it is ready.
    pub fn boot(&self) -> QemuGuard {
        let qemu =
            QemuGuard::start_socket(self.board, self.elf()).unwrap_or_else(|e| panic!("{e}"));
        self.wait_ready(&qemu);
        qemu
    }

    /// Waits for the "ready" log line and returns it.
    pub fn wait_ready(&self, qemu: &QemuGuard) -> String {
        let ready = self.ready();
        qemu.wait_for_log(&ready, TIMEOUT).unwrap_or_else(|| {
            panic!(
                "firmware never logged {ready:?}; QEMU stderr:\n{}",
                qemu.logs().join("\n")
            )
        })
    }
}

pub fn schemas() -> &'static McpSchemas {
    static SCHEMAS: OnceLock<McpSchemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| McpSchemas::load(&mcp_schema_dir()).expect("official MCP schemas"))
}

/// Checks a response line against the official schema of `version`: as a JSON-RPC message,
/// and as the response to `method`.
pub fn check_schema(version: &str, method: &str, line: &str) -> Value {
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
pub struct Session {
    pub qemu: QemuGuard,
    pub version: &'static str,
    pub next_id: u64,
    pub checker: ToolChecker,
}

impl Session {
    pub fn new(qemu: QemuGuard, version: &'static str) -> Self {
        Self {
            qemu,
            version,
            next_id: 1,
            checker: ToolChecker::new(),
        }
    }

    pub fn stateless(&self) -> bool {
        self.version == STATELESS
    }

    /// A request line with the next id; 2026-07-28 requests carry the `_meta` members.
    pub fn request_line(&mut self, method: &str, params: Value) -> (u64, String) {
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
    pub fn response_to(&mut self, id: u64, method: &str) -> (String, Value) {
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
    pub fn request(&mut self, method: &str, params: Value) -> (String, Value) {
        let (id, line) = self.request_line(method, params);
        self.qemu.send_line(&line).unwrap();
        self.response_to(id, method)
    }

    /// Sends a request and returns its `result` (the response must not be an error).
    pub fn result(&mut self, method: &str, params: Value) -> Value {
        let (line, value) = self.request(method, params);
        assert!(value.get("error").is_none(), "{method} failed: {line}");
        value["result"].clone()
    }

    /// The `initialize` handshake of the legacy revisions, then `notifications/initialized`.
    pub fn initialize(&mut self) -> String {
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
    pub fn list_tools(&mut self) -> (Vec<Value>, usize) {
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
    pub fn call(&mut self, tool: &str, arguments: Value) -> (String, Value) {
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
    pub fn call_refused(&mut self, tool: &str, arguments: Value, message: &str) {
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
pub fn tail(version: &str) -> &'static str {
    if version == STATELESS {
        r#","resultType":"complete"}}"#
    } else {
        "}}"
    }
}

/// Checks the listed tools: order, titles, closed input schemas, output schemas, annotations,
/// and the `{"result": ...}` wrap of the array output for legacy peers.
pub fn check_tool_list(tools: &[Value], version: &str) {
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
    assert_eq!(
        tools[5]["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": true})
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
