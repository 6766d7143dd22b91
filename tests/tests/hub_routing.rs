//! The hub (`BridgeConfig::hub`, `embedded-mcp bridge --device NAME=LINK ...`): several devices
//! behind one MCP server, tools named `NAME.tool` in one page, calls routed by the prefix, a
//! silent device delaying nobody else, and `notifications/tools/list_changed` after a device
//! came back with other tools; a 2026-07-28 host served in its revision, and told of that change
//! on its `subscriptions/listen` stream until it cancels it.
//!
//! The devices are small unix-socket fakes in this file: each connection serves "firmware"
//! `n` (the connection's number), whose one tool is `tool_n`; `tools/call` answers the device's
//! name, and a device made silent answers nothing.
#![cfg(unix)]

mod bridge_support;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bridge_support::*;
use embedded_mcp_std::bridge::{BridgeConfig, HubDevice};
use embedded_mcp_std::device::Endpoint;
use serde_json::{json, Value};

/// A fake device: `firmware` counts connections; `silent` stops all answers.
struct Fake {
    path: std::path::PathBuf,
    silent: Arc<AtomicBool>,
    firmware: Arc<AtomicUsize>,
    current: Arc<Mutex<Option<UnixStream>>>,
}

impl Fake {
    fn start(name: &'static str) -> Self {
        let path = temp_path(name);
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path).expect("bind");
        let silent = Arc::new(AtomicBool::new(false));
        let firmware = Arc::new(AtomicUsize::new(0));
        let current = Arc::new(Mutex::new(None));
        let (s, f, c) = (silent.clone(), firmware.clone(), current.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let n = f.fetch_add(1, Ordering::SeqCst) + 1;
                *c.lock().unwrap() = stream.try_clone().ok();
                let s = s.clone();
                std::thread::spawn(move || serve(stream, name, n, &s));
            }
        });
        Self {
            path,
            silent,
            firmware,
            current,
        }
    }

    /// Drops the current connection (a reset: the next one is new firmware).
    fn reset(&self) {
        if let Some(s) = self.current.lock().unwrap().take() {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }
}

fn serve(stream: UnixStream, name: &str, firmware: usize, silent: &AtomicBool) {
    let mut out = stream.try_clone().unwrap();
    for line in BufReader::new(stream).lines() {
        let Ok(line) = line else { return };
        let msg: Value = serde_json::from_str(&line).unwrap();
        let (Some(id), Some(method)) = (msg.get("id"), msg["method"].as_str()) else {
            continue;
        };
        if silent.load(Ordering::SeqCst) {
            continue;
        }
        let result = match method {
            "initialize" => json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": name, "version": "1"}}),
            "tools/list" => json!({"tools": [{"name": format!("tool_{firmware}"),
                "inputSchema": {"type": "object"}}]}),
            "tools/call" => json!({"content": [{"type": "text",
                "text": format!("{name} ran {}", msg["params"]["name"].as_str().unwrap())}]}),
            _ => json!({}),
        };
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
        if writeln!(out, "{answer}").is_err() {
            return;
        }
    }
}

fn hub(fakes: &[(&str, &Fake)]) -> Bridge {
    let devices = fakes
        .iter()
        .map(|(name, f)| HubDevice {
            name: (*name).into(),
            endpoint: Endpoint::Unix(f.path.clone()),
        })
        .collect();
    let template = config(Endpoint::Tcp(String::new()));
    let mut c = BridgeConfig::hub(devices);
    c.timeout = Duration::from_secs(3);
    c.reconnect = template.reconnect;
    c.startup_retry = template.startup_retry;
    Bridge::start(c)
}

