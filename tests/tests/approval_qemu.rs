//! A person approves `set_relay` on the qemu-sensors firmware through `embedded-mcp bridge
//! --qemu` for a legacy host (2025-11-25, `initialize`): the bridge's input-required shim asks
//! the host with `elicitation/create`, retries on the device in 2026-07-28 with the answer and
//! the device's `requestState`, and answers under the host's id in the host's revision. The relay
//! is read back with `device_info`.
//!
//! Every line the bridge writes is validated against the official 2025-11-25 schema
//! (`tests/vectors/mcp-schema`): the message against `JSONRPCMessage`, an `elicitation/create`
//! against `ElicitRequest`, a `tools/call` answer against `CallToolResult`.
#![cfg(unix)]

mod bridge_support;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bridge_support::*;
use embedded_mcp_std::mcp_schema::McpSchemas;
use embedded_mcp_tests::qemu::{build_firmware, ensure_qemu, Board};
use serde_json::{json, Value};

const VERSION: &str = "2025-11-25";

fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        ensure_qemu().unwrap_or_else(|e| panic!("{e}"));
        let dir = embedded_mcp_tests::project_root()
            .join("examples")
            .join("qemu-sensors");
        build_firmware(&dir, Board::Lm3s6965evb.rust_target()).unwrap_or_else(|e| panic!("{e}"))
    })
}

fn schemas() -> &'static McpSchemas {
    static SCHEMAS: OnceLock<McpSchemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        McpSchemas::load(&embedded_mcp_tests::mcp_schema_dir()).expect("official MCP schemas")
    })
}

/// A legacy host of the bridge: every line it reads is validated.
struct Host {
    bridge: BridgeProcess,
}

impl Host {
    /// A bridge on the firmware whose host initialized with `capabilities`.
    fn start(capabilities: &str) -> Self {
        let fw = firmware().to_string_lossy().into_owned();
        let mut host = Self {
            bridge: BridgeProcess::start(&["--qemu", &fw, "--timeout-ms", "8000"]),
        };
        let init = format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{VERSION}","capabilities":{capabilities},"clientInfo":{{"name":"approval-test","version":"1"}}}}}}"#
        );
        let answer = host.request(&init, "initialize");
        assert_eq!(answer["result"]["protocolVersion"], VERSION, "{answer}");
        host.bridge.send(INITIALIZED);
        host
    }

    /// The next line, validated as a message of the revision.
    fn recv(&self) -> Value {
        let line = self.bridge.recv();
        let message = json(&line);
        schemas()
            .check_message(VERSION, &message)
            .unwrap_or_else(|e| panic!("{e}\n{line}"));
        message
    }

    /// Sends a request and reads its answer (validated as an answer to `method`).
    fn request(&mut self, line: &str, method: &str) -> Value {
        self.bridge.send(line);
        let answer = self.recv();
        schemas()
            .check_response(VERSION, method, &answer)
            .unwrap_or_else(|e| panic!("{e}\n{answer}"));
        answer
    }

    /// Calls `set_relay` and reads the bridge's question (validated as an `ElicitRequest`).
    fn switch_on(&mut self, id: &str, relay: u8) -> Value {
        self.bridge.send(&relay_call(id, relay, true));
        let ask = self.recv();
        assert_eq!(ask["method"], "elicitation/create", "{ask}");
        schemas()
            .check_def(VERSION, "ElicitRequest", &ask)
            .unwrap_or_else(|e| panic!("{e}\n{ask}"));
        assert_eq!(
            ask["params"]["message"],
            format!("Switch relay {relay} on?"),
            "{ask}"
        );
        ask
    }

    /// Answers the bridge's question `ask` with `result` and reads the call's answer.
    fn answer(&mut self, ask: &Value, result: Value) -> Value {
        let response = json!({"jsonrpc": "2.0", "id": ask["id"], "result": result});
        self.bridge.send(&response.to_string());
        let answer = self.recv();
        schemas()
            .check_response(VERSION, "tools/call", &answer)
            .unwrap_or_else(|e| panic!("{e}\n{answer}"));
        assert!(answer["result"].get("resultType").is_none(), "{answer}");
        answer
    }

    fn relays(&mut self, id: u32) -> Value {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"device_info","arguments":{{}}}}}}"#
        );
        let info = self.request(&line, "tools/call");
        info["result"]["structuredContent"]["relays"].clone()
    }

    fn finish(mut self) {
        self.bridge.stdin = None;
        assert_eq!(self.bridge.wait_exit().code(), Some(0));
    }
}

fn relay_call(id: &str, relay: u8, on: bool) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"set_relay","arguments":{{"relay":{relay},"on":{on}}}}}}}"#
    )
}

