//! Issue 35 on stdio: a hostile device (the fake device's hostile tools) reaches neither the
//! host nor another device's calls, and finished tasks do not block new ones.
//!
//! - One hostile device: its forged `notifications/tasks`, its progress flood for tokens it
//!   was not given and its own requests (`sampling/createMessage`, `elicitation/create`,
//!   `roots/list`, `ping`) never reach the host; its requests are answered `-32601` by the
//!   bridge; the host's next call is served as usual.
//! - A hub of two: device `a` sends progress for tokens 1 to 40 while the host's call to `b`
//!   (token 7) is in flight; the host gets only `b`'s own progress of that call.
//! - `--max-tasks 3`: three short tasks finish, and a fourth is created; the first one gave its
//!   place up, the others stay readable.
//!
//! The devices are the fake device of `tests/clients/fake_device.rs` on unix sockets, the
//! bridge runs in this process; every wait is bounded and everything stops on drop.
#![cfg(unix)]

mod bridge_support;

use std::time::Duration;

use bridge_support::*;
use embedded_mcp_std::bridge::tasks::TaskTools;
use embedded_mcp_std::bridge::{BridgeConfig, HubDevice};
use embedded_mcp_std::device::Endpoint;
use serde_json::Value;

fn hostile_device() -> SocketDevice {
    let knobs = Knobs {
        hostile: true,
        ..Knobs::default()
    };
    SocketDevice::listen(temp_path("hostile"), knobs)
}

/// A legacy `tools/call` of `tool` with `arguments` (JSON text) and a progress token.
fn call_with(id: u32, tool: &str, arguments: &str, token: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments},"_meta":{{"progressToken":{token}}}}}}}"#
    )
}

/// The text of a `tools/call` answer (its first content block).
fn text_of(line: &str) -> String {
    json(line)["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {line}"))
        .to_owned()
}

#[test]
fn a_hostile_device_reaches_neither_the_host_nor_anything_of_the_bridges() {
    let dev = hostile_device();
    let mut b = Bridge::start(config(Endpoint::Unix(dev.path.clone())));
    b.initialize("2025-11-25");

    // Forged task statuses: the host's next line is the call's own answer.
    let answer = b.request(&call_with(1, "forge_task", "{}", "\"t1\""));
    assert_eq!(text_of(&answer), "forged", "{answer}");
    b.log
        .wait_for(r#"dropped the device's notifications/tasks for task "forged-1""#);

    // Requests of its own: answered -32601 by the bridge, none reaches the host.
    let answer = b.request(&call_with(2, "own_requests", "{}", "\"t2\""));
    assert_eq!(
        text_of(&answer),
        "own-1:-32601 own-2:-32601 own-3:-32601 own-4:-32601",
        "{answer}"
    );

    // 2 x 2,000 progress notifications for tokens it was not given: none reaches the host.
    let answer = b.request(&call_with(
        3,
        "flood_progress",
        r#"{"count":2000}"#,
        "\"t3\"",
    ));
    assert_eq!(text_of(&answer), "flooded 2000", "{answer}");

    // The host is served as before.
    assert!(b.request(&call("4", "read_temp")).contains("21.50"));
    assert_eq!(b.try_recv(Duration::from_millis(200)), None);
    let (log, out) = (b.log.clone(), b.out.clone());
    b.finish().unwrap();
    // The host got the answers, the handshake's and nothing else.
    assert_eq!(out.lock().unwrap().len(), 5, "{:#?}", out.lock().unwrap());
    let log = log.text();
    assert!(log.contains("answered the device's own request sampling/createMessage"));
    assert!(log.contains("dropped the device's progress for token"));
}

#[test]
fn in_a_hub_a_device_cannot_report_progress_of_another_devices_call() {
    let (a, b_dev) = (hostile_device(), hostile_device());
    let mut cfg = BridgeConfig::hub(vec![
        HubDevice {
            name: "a".into(),
            endpoint: Endpoint::Unix(a.path.clone()),
        },
        HubDevice {
            name: "b".into(),
            endpoint: Endpoint::Unix(b_dev.path.clone()),
        },
    ]);
    let timings = config(Endpoint::Unix(a.path.clone()));
    cfg.timeout = timings.timeout;
    cfg.reconnect = timings.reconnect;
    cfg.startup_retry = timings.startup_retry;
    let mut host = Bridge::start(cfg);
    host.initialize("2025-11-25");
    let listed = json(&host.request(r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#));
    assert!(listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["name"] == "b.hold"));

    // X's call to b, token 7, stays in flight while a floods tokens 1 to 40.
    host.send(&call_with(1, "b.hold", "{}", "7"));
    let flood = host.request(&call_with(2, "a.flood_progress", r#"{"count":40}"#, "99"));
    assert_eq!(json(&flood)["id"], 2, "{flood}");
    assert_eq!(text_of(&flood), "flooded 40");
    host.send(&call_with(3, "b.release", "{}", "8"));
    let lines: Vec<String> = (0..3).map(|_| host.recv()).collect();
    assert_eq!(
        lines[0],
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"message":"the held call's own progress"}}"#
    );
    assert_eq!(
        (json(&lines[1])["id"].clone(), text_of(&lines[1])),
        (Value::from(1), "released".to_owned())
    );
    assert_eq!(json(&lines[2])["id"], 3);
    assert_eq!(host.try_recv(Duration::from_millis(200)), None);
    let out = host.out.clone();
    host.finish().unwrap();
    let out = out.lock().unwrap().join("\n");
    assert!(!out.contains("INJECTED"), "{out}");
}

/// A 2026-07-28 call of `read_temp` that asks to be a task.
fn task_call(id: u32) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"read_temp","arguments":{{}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"extensions":{{"io.modelcontextprotocol/tasks":{{}}}}}}}}}}}}"#
    )
}

fn task_get(id: u32, task: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tasks/get","params":{{"taskId":"{task}","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"extensions":{{"io.modelcontextprotocol/tasks":{{}}}}}}}}}}}}"#
    )
}

/// Polls task `task` until it is no longer `working` (bounded); returns its `tasks/get` answer.
fn settled(b: &mut Bridge, id: u32, task: &str) -> Value {
    for n in 0..100 {
        let got = json(&b.request(&task_get(id * 1000 + n, task)));
        if got["result"]["status"] != "working" {
            return got;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("task {task} never finished");
}

#[test]
fn three_finished_tasks_do_not_block_a_fourth_at_max_tasks_3() {
    let dev = SocketDevice::start();
    let mut cfg = config(Endpoint::Unix(dev.path.clone()));
    cfg.tasks.max_tasks = 3;
    cfg.tasks.tools = TaskTools::All;
    let mut b = Bridge::start(cfg);
    let mut ids = Vec::new();
    for n in 1..=4 {
        let created = json(&b.request(&task_call(n)));
        let task = created["result"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("task {n} refused: {created}"))
            .to_owned();
        let done = settled(&mut b, n, &task);
        assert_eq!(done["result"]["status"], "completed", "{done}");
        ids.push(task);
    }
    // The first finished first: it gave its place up; the other three are readable.
    let gone = json(&b.request(&task_get(50, &ids[0])));
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    for (n, task) in ids.iter().enumerate().skip(1) {
        let got = json(&b.request(&task_get(60 + n as u32, task)));
        assert_eq!(got["result"]["status"], "completed", "{got}");
    }
    b.finish().unwrap();
}
