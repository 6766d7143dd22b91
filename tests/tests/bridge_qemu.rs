//! `embedded-mcp bridge --qemu FIRMWARE.elf` with the real firmware of `examples/qemu-sensors`.
//!
//! - The lifecycle tests hold for any firmware: the bridge starts QEMU with the UART on a unix
//!   socket, and QEMU is gone once the bridge's stdin closes or the bridge gets SIGTERM.
//! - The MCP session tests need the firmware to serve MCP (issue 6); should `src/main.rs` go back
//!   to the line echo, they fail at once saying so.
#![cfg(unix)]

mod bridge_support;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bridge_support::*;
use embedded_mcp_tests::qemu::{build_firmware, ensure_qemu, Board};
use serde_json::{json, Value};

fn firmware_dir() -> PathBuf {
    embedded_mcp_tests::project_root()
        .join("examples")
        .join("qemu-sensors")
}

/// The firmware ELF, built once per test run (QEMU installed if missing, as the harness does).
fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        ensure_qemu().unwrap_or_else(|e| panic!("{e}"));
        build_firmware(&firmware_dir(), Board::Lm3s6965evb.rust_target())
            .unwrap_or_else(|e| panic!("{e}"))
    })
}

/// Fails with a clear message while the firmware is the line echo of issue 6.
fn require_mcp_firmware() {
    let main =
        std::fs::read_to_string(firmware_dir().join("src").join("main.rs")).unwrap_or_default();
    assert!(
        !main.contains("echo::echo_task"),
        "examples/qemu-sensors still runs the line-echo app, not the MCP engine: these tests need the \
         firmware of issue 6"
    );
}

/// The QEMU pids the bridge logged (`-v`: "device process pid N"), oldest first.
fn qemu_pids(b: &BridgeProcess, at_least: usize) -> Vec<u32> {
    let end = Instant::now() + TIMEOUT;
    loop {
        let pids: Vec<u32> = b
            .stderr()
            .lines()
            .filter_map(|l| l.split("device process pid ").nth(1)?.trim().parse().ok())
            .collect();
        if pids.len() >= at_least {
            return pids;
        }
        assert!(
            Instant::now() < end,
            "the bridge never started QEMU; stderr:\n{}",
            b.stderr()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn start_bridge() -> BridgeProcess {
    let fw = firmware().to_string_lossy().into_owned();
    BridgeProcess::start(&["--qemu", &fw, "--timeout-ms", "8000"])
}

#[test]
fn qemu_stops_when_the_bridge_input_closes() {
    let mut b = start_bridge();
    let pid = qemu_pids(&b, 1)[0];
    assert!(process_alive(pid));
    // Whatever the firmware answers (the old echo app sent the line back), the link is live.
    b.send(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    let _ = b.recv();
    assert!(process_alive(pid));
    // Nothing stays in flight (an echo app never answers), so closing stdin ends the bridge now.
    b.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#);
    b.stdin = None;
    let status = b.wait_exit();
    assert_eq!(status.code(), Some(0), "stderr:\n{}", b.stderr());
    assert!(wait_gone(pid), "QEMU {pid} outlived the bridge");
}

#[test]
fn qemu_stops_when_the_bridge_is_terminated() {
    let b = start_bridge();
    let pid = qemu_pids(&b, 1)[0];
    b.signal("TERM");
    let mut b = b;
    assert_eq!(b.wait_exit().code(), Some(143), "stderr:\n{}", b.stderr());
    assert!(wait_gone(pid), "QEMU {pid} outlived the bridge");
}

/// Arguments that satisfy simple input schemas (first enum value, minimum, placeholder).
fn sample(schema: &Value) -> Value {
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {
            let mut out = serde_json::Map::new();
            for key in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let key = key.as_str().unwrap_or_default();
                out.insert(key.into(), sample(&schema["properties"][key]));
            }
            Value::Object(out)
        }
        Some("integer" | "number") => schema.get("minimum").cloned().unwrap_or(json!(0)),
        Some("boolean") => json!(false),
        Some("string") => json!("x"),
        Some("array") => json!([]),
        _ => Value::Null,
    }
}

#[test]
fn mcp_session_with_the_firmware_through_the_bridge() {
    require_mcp_firmware();
    let mut b = start_bridge();
    let init = json(&b.request(&initialize_request("2025-11-25")));
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    b.send(INITIALIZED);
    let list = json(&b.request(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#));
    let tools = list["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!tools.is_empty(), "{list}");
    for (i, tool) in tools.iter().enumerate() {
        let name = tool["name"].as_str().unwrap_or_default();
        let request = json!({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
                             "params": {"name": name, "arguments": sample(&tool["inputSchema"])}});
        let answer = json(&b.request(&request.to_string()));
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(answer.get("result").is_some(), "{name}: {answer}");
        assert!(
            !text.contains("embedded-mcp bridge withheld it"),
            "{name}: {text}"
        );
    }
    b.stdin = None;
    assert_eq!(b.wait_exit().code(), Some(0));
}

/// A 2026-07-28 `tools/call` of `set_relay` with `extra` params members, from a host that
/// declares `elicitation`.
fn relay_call(id: &str, extra: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{}}}}}},"name":"set_relay","arguments":{{"relay":1,"on":true}}{extra}}}}}"#
    )
}