fn tool_text(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_legacy_host_approves_declines_and_cancels_through_elicitation() {
    let mut host = Host::start(r#"{"elicitation":{}}"#);
    assert_eq!(host.relays(1), json!([false, false]));

    // Accept: the relay switches, the answer is under the host's id in legacy shape.
    let ask = host.switch_on("on-1", 1);
    let done = host.answer(
        &ask,
        json!({"action": "accept", "content": {"approve": true}}),
    );
    assert_eq!(done["id"], "on-1", "{done}");
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"relay": 1, "on": true, "wasOn": false}),
        "{done}"
    );
    assert_eq!(host.relays(2), json!([false, true]));

    // Decline: a tool error, the relay stays off.
    let ask = host.switch_on("on-0", 0);
    let declined = host.answer(&ask, json!({"action": "decline"}));
    assert_eq!(declined["result"]["isError"], true, "{declined}");
    assert!(tool_text(&declined).contains("declined"), "{declined}");
    assert_eq!(host.relays(3), json!([false, true]));

    // Cancel: the same, saying so.
    let ask = host.switch_on("on-0b", 0);
    let cancelled = host.answer(&ask, json!({"action": "cancel"}));
    assert_eq!(cancelled["result"]["isError"], true, "{cancelled}");
    assert!(tool_text(&cancelled).contains("cancelled"), "{cancelled}");
    assert_eq!(host.relays(4), json!([false, true]));

    // Accepted with approve: false is no approval either.
    let ask = host.switch_on("on-0c", 0);
    let no = host.answer(
        &ask,
        json!({"action": "accept", "content": {"approve": false}}),
    );
    assert_eq!(no["result"]["isError"], true, "{no}");
    assert_eq!(host.relays(5), json!([false, true]));

    // Switching off needs nobody: answered at once.
    let off = host.request(&relay_call("off-1", 1, false), "tools/call");
    assert_eq!(
        off["result"]["structuredContent"],
        json!({"relay": 1, "on": false, "wasOn": true}),
        "{off}"
    );
    assert_eq!(host.relays(6), json!([false, false]));

    // The host gives up while the person thinks: no answer, the question is withdrawn.
    let ask = host.switch_on("gone", 1);
    host.bridge.send(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"gone","reason":"user"}}"#,
    );
    let withdrawn = host.recv();
    assert_eq!(
        withdrawn["method"], "notifications/cancelled",
        "{withdrawn}"
    );
    assert_eq!(withdrawn["params"]["requestId"], ask["id"], "{withdrawn}");
    // The next answer the host reads is device_info's: nothing came for "gone".
    assert_eq!(host.relays(7), json!([false, false]));
    host.finish();
}

#[test]
fn a_legacy_host_without_elicitation_gets_a_tool_error_and_the_relay_stays_off() {
    let mut host = Host::start("{}");
    let refused = host.request(&relay_call("on", 1, true), "tools/call");
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(tool_text(&refused).contains("did not act"), "{refused}");
    assert_eq!(host.relays(2), json!([false, false]));
    host.finish();
}

#[test]
fn through_a_hub_a_legacy_host_approves_a_device_relay() {
    let fw = firmware().to_string_lossy().into_owned();
    let mut host = Host {
        bridge: BridgeProcess::start(&[
            "--device",
            &format!("m1=qemu:{fw}"),
            "--timeout-ms",
            "8000",
        ]),
    };
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{VERSION}","capabilities":{{"elicitation":{{}}}},"clientInfo":{{"name":"approval-test","version":"1"}}}}}}"#
    );
    host.request(&init, "initialize");
    host.bridge.send(INITIALIZED);
    let list = host.request(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        "tools/list",
    );
    assert!(list.to_string().contains("m1.set_relay"), "{list}");
    host.bridge.send(
        r#"{"jsonrpc":"2.0","id":"on","method":"tools/call","params":{"name":"m1.set_relay","arguments":{"relay":0,"on":true}}}"#,
    );
    let ask = host.recv();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    schemas()
        .check_def(VERSION, "ElicitRequest", &ask)
        .unwrap_or_else(|e| panic!("{e}\n{ask}"));
    let done = host.answer(
        &ask,
        json!({"action": "accept", "content": {"approve": true}}),
    );
    assert_eq!(done["id"], "on", "{done}");
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"relay": 0, "on": true, "wasOn": false}),
        "{done}"
    );
    let info = host.request(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"m1.device_info","arguments":{}}}"#,
        "tools/call",
    );
    assert_eq!(
        info["result"]["structuredContent"]["relays"],
        json!([true, false]),
        "{info}"
    );
    host.finish();
}
