//! The task layer around a router (and a hub) under simulated time: a device that knows
//! nothing of tasks, driven line by line.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{NamedTool, TaskConfig, TaskLayer, TaskTools};
use crate::bridge::hub::Hub;
use crate::bridge::machine::{LinkEvent, Machine};
use crate::bridge::router::Router;
use crate::bridge::sim::{config, hub_config, quiet, Sim};
use crate::bridge::{BridgeConfig, OnInvalid};

/// 2026-07-28T10:30:00Z, the wall time of the simulation's start.
fn wall() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_785_234_600)
}

fn counted_ids() -> super::layer::TaskIds {
    let mut n = 0;
    Box::new(move || {
        n += 1;
        Some(format!("task-{n}"))
    })
}

fn tasks_config(tools: TaskTools) -> TaskConfig {
    TaskConfig {
        ttl: Duration::from_secs(60),
        tools,
        ..TaskConfig::default()
    }
}

/// Results forwarded unchecked (the router has no tool list here).
fn unchecked() -> BridgeConfig {
    let mut cfg = config();
    cfg.on_invalid = OnInvalid::Pass;
    cfg
}

type Layer = TaskLayer<Router>;

/// A task layer around a router whose link is not open yet.
fn layer_with(tasks: TaskConfig) -> Sim<Layer> {
    Sim::new(|now| {
        let router = Router::new(unchecked(), quiet(), false, now);
        TaskLayer::new(router, tasks, now, wall(), counted_ids())
    })
}

/// A task layer (every tool a task tool) around a router whose link is open.
fn connected() -> Sim<Layer> {
    let mut sim = layer_with(tasks_config(TaskTools::All));
    sim.link(0, LinkEvent::Opened { gen: 1 });
    sim
}

const CAPS: &str = r#""io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{}}"#;
const NO_CAPS: &str = r#""io.modelcontextprotocol/clientCapabilities":{}"#;

fn call(id: u32, tool: &str, caps: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{"samples":3}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28",{caps},"progressToken":9,"io.modelcontextprotocol/logLevel":"debug"}}}}}}"#
    )
}

fn request(id: u32, method: &str, params: &str, caps: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28",{caps}}}}}}}"#
    )
}