fn names(list: &str) -> Vec<String> {
    json(list)["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn tools_are_prefixed_listed_in_one_page_and_calls_are_routed() {
    let (a, b) = (Fake::start("hub-a"), Fake::start("hub-b"));
    let mut h = hub(&[("alpha", &a), ("beta", &b)]);
    let init = h.initialize("2025-11-25");
    assert_eq!(
        json(&init)["result"]["capabilities"],
        json!({"tools": {"listChanged": true}})
    );
    let list = h.request(r#"{"jsonrpc":"2.0","id":"l","method":"tools/list"}"#);
    assert_eq!(names(&list), ["alpha.tool_1", "beta.tool_1"]);
    assert!(json(&list)["result"].get("nextCursor").is_none());
    let call = r#"{"jsonrpc":"2.0","id":"a\u0062","method":"tools/call","params":{"name":"beta.tool_1","arguments":{}}}"#;
    assert_eq!(
        h.request(call),
        r#"{"jsonrpc":"2.0","id":"a\u0062","result":{"content":[{"text":"hub-b ran tool_1","type":"text"}]}}"#
    );
    let unknown = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gamma.x"}}"#;
    assert_eq!(json(&h.request(unknown))["error"]["code"], -32602);
    h.finish().unwrap();
}

#[test]
fn a_silent_device_does_not_delay_the_other() {
    let (a, b) = (Fake::start("hub-quiet"), Fake::start("hub-live"));
    let mut h = hub(&[("quiet", &a), ("live", &b)]);
    h.initialize("2025-11-25");
    h.request(r#"{"jsonrpc":"2.0","id":"l","method":"tools/list"}"#);
    a.silent.store(true, Ordering::SeqCst);
    h.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"quiet.tool_1"}}"#);
    for n in 0..5 {
        let started = Instant::now();
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":"live{n}","method":"tools/call","params":{{"name":"live.tool_1"}}}}"#
        );
        let answer = h.request(&line);
        assert!(answer.contains("hub-live ran tool_1"), "{answer}");
        assert!(started.elapsed() < Duration::from_secs(1));
    }
    // The silent device's call times out on its own (3 s here), as one error.
    let late = h.recv();
    assert_eq!(json(&late)["id"], 1);
    assert_eq!(json(&late)["error"]["code"], -32001);
    a.silent.store(false, Ordering::SeqCst);
    h.finish().unwrap();
}

#[test]
fn a_device_back_with_other_tools_brings_list_changed() {
    let (a, b) = (Fake::start("hub-swap"), Fake::start("hub-same"));
    let mut h = hub(&[("swap", &a), ("same", &b)]);
    h.initialize("2025-11-25");
    let list = r#"{"jsonrpc":"2.0","id":"l","method":"tools/list"}"#;
    assert_eq!(names(&h.request(list)), ["swap.tool_1", "same.tool_1"]);
    a.reset();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let note = h
            .try_recv(deadline.saturating_duration_since(Instant::now()))
            .expect("notifications/tools/list_changed after the firmware swap");
        if note == r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"# {
            break;
        }
    }
    assert_eq!(a.firmware.load(Ordering::SeqCst), 2);
    assert_eq!(names(&h.request(list)), ["swap.tool_2", "same.tool_1"]);
    h.finish().unwrap();
}

