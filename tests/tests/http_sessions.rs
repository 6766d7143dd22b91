//! Many HTTP clients on one device through `embedded-mcp bridge --http`: interleaved calls from
//! 8 clients (legacy sessions and 2026-07-28 requests, all using the same ids), each answered
//! once and to the right client; request-tied notifications on the request's own SSE stream;
//! each session's handshake answered by the front without touching the device.
#![cfg(unix)]

mod http_support;

use std::collections::BTreeSet;
use std::sync::{Arc, Barrier};

use http_support::*;
use serde_json::{json, Value};

const CLIENTS: usize = 8;
const CALLS: usize = 10;

fn echo(id: usize, client: usize, call: usize, modern: bool) -> String {
    let mut params = json!({"name": "echo", "arguments": {"client": client, "call": call}});
    if modern {
        params["_meta"] = modern_meta();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

#[test]
fn eight_clients_interleaved_each_answer_once_to_the_right_client() {
    let b = Arc::new(HttpBridge::start(&[]));
    let barrier = Arc::new(Barrier::new(CLIENTS));
    let threads: Vec<_> = (0..CLIENTS)
        .map(|client| {
            let (b, barrier) = (b.clone(), barrier.clone());
            std::thread::spawn(move || {
                // Half the clients hold legacy sessions (two revisions), half speak 2026-07-28.
                let modern = client % 2 == 1;
                let version = if client % 4 == 0 {
                    "2025-11-25"
                } else {
                    "2025-06-18"
                };
                let session = (!modern).then(|| b.open_session(version));
                barrier.wait();
                let mut seen = Vec::new();
                for call in 1..=CALLS {
                    let mut headers = vec![("Accept", "application/json, text/event-stream")];
                    if let Some(s) = &session {
                        headers.push(("Mcp-Session-Id", s));
                        headers.push(("MCP-Protocol-Version", version));
                    } else {
                        headers.extend([
                            ("MCP-Protocol-Version", "2026-07-28"),
                            ("Mcp-Method", "tools/call"),
                            ("Mcp-Name", "echo"),
                        ]);
                    }
                    // Every client uses the same ids: the bridge keeps them apart.
                    let r = b.post(&headers, &echo(call, client, call, modern));
                    assert_eq!(r.status, 200, "{}", r.text());
                    assert_eq!(r.header("content-type"), Some("application/json"));
                    let v = r.json();
                    assert_eq!(v["id"], call, "{v}");
                    let text = v["result"]["content"][0]["text"]
                        .as_str()
                        .unwrap()
                        .to_owned();
                    let args: Value = serde_json::from_str(&text).unwrap();
                    assert_eq!(
                        args,
                        json!({"call": call, "client": client}),
                        "client {client} got another's answer"
                    );
                    assert_eq!(v["result"].get("resultType").is_some(), modern, "{v}");
                    seen.push(call);
                }
                seen
            })
        })
        .collect();
    for (client, t) in threads.into_iter().enumerate() {
        let seen = t.join().unwrap();
        assert_eq!(seen, (1..=CALLS).collect::<Vec<_>>(), "client {client}");
    }
    // The device got every call once, under distinct bridge-side ids.
    let calls: Vec<Value> = b
        .device
        .lines()
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["method"] == "tools/call")
        .collect();
    assert_eq!(calls.len(), CLIENTS * CALLS);
    let ids: BTreeSet<u64> = calls.iter().map(|v| v["id"].as_u64().unwrap()).collect();
    assert_eq!(ids.len(), CLIENTS * CALLS, "bridge-side ids are unique");
    let pairs: BTreeSet<(u64, u64)> = calls
        .iter()
        .map(|v| {
            let a = &v["params"]["arguments"];
            (a["client"].as_u64().unwrap(), a["call"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(pairs.len(), CLIENTS * CALLS);
}

#[test]
fn each_session_gets_its_own_handshake_without_touching_the_device() {
    let b = HttpBridge::start(&[]);
    let init = |version: &str| {
        b.post(
            &[],
            &json!({"jsonrpc": "2.0", "id": "i", "method": "initialize",
                    "params": {"protocolVersion": version, "capabilities": {"roots": {}},
                               "clientInfo": {"name": "t", "version": "1"}}})
            .to_string(),
        )
    };
    let new = init("2025-11-25");
    // The device's own answer to the front's handshake, byte for byte, with this client's id.
    assert_eq!(
        b.device.lines().len(),
        3,
        "initialize, initialized, tools/list: {:?}",
        b.device.lines()
    );
    assert_eq!(
        new.text(),
        r#"{"jsonrpc":"2.0","id":"i","result":{"capabilities":{"tools":{"listChanged":false}},"protocolVersion":"2025-11-25","serverInfo":{"description":"a test device","name":"scripted","version":"1.0.0"}}}"#
    );
    // 2025-06-18 is echoed, without what that revision lacks.
    let old = init("2025-06-18");
    assert_eq!(
        old.text(),
        r#"{"jsonrpc":"2.0","id":"i","result":{"capabilities":{"tools":{"listChanged":false}},"protocolVersion":"2025-06-18","serverInfo":{"name":"scripted","version":"1.0.0"}}}"#
    );
    // An unknown version gets the device's.
    assert_eq!(
        init("2024-01-01").json()["result"]["protocolVersion"],
        "2025-11-25"
    );
    // No handshake reached the device after the front's own.
    assert_eq!(b.device.lines().len(), 3, "{:?}", b.device.lines());
    // A 2025-06-18 session's requests tell the device their version (the rest of the bytes as
    // sent); a 2025-11-25 one's go as sent, only the id spliced (the start's listing is the
    // router's, under an id of its own).
    let s_old = old.header("mcp-session-id").unwrap().to_owned();
    let s_new = new.header("mcp-session-id").unwrap().to_owned();
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    assert_eq!(b.post(&[("Mcp-Session-Id", &s_old)], list).status, 200);
    assert_eq!(b.post(&[("Mcp-Session-Id", &s_new)], list).status, 200);
    let lines = b.device.lines();
    // Each under an id of the bridge's (a number, growing), the client's own put aside.
    let (id3, line3) = bridge_id(&lines[3]);
    let (id4, line4) = bridge_id(&lines[4]);
    assert!(id3 < id4, "{lines:?}");
    // The lean hop leaves out the capabilities a list does not need (BRIDGE.md, "The lean hop").
    assert_eq!(
        line3,
        r#"{"jsonrpc":"2.0","id":N,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18","embedded-mcp/lean":true}}}"#
    );
    assert_eq!(line4, r#"{"jsonrpc":"2.0","id":N,"method":"tools/list"}"#);
}

/// The bridge's id of a line written to the device, and the line with that id as `N`.
fn bridge_id(line: &str) -> (u64, String) {
    let rest = line
        .strip_prefix(r#"{"jsonrpc":"2.0","id":"#)
        .expect("the id comes first");
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let id = digits.parse().expect("a number");
    let line = format!(r#"{{"jsonrpc":"2.0","id":N{}"#, &rest[digits.len()..]);
    (id, line)
}

fn steps(id: &str, token: &str, modern: bool) -> String {
    let mut meta = if modern { modern_meta() } else { json!({}) };
    meta["progressToken"] = json!(token);
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "steps", "arguments": {}, "_meta": meta}})
    .to_string()
}

#[test]
fn notifications_ride_their_own_request_stream() {
    let b = Arc::new(HttpBridge::start(&[]));
    let session = b.open_session("2025-11-25");
    let quiet = b.open_session("2025-11-25");
    // `quiet` only wants warnings and worse: the device's info log is not for it.
    let set =
        r#"{"jsonrpc":"2.0","id":"l","method":"logging/setLevel","params":{"level":"warning"}}"#;
    let r = b.post(&[("Mcp-Session-Id", &quiet)], set);
    assert_eq!(r.text(), r#"{"jsonrpc":"2.0","id":"l","result":{}}"#);
    assert_eq!(
        b.post(
            &[("Mcp-Session-Id", &quiet)],
            &set.replace("warning", "loud")
        )
        .json()["error"]["code"],
        -32602
    );
    let sse = "application/json, text/event-stream";
    let run = |headers: Vec<(&'static str, String)>, body: String| {
        let b = b.clone();
        std::thread::spawn(move || {
            let refs: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
            b.post(&refs, &body)
        })
    };
    // Three requests with the same token and id at once, from three clients.
    let a = run(
        vec![("Accept", sse.into()), ("Mcp-Session-Id", session.clone())],
        steps("7", "tok", false),
    );
    let q = run(
        vec![("Accept", sse.into()), ("Mcp-Session-Id", quiet.clone())],
        steps("7", "tok", false),
    );
    let m = run(
        vec![
            ("Accept", sse.into()),
            ("MCP-Protocol-Version", "2026-07-28".into()),
            ("Mcp-Method", "tools/call".into()),
            ("Mcp-Name", "steps".into()),
        ],
        steps("7", "tok", true),
    );
    for (name, handle, logs) in [
        ("session", a, 1),
        ("quiet session", q, 0),
        ("stateless", m, 1),
    ] {
        let r = handle.join().unwrap();
        assert_eq!(r.status, 200, "{name}: {}", r.text());
        assert_eq!(
            r.header("content-type"),
            Some("text/event-stream"),
            "{name}"
        );
        let events = r.events();
        let progress: Vec<&Value> = events
            .iter()
            .filter(|e| e["method"] == "notifications/progress")
            .collect();
        let messages = events
            .iter()
            .filter(|e| e["method"] == "notifications/message")
            .count();
        assert_eq!(progress.len(), 3, "{name}: {events:?}");
        assert!(
            progress
                .iter()
                .all(|p| p["params"]["progressToken"] == "tok"),
            "{name}: {events:?}"
        );
        assert_eq!(messages, logs, "{name}: {events:?}");
        let last = events.last().unwrap();
        assert_eq!(
            (
                last["id"].clone(),
                last["result"]["content"][0]["text"].clone()
            ),
            (json!("7"), json!("done")),
            "{name}"
        );
    }
    // A client that accepts only JSON gets the answer alone.
    let r = b.post(&[("Mcp-Session-Id", &session)], &steps("8", "t2", false));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json()["id"], "8");
}