fn get(id: u32, task: &str) -> String {
    request(id, "tasks/get", &format!(r#""taskId":"{task}","#), CAPS)
}

/// The call the device gets for round `n` of the tool (`extra`: members after `arguments`).
fn device_call(n: u32, tool: &str, extra: &str) -> String {
    format!(
        r#"{{"id":"embedded-mcp-task-{n}","jsonrpc":"2.0","method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{}},"extensions":{{"io.modelcontextprotocol/tasks":{{}}}}}},"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"embedded-mcp-task-{n}"}},"arguments":{{"samples":3}}{extra},"name":"{tool}"}}}}"#
    )
}

const TIMES: &str = r#""createdAt":"2026-07-28T10:30:00.000Z","lastUpdatedAt":"2026-07-28T10:30:00.000Z","ttlMs":60000,"pollIntervalMs":500"#;

const RESULT: &str = r#"{"content":[{"type":"text","text":"21.50"}],"structuredContent":{"average":21.5},"isError":false,"resultType":"complete"}"#;

/// A task layer around a hub (every tool a task tool) of `m1` (tool `a`) and `m2` (tool `b`), both listed.
fn listed_hub() -> Sim<TaskLayer<Hub>> {
    let mut sim = Sim::new(|now| {
        let mut cfg = hub_config(&["m1", "m2"]);
        cfg.on_invalid = OnInvalid::Pass;
        let hub = Hub::new(&cfg, quiet(), now);
        TaskLayer::new(
            hub,
            tasks_config(TaskTools::All),
            now,
            wall(),
            counted_ids(),
        )
    });
    for (device, tool) in [(0, "a"), (1, "b")] {
        sim.link(device, LinkEvent::Opened { gen: 1 });
        let init = r#"{"protocolVersion":"2025-11-25","capabilities":{}}"#;
        let list =
            format!(r#"{{"tools":[{{"name":"{tool}","inputSchema":{{"type":"object"}}}}]}}"#);
        for result in [init, &list] {
            let (_, _, line) = sim.device.last().unwrap().clone();
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            sim.device_line(
                device,
                1,
                &format!(r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#, v["id"]),
            );
        }
    }
    sim.device.clear();
    sim.host_out();
    sim
}

#[test]
fn a_call_becomes_a_task_once_the_device_has_it_and_is_polled_to_its_result() {
    let mut sim = layer_with(tasks_config(TaskTools::All));
    sim.host_line(&call(5, "sample_temperature", CAPS));
    assert!(sim.device_out().is_empty(), "the link is not open yet");
    assert!(
        sim.host_out().is_empty(),
        "no task before the device has the call"
    );
    sim.advance(Duration::from_millis(250));
    sim.link(0, LinkEvent::Opened { gen: 1 });
    assert_eq!(sim.device_out(), [device_call(1, "sample_temperature", "")]);
    let created = format!(
        r#"{{"jsonrpc":"2.0","id":5,"result":{{"resultType":"task","taskId":"task-1","status":"working",{}}}}}"#,
        TIMES.replace("00.000Z", "00.250Z")
    );
    assert_eq!(sim.host_out(), [created]);

    sim.advance(Duration::from_millis(750));
    let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"embedded-mcp-task-1","progress":1,"total":3}}"#;
    sim.device_line(0, 1, progress);
    assert!(
        sim.host_out().is_empty(),
        "progress does not flow on a task"
    );
    sim.host_line(&get(6, "task-1"));
    assert_eq!(
        sim.host_out(),
        [
            r#"{"jsonrpc":"2.0","id":6,"result":{"resultType":"complete","taskId":"task-1","status":"working","statusMessage":"1 of 3","createdAt":"2026-07-28T10:30:00.250Z","lastUpdatedAt":"2026-07-28T10:30:01.000Z","ttlMs":60000,"pollIntervalMs":500}}"#
        ]
    );

    sim.advance(Duration::from_millis(1000));
    let answer = format!(r#"{{"jsonrpc":"2.0","id":"embedded-mcp-task-1","result":{RESULT}}}"#);
    sim.device_line(0, 1, &answer);
    assert!(sim.host_out().is_empty(), "the result waits in the task");
    sim.host_line(&get(7, "task-1"));
    assert_eq!(
        sim.host_out(),
        [format!(
            r#"{{"jsonrpc":"2.0","id":7,"result":{{"resultType":"complete","taskId":"task-1","status":"completed","createdAt":"2026-07-28T10:30:00.250Z","lastUpdatedAt":"2026-07-28T10:30:02.000Z","ttlMs":60000,"pollIntervalMs":500,"result":{RESULT}}}}}"#
        )]
    );
}

#[test]
fn a_call_the_device_never_got_is_answered_under_the_clients_id() {
    let mut sim = layer_with(tasks_config(TaskTools::All));
    sim.host_line(&call(5, "sample_temperature", CAPS));
    sim.advance(Duration::from_secs(10));
    assert_eq!(
        sim.host_out(),
        [
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32001,"message":"The device was not reachable within 10000 ms (still connecting)"}}"#
        ]
    );
    // Its place in the table was given back: a table of one still takes a task.
    let mut sim = layer_with(TaskConfig {
        max_tasks: 1,
        ..tasks_config(TaskTools::All)
    });
    sim.host_line(&call(5, "sample_temperature", CAPS));
    sim.advance(Duration::from_secs(10));
    sim.host_out();
    sim.link(0, LinkEvent::Opened { gen: 1 });
    sim.host_line(&call(6, "sample_temperature", CAPS));
    assert!(sim.host_out()[0].contains(r#""resultType":"task""#));
}

#[test]
fn a_client_cancelling_its_call_before_the_device_has_it_gets_no_task() {
    let mut sim = layer_with(tasks_config(TaskTools::All));
    sim.host_line(&call(5, "sample_temperature", CAPS));
    sim.host_line(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#,
    );
    sim.link(0, LinkEvent::Opened { gen: 1 });
    assert!(sim.device_out().is_empty(), "the queued call was dropped");
    sim.advance(Duration::from_secs(30));
    assert!(sim.host_out().is_empty());
}

#[test]
fn tasks_cancel_cancels_the_device_call_and_its_late_answer_is_dropped() {
    let mut sim = connected();
    sim.host_line(&call(5, "sample_temperature", CAPS));
    sim.device_out();
    sim.host_out();
    sim.host_line(&request(6, "tasks/cancel", r#""taskId":"task-1","#, CAPS));
    assert_eq!(
        sim.device_out(),
        [
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"embedded-mcp-task-1","reason":"the client cancelled the task"}}"#
        ]
    );
    assert_eq!(
        sim.host_out(),
        [r#"{"jsonrpc":"2.0","id":6,"result":{"resultType":"complete"}}"#]
    );
    sim.host_line(&get(7, "task-1"));
    assert_eq!(
        sim.host_out(),
        [format!(
            r#"{{"jsonrpc":"2.0","id":7,"result":{{"resultType":"complete","taskId":"task-1","status":"cancelled","statusMessage":"Cancelled by the client",{TIMES}}}}}"#
        )]
    );
    // Cancelling again (or a finished task) is acknowledged the same, and changes nothing.
    sim.host_line(&request(8, "tasks/cancel", r#""taskId":"task-1","#, CAPS));
    assert_eq!(
        sim.host_out(),
        [r#"{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete"}}"#]
    );
    assert!(sim.device_out().is_empty());
    // Neither the device's late answer nor the router's timeout reaches the client.
    let answer = format!(r#"{{"jsonrpc":"2.0","id":"embedded-mcp-task-1","result":{RESULT}}}"#);
    sim.device_line(0, 1, &answer);
    sim.advance(Duration::from_secs(70));
    assert!(sim.host_out().is_empty());
    // The device is free: the next call goes through as usual.
    let plain = call(9, "read_temperature", NO_CAPS);
    sim.host_line(&plain);
    assert_eq!(sim.device_out(), [plain]);
}

#[test]
fn input_required_waits_for_tasks_update_then_the_device_gets_the_call_again() {
    let mut sim = connected();
    sim.host_line(&call(5, "set_relay", CAPS));
    sim.device_out();
    sim.host_out();
    let ask = r#"{"jsonrpc":"2.0","id":"embedded-mcp-task-1","result":{"resultType":"input_required","inputRequests":{"approve":{"method":"elicitation/create","params":{"message":"Switch relay 0 on?"}}},"requestState":"sealed-1"}}"#;
    sim.device_line(0, 1, ask);
    sim.host_line(&get(6, "task-1"));
    assert_eq!(
        sim.host_out(),
        [
            r#"{"jsonrpc":"2.0","id":6,"result":{"resultType":"complete","taskId":"task-1","status":"input_required","statusMessage":"The device asks for input","createdAt":"2026-07-28T10:30:00.000Z","lastUpdatedAt":"2026-07-28T10:30:00.000Z","ttlMs":60000,"pollIntervalMs":500,"inputRequests":{"approve":{"method":"elicitation/create","params":{"message":"Switch relay 0 on?"}}}}}"#
        ]
    );
    // A key that is not outstanding is ignored (and acknowledged).
    let update = |id: u32, answers: &str| {
        request(
            id,
            "tasks/update",
            &format!(r#""taskId":"task-1","inputResponses":{answers},"#),
            CAPS,
        )
    };
    sim.host_line(&update(7, r#"{"other":{"action":"accept"}}"#));
    assert_eq!(
        sim.host_out(),
        [r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete"}}"#]
    );
    assert!(sim.device_out().is_empty());
    sim.host_line(&update(
        8,
        r#"{"approve":{"action":"accept","content":{"confirm":true}}}"#,
    ));
    assert_eq!(
        sim.device_out(),
        [device_call(
            2,
            "set_relay",
            r#","inputResponses":{"approve":{"action":"accept","content":{"confirm":true}}}"#
        )
        .replace(
            r#""name":"set_relay""#,
            r#""name":"set_relay","requestState":"sealed-1""#
        )]
    );
    assert_eq!(
        sim.host_out(),
        [r#"{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete"}}"#]
    );
    sim.host_line(&get(9, "task-1"));
    assert!(sim.host_out()[0].contains(r#""status":"working""#));
    let answer = format!(r#"{{"jsonrpc":"2.0","id":"embedded-mcp-task-2","result":{RESULT}}}"#);
    sim.device_line(0, 1, &answer);
    sim.host_line(&get(10, "task-1"));
    assert!(sim.host_out()[0].ends_with(&format!(r#""status":"completed","createdAt":"2026-07-28T10:30:00.000Z","lastUpdatedAt":"2026-07-28T10:30:00.000Z","ttlMs":60000,"pollIntervalMs":500,"result":{RESULT}}}}}"#)));
}

#[test]
fn a_device_error_fails_the_task_with_that_error() {
    let mut sim = connected();
    sim.host_line(&call(5, "sample_temperature", CAPS));
    sim.host_out();
    sim.device_line(
        0,
        1,
        r#"{"jsonrpc":"2.0","id":"embedded-mcp-task-1","error":{"code":-32603,"message":"sensor bus stuck"}}"#,
    );
    sim.host_line(&get(6, "task-1"));
    assert_eq!(
        sim.host_out(),
        [format!(
            r#"{{"jsonrpc":"2.0","id":6,"result":{{"resultType":"complete","taskId":"task-1","status":"failed","statusMessage":"sensor bus stuck",{TIMES},"error":{{"code":-32603,"message":"sensor bus stuck"}}}}}}"#
        )]
    );
}

#[test]
fn the_task_surface_is_gated_on_the_extension_and_unknown_ids_are_invalid() {
    let mut sim = connected();
    sim.host_line(&request(1, "tasks/get", r#""taskId":"x","#, NO_CAPS));
    sim.host_line(&get(2, "nope"));
    sim.host_line(&request(3, "tasks/result", r#""taskId":"x","#, CAPS));
    sim.host_line(&request(4, "tasks/get", "", CAPS));
    assert_eq!(
        sim.host_out(),
        [
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing required client capability: tasks/get needs the io.modelcontextprotocol/tasks extension in the request's clientCapabilities","data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Failed to retrieve task: Task not found (unknown, or expired)"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: tasks/result (the tasks extension has tasks/get, tasks/update and tasks/cancel)"}}"#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: tasks/get needs \"taskId\" (a string)"}}"#,
        ]
    );
    assert!(sim.device_out().is_empty());
    // A call from a client without the extension passes byte for byte.
    let plain = call(5, "sample_temperature", NO_CAPS);
    sim.host_line(&plain);
    assert_eq!(sim.device_out(), [plain]);
}

#[test]
fn the_firmwares_marks_choose_the_task_tools_and_required_needs_the_extension() {
    let mut sim = layer_with(tasks_config(TaskTools::Marked));
    sim.link(0, LinkEvent::Opened { gen: 1 });
    let list = request(1, "tools/list", "", CAPS);
    sim.host_line(&list);
    sim.device_out();
    let listed = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"greet","inputSchema":{"type":"object"}},{"name":"slow","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}},{"name":"job","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}}"#;
    sim.device_line(0, 1, listed);
    assert_eq!(sim.host_out(), [listed], "the list passes byte for byte");
    // greet is not marked: a plain call even with the extension.
    let greet = call(2, "greet", CAPS);
    sim.host_line(&greet);
    assert_eq!(sim.device_out(), [greet]);
    // job is required: refused without the extension, before the device hears of it.
    sim.host_line(&call(3, "job", NO_CAPS));
    assert_eq!(
        sim.host_out(),
        [
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32021,"message":"Missing required client capability: tool \"job\" runs only as a task (io.modelcontextprotocol/tasks)","data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}"#
        ]
    );
    assert!(sim.device_out().is_empty());
    // slow is optional: plain without the extension, a task with it.
    let slow = call(4, "slow", NO_CAPS);
    sim.host_line(&slow);
    assert_eq!(sim.device_out(), [slow]);
    sim.host_line(&call(5, "slow", CAPS));
    assert!(sim.host_out()[0]
        .starts_with(r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"task","taskId":"task-1""#));
}

#[test]
fn server_discover_advertises_the_extension() {
    let mut sim = connected();
    sim.host_line(&request(1, "server/discover", "", NO_CAPS));
    sim.device_out();
    sim.device_line(
        0,
        1,
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","capabilities":{"tools":{}},"serverInfo":{"name":"d","version":"1"}}}"#,
    );
    assert_eq!(
        sim.host_out(),
        [
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}},"tools":{}},"serverInfo":{"name":"d","version":"1"}}}"#
        ]
    );
}

#[test]
fn a_full_table_refuses_a_new_task_and_keeps_the_running_one() {
    let mut sim = layer_with(TaskConfig {
        max_tasks: 1,
        ..tasks_config(TaskTools::All)
    });
    sim.link(0, LinkEvent::Opened { gen: 1 });
    sim.host_line(&call(5, "sample_temperature", CAPS));
    sim.device_out();
    sim.host_out();
    sim.host_line(&call(6, "sample_temperature", CAPS));
    assert_eq!(
        sim.host_out(),
        [
            r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32603,"message":"Task refused: the bridge holds 1 tasks, none of them finished, its limit (--max-tasks); try again when one has finished"}}"#
        ]
    );
    assert!(sim.device_out().is_empty(), "the device never hears of it");
    sim.host_line(&get(7, "task-1"));
    assert!(sim.host_out()[0].contains(r#""status":"working""#));
}

#[test]
fn a_finished_task_expires_at_its_ttl_under_simulated_time() {
    let mut sim = connected();
    sim.host_line(&call(5, "sample_temperature", CAPS));
    sim.host_out();
    let answer = format!(r#"{{"jsonrpc":"2.0","id":"embedded-mcp-task-1","result":{RESULT}}}"#);
    sim.device_line(0, 1, &answer);
    sim.advance(Duration::from_millis(59_999));
    sim.host_line(&get(6, "task-1"));
    assert!(
        sim.host_out()[0].contains(r#""status":"completed""#),
        "kept for its TTL"
    );
    assert_eq!(
        sim.machine.poll_timeout(),
        Some(sim.t0 + Duration::from_secs(60))
    );
    sim.advance(Duration::from_millis(1));
    sim.host_line(&get(7, "task-1"));
    assert_eq!(
        sim.host_out(),
        [
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Failed to retrieve task: Task not found (unknown, or expired)"}}"#
        ]
    );
}

#[test]
fn a_hub_serves_tasks_for_each_device() {
    let mut sim = listed_hub();
    sim.host_line(&call(5, "m2.b", CAPS));
    let (device, _, line) = sim.device.pop().unwrap();
    assert_eq!(device, 1, "the call went to m2");
    assert!(line.contains(r#""progressToken":"embedded-mcp-task-1""#));
    assert!(sim.host_out()[0].contains(r#""taskId":"task-1","status":"working""#));
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    sim.device_line(
        1,
        1,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"embedded-mcp-task-1","progress":1,"message":"half way"}}"#,
    );
    assert!(sim.host_out().is_empty());
    sim.device_line(
        1,
        1,
        &format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"content":[]}}}}"#,
            v["id"]
        ),
    );
    assert!(sim.host_out().is_empty());
    sim.host_line(&get(6, "task-1"));
    assert!(sim.host_out()[0].ends_with(r#""status":"completed","createdAt":"2026-07-28T10:30:00.000Z","lastUpdatedAt":"2026-07-28T10:30:00.000Z","ttlMs":60000,"pollIntervalMs":500,"result":{"resultType":"complete","content":[]}}}"#));
}

#[test]
fn task_tools_named_on_the_command_line_win_over_the_firmwares_marks() {
    let named = |name: &str, required| NamedTool {
        name: name.into(),
        required,
        ask_first: false,
    };
    let tools = TaskTools::Named(vec![named("greet", false), named("job", true)]);
    let mut sim = layer_with(tasks_config(tools));
    sim.link(0, LinkEvent::Opened { gen: 1 });
    sim.host_line(&request(1, "tools/list", "", CAPS));
    let listed = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"greet","inputSchema":{"type":"object"},"execution":{"taskSupport":"forbidden"}},{"name":"slow","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}}"#;
    sim.device_line(0, 1, listed);
    sim.device_out();
    sim.host_out();
    sim.host_line(&call(2, "job", NO_CAPS));
    assert!(sim.host_out()[0].contains(r#""code":-32021"#));
    sim.host_line(&call(3, "greet", CAPS));
    assert!(
        sim.host_out()[0].contains(r#""taskId":"task-1""#),
        "named: a task"
    );
    sim.host_line(&call(4, "slow", CAPS));
    assert!(
        sim.host_out()[0].contains(r#""taskId":"task-2""#),
        "marked: a task"
    );
    let other = call(5, "other", CAPS);
    sim.host_line(&other);
    assert!(sim.host_out().is_empty());
    assert_eq!(
        sim.device_out().last(),
        Some(&other),
        "neither: a plain call"
    );
}

#[test]
fn a_request_state_alone_is_sent_back_at_once_and_endless_rounds_end() {
    let mut sim = connected();
    sim.host_line(&call(5, "set_relay", CAPS));
    sim.device_out();
    sim.host_out();
    for n in 1..=17 {
        let again = format!(
            r#"{{"jsonrpc":"2.0","id":"embedded-mcp-task-{n}","result":{{"resultType":"input_required","requestState":"s{n}"}}}}"#
        );
        sim.device_line(0, 1, &again);
        let sent = sim.device_out();
        if n <= 16 {
            assert_eq!(sent.len(), 1, "round {n}");
            assert!(
                sent[0].contains(&format!(r#""requestState":"s{n}""#)),
                "{sent:?}"
            );
        } else {
            assert!(sent.is_empty(), "given up");
        }
    }
    assert!(sim.host_out().is_empty());
    sim.host_line(&get(6, "task-1"));
    assert!(sim.host_out()[0].contains(r#""status":"failed","statusMessage":"The device asked for input more than 16 times; the bridge gave the call up""#));
}

#[test]
fn a_legacy_call_is_an_ordinary_call_even_of_a_required_tool() {
    let tools = TaskTools::Named(vec![NamedTool {
        name: "job".into(),
        required: true,
        ask_first: false,
    }]);
    let mut sim = layer_with(tasks_config(tools));
    sim.link(0, LinkEvent::Opened { gen: 1 });
    let legacy = call(1, "job", CAPS).replace("2026-07-28", "2025-11-25");
    sim.host_line(&legacy);
    assert_eq!(sim.device_out(), [legacy]);
    assert!(sim.host_out().is_empty());
}

mod ask_first;
mod listen;
mod places;

/// A task is its maker's: another client (or a line naming none) gets the "unknown task"
/// error, as for a task that never was; its maker polls it as usual.
#[test]
fn a_task_made_by_one_client_is_unknown_to_another() {
    use crate::bridge::machine::Input;
    let mut sim = connected();
    let from = |sim: &mut Sim<Layer>, client: Option<&str>, line: String| {
        let input = match client {
            Some(client) => Input::ClientLine {
                asker: None,
                msg: None,
                line: line.into_bytes(),
                client: Some(client.into()),
            },
            None => Input::HostLine(line.into_bytes()),
        };
        sim.input(input);
        sim.host_out()
    };
    let created = from(&mut sim, Some("A"), call(5, "sample_temperature", CAPS));
    assert!(created[0].contains(r#""taskId":"task-1""#), "{created:?}");
    let unknown = r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Failed to retrieve task: Task not found (unknown, or expired)"}}"#;
    assert_eq!(from(&mut sim, Some("B"), get(6, "task-1")), [unknown]);
    assert_eq!(from(&mut sim, None, get(6, "task-1")), [unknown]);
    let cancel = request(6, "tasks/cancel", r#""taskId":"task-1","#, CAPS);
    assert_eq!(from(&mut sim, Some("B"), cancel), [unknown]);
    let mine = from(&mut sim, Some("A"), get(7, "task-1"));
    assert!(mine[0].contains(r#""status":"working""#), "{mine:?}");
}