#[test]
fn a_2026_host_gets_input_required_through_the_bridge_and_its_retry_acts() {
    require_mcp_firmware();
    let mut b = start_bridge();
    // The output check applies to complete results only: the form passes unchanged.
    let asked = json(&b.request(&relay_call("ask", "")));
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    assert_eq!(
        result["inputRequests"]["approval"]["params"]["message"], "Switch relay 1 on?",
        "{asked}"
    );
    let state = result["requestState"].as_str().expect("a state");
    let accept = format!(
        r#","inputResponses":{{"approval":{{"action":"accept","content":{{"approve":true}}}}}},"requestState":"{state}""#
    );
    let done = json(&b.request(&relay_call("yes", &accept)));
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"relay": 1, "on": true, "wasOn": false}),
        "{done}"
    );
    let replayed = json(&b.request(&relay_call("again", &accept)));
    assert_eq!(replayed["result"]["isError"], true, "{replayed}");
    b.stdin = None;
    assert_eq!(b.wait_exit().code(), Some(0));
}

#[test]
fn qemu_killed_mid_session_is_restarted_and_the_handshake_replayed() {
    require_mcp_firmware();
    let mut b = start_bridge();
    assert!(b
        .request(&initialize_request("2025-11-25"))
        .contains("protocolVersion"));
    b.send(INITIALIZED);
    let first = qemu_pids(&b, 1)[0];
    let kill = std::process::Command::new("kill")
        .args(["-KILL", &first.to_string()])
        .status();
    assert!(kill.is_ok_and(|s| s.success()));
    let second = qemu_pids(&b, 2)[1];
    assert_ne!(first, second);
    let end = Instant::now() + TIMEOUT;
    while !b.stderr().contains("handshake replayed") {
        assert!(Instant::now() < end, "no replay; stderr:\n{}", b.stderr());
        std::thread::sleep(Duration::from_millis(20));
    }
    let list = json(&b.request(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#));
    assert!(list["result"]["tools"].is_array(), "{list}");
    b.stdin = None;
    assert_eq!(b.wait_exit().code(), Some(0));
    assert!(wait_gone(second));
}

/// Issue 24: a 15-second `sample_temperature` (15 samples 1000 ms apart, as its input schema
/// allows) finishes through the bridge under the default timeouts (`--timeout-ms` 10 s, reset by
/// each progress notification; `--max-call-ms` 60 s), with one progress notification per sample
/// in order, then its result. Before, the bridge answered -32001 at 10 s and cancelled the call.
#[test]
fn a_15_second_call_with_progress_finishes_under_the_default_timeouts() {
    require_mcp_firmware();
    let fw = firmware().to_string_lossy().into_owned();
    let mut b = BridgeProcess::start(&["--qemu", &fw]);
    let init = json(&b.request(&initialize_request("2025-11-25")));
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    b.send(INITIALIZED);
    let started = Instant::now();
    b.send(
        r#"{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"sample_temperature","arguments":{"samples":15,"intervalMs":1000},"_meta":{"progressToken":"p"}}}"#,
    );
    let mut progress = Vec::new();
    let answer = loop {
        // Each line comes within the bridge's own idle deadline (a progress each second).
        let line = json(&b.recv());
        if line["method"] == "notifications/progress" {
            assert_eq!(line["params"]["progressToken"], "p", "{line}");
            assert_eq!(line["params"]["total"], 15, "{line}");
            progress.push(line["params"]["progress"].as_u64().unwrap_or_default());
            continue;
        }
        break line;
    };
    let took = started.elapsed();
    assert_eq!(progress, (1..=15).collect::<Vec<u64>>(), "{answer}");
    assert!(answer.get("error").is_none(), "{answer}");
    assert_eq!(answer["id"], "long", "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"]["samples"], 15,
        "{answer}"
    );
    assert!(took >= Duration::from_secs(14), "took {took:?}");
    b.stdin = None;
    assert_eq!(b.wait_exit().code(), Some(0), "stderr:\n{}", b.stderr());
}