/// A 2026-07-28 host (no `initialize`; the revision in each request's `_meta`): `server/discover`,
/// the one-page list and a call, each valid in that revision's official schema. The devices are
/// called in the legacy revision; the call's result gets its `resultType` in front of the
/// device's bytes. No list change is announced to such a host (it re-lists: `ttlMs` is 0).
#[test]
fn a_2026_07_28_host_is_served_in_its_revision() {
    let schemas =
        embedded_mcp_std::mcp_schema::McpSchemas::load(&embedded_mcp_tests::mcp_schema_dir())
            .expect("official MCP schemas");
    let (a, b) = (Fake::start("hub-m1"), Fake::start("hub-m2"));
    let mut h = hub(&[("one", &a), ("two", &b)]);
    let discover = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{MODERN_META}}}}}"#
    );
    let list =
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{{MODERN_META}}}}}"#);
    for (method, line) in [("server/discover", discover), ("tools/list", list)] {
        let answer = json(&h.request(&line));
        schemas
            .check_response("2026-07-28", method, &answer)
            .unwrap_or_else(|e| panic!("{method}: {e}\n{answer}"));
        if method == "tools/list" {
            assert_eq!(names(&answer.to_string()), ["one.tool_1", "two.tool_1"]);
            assert_eq!(answer["result"]["ttlMs"], 0);
        }
    }
    let answer = h.request(&call_modern("3", "two.tool_1"));
    assert_eq!(
        answer,
        r#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[{"text":"hub-m2 ran tool_1","type":"text"}]}}"#
    );
    schemas
        .check_response("2026-07-28", "tools/call", &json(&answer))
        .unwrap_or_else(|e| panic!("{e}\n{answer}"));
    // A device back with other tools: nothing is sent to this host, its next list shows them.
    a.reset();
    assert_eq!(h.try_recv(Duration::from_millis(1500)), None);
    let deadline = Instant::now() + TIMEOUT;
    for n in 4.. {
        let again = format!(
            r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/list","params":{{{MODERN_META}}}}}"#
        );
        if names(&h.request(&again)) == ["one.tool_2", "two.tool_1"] {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the new firmware's tool never showed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    h.finish().unwrap();
}

/// A 2026-07-28 host on stdio opens a listen stream: acknowledged, then told (tagged with the
/// listen id) when a device comes back with other tools, until it cancels the listen request;
/// each message valid against the official 2026-07-28 schema.
#[test]
fn a_2026_07_28_host_listening_is_told_of_list_changes_until_it_cancels() {
    let schemas =
        embedded_mcp_std::mcp_schema::McpSchemas::load(&embedded_mcp_tests::mcp_schema_dir())
            .expect("official MCP schemas");
    let (a, b) = (Fake::start("hub-l1"), Fake::start("hub-l2"));
    let mut h = hub(&[("one", &a), ("two", &b)]);
    let list =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{MODERN_META}}}}}"#);
    assert_eq!(names(&h.request(&list)), ["one.tool_1", "two.tool_1"]);
    let listen = format!(
        r#"{{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{{{MODERN_META},"notifications":{{"toolsListChanged":true}}}}}}"#
    );
    schemas
        .check_def("2026-07-28", "SubscriptionsListenRequest", &json(&listen))
        .unwrap();
    h.send(&listen);
    let ack = h.recv();
    assert_eq!(
        ack,
        r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":"l"}}}"#
    );
    schemas
        .check_def(
            "2026-07-28",
            "SubscriptionsAcknowledgedNotification",
            &json(&ack),
        )
        .unwrap();
    a.reset();
    let note = h
        .try_recv(TIMEOUT)
        .expect("list_changed on the listen stream");
    assert_eq!(
        note,
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l"}}}"#
    );
    schemas
        .check_def("2026-07-28", "ToolListChangedNotification", &json(&note))
        .unwrap();
    assert_eq!(names(&h.request(&list)), ["one.tool_2", "two.tool_1"]);
    // Cancelled: the next change is not told, and the listen request is never answered.
    h.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"l"}}"#);
    b.reset();
    assert_eq!(h.try_recv(Duration::from_millis(1500)), None);
    let deadline = Instant::now() + TIMEOUT;
    while names(&h.request(&list)) != ["one.tool_2", "two.tool_2"] {
        assert!(
            Instant::now() < deadline,
            "the new firmware's tool never showed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    h.finish().unwrap();
}

/// A device that goes away (reset, and silent after it) loses its tools within about two seconds,
/// not after its reconnects or its 3 s timeout; when it answers again they come back.
#[test]
fn a_device_that_goes_away_loses_its_tools_promptly() {
    let (a, b) = (Fake::start("hub-gone"), Fake::start("hub-stays"));
    let mut h = hub(&[("gone", &a), ("stays", &b)]);
    h.initialize("2025-11-25");
    let list = r#"{"jsonrpc":"2.0","id":"l","method":"tools/list"}"#;
    assert_eq!(names(&h.request(list)), ["gone.tool_1", "stays.tool_1"]);
    a.silent.store(true, Ordering::SeqCst);
    let started = Instant::now();
    a.reset();
    let note = h
        .try_recv(Duration::from_secs(5))
        .expect("notifications/tools/list_changed once the device is gone");
    let took = started.elapsed();
    assert_eq!(
        note,
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#
    );
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert!(
        took >= Duration::from_secs(2),
        "withdrawn before its grace: {took:?}"
    );
    eprintln!("the gone device's tools were withdrawn after {took:?}");
    let after = h.request(list);
    assert_eq!(names(&after), ["stays.tool_1"], "{after}");
    // Back, answering: its tools return with one more notification.
    a.silent.store(false, Ordering::SeqCst);
    a.reset();
    let note = h
        .try_recv(TIMEOUT)
        .expect("list_changed when the device is back");
    assert_eq!(
        note,
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#
    );
    let back = names(&h.request(list));
    assert_eq!(back.len(), 2, "{back:?}");
    assert_eq!(back[1], "stays.tool_1");
    assert!(back[0].starts_with("gone.tool_"), "{back:?}");
    h.finish().unwrap();
}
