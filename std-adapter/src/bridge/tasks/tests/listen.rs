//! `notifications/tasks` under simulated time: on the hub's listen streams (stdio), and every
//! change untagged for the HTTP front.

use std::time::Duration;

use super::*;
use crate::bridge::tasks::StatusLines;

/// The id the device got its last line under.
fn last_device_id(sim: &mut Sim<TaskLayer<Hub>>) -> serde_json::Value {
    let (_, _, line) = sim.device.pop().unwrap();
    serde_json::from_str::<serde_json::Value>(&line).unwrap()["id"].clone()
}

fn listen(id: &str, notifications: &str, caps: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen","params":{{"notifications":{notifications},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28",{caps}}}}}}}"#
    )
}

const TAG3: &str = r#""_meta":{"io.modelcontextprotocol/subscriptionId":3}"#;

#[test]
fn a_hub_listen_stream_gets_the_tasks_it_asked_for_from_working_to_completed() {
    let mut sim = listed_hub();
    sim.host_line(&call(5, "m2.b", CAPS));
    let device_id = last_device_id(&mut sim);
    assert!(sim.host_out()[0].contains(r#""taskId":"task-1","status":"working""#));

    sim.advance(Duration::from_millis(500));
    let asked = r#"{"toolsListChanged":true,"taskIds":["task-1","nope","task-1"]}"#;
    sim.host_line(&listen("3", asked, CAPS));
    sim.host_line(&listen(r#""other""#, r#"{"toolsListChanged":true}"#, CAPS));
    assert_eq!(
        sim.host_out(),
        [
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{{"notifications":{{"taskIds":["task-1"],"toolsListChanged":true}},{TAG3}}}}}"#
            ),
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/tasks","params":{{"taskId":"task-1","status":"working",{TIMES},{TAG3}}}}}"#
            ),
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":"other"}}}"#.to_owned(),
        ]
    );

    sim.advance(Duration::from_millis(500));
    let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"embedded-mcp-task-1","progress":1,"message":"half way"}}"#;
    sim.device_line(1, 1, progress);
    assert!(
        sim.host_out().is_empty(),
        "a progress message is no change of status"
    );

    sim.advance(Duration::from_millis(1000));
    let answer = format!(r#"{{"jsonrpc":"2.0","id":{device_id},"result":{{"content":[]}}}}"#);
    sim.device_line(1, 1, &answer);
    assert_eq!(
        sim.host_out(),
        [format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/tasks","params":{{"taskId":"task-1","status":"completed","createdAt":"2026-07-28T10:30:00.000Z","lastUpdatedAt":"2026-07-28T10:30:02.000Z","ttlMs":60000,"pollIntervalMs":500,"result":{{"resultType":"complete","content":[]}},{TAG3}}}}}"#
        )]
    );
    sim.advance(Duration::from_secs(1));
    sim.host_line(&get(6, "task-1"));
    assert_eq!(
        sim.host_out().len(),
        1,
        "told once: the status did not change"
    );
}

#[test]
fn task_ids_without_the_extension_get_32021_and_the_next_request_is_served() {
    let mut sim = listed_hub();
    sim.host_line(&listen("3", r#"{"taskIds":["task-1"]}"#, NO_CAPS));
    assert_eq!(
        sim.host_out(),
        [
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32021,"message":"Missing required client capability: taskIds on subscriptions/listen need the tasks extension","data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}"#
        ]
    );
    sim.host_line(&listen("4", r#"{"taskIds":[]}"#, CAPS));
    assert_eq!(
        sim.host_out(),
        [
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"taskIds":[]},"_meta":{"io.modelcontextprotocol/subscriptionId":4}}}"#
        ]
    );
}

#[test]
fn a_cancelled_listen_stream_hears_no_more() {
    let mut sim = listed_hub();
    sim.host_line(&call(5, "m1.a", CAPS));
    let device_id = last_device_id(&mut sim);
    sim.host_line(&listen("3", r#"{"taskIds":["task-1"]}"#, CAPS));
    assert_eq!(sim.host_out().len(), 3, "created, acknowledged, working");
    sim.host_line(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#,
    );
    let answer = format!(r#"{{"jsonrpc":"2.0","id":{device_id},"result":{{"content":[]}}}}"#);
    sim.device_line(0, 1, &answer);
    assert!(sim.host_out().is_empty());
}

#[test]
fn for_the_http_front_every_change_goes_out_untagged() {
    let mut tasks = tasks_config(TaskTools::All);
    tasks.status_lines = StatusLines::Front;
    let mut sim = layer_with(tasks);
    sim.link(0, LinkEvent::Opened { gen: 1 });
    sim.host_line(&call(5, "set_relay", CAPS));
    let out = sim.host_out();
    assert_eq!(out.len(), 2);
    assert_eq!(
        out[1],
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/tasks","params":{{"taskId":"task-1","status":"working",{TIMES}}}}}"#
        )
    );

    sim.advance(Duration::from_secs(1));
    let asks = r#"{"jsonrpc":"2.0","id":"embedded-mcp-task-1","result":{"resultType":"input_required","inputRequests":{"ok":{"method":"elicitation/create","params":{"mode":"form","message":"Switch relay 0 on?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s1"}}"#;
    sim.device_line(0, 1, asks);
    assert_eq!(
        sim.host_out(),
        [
            r#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"task-1","status":"input_required","statusMessage":"The device asks for input","createdAt":"2026-07-28T10:30:00.000Z","lastUpdatedAt":"2026-07-28T10:30:01.000Z","ttlMs":60000,"pollIntervalMs":500,"inputRequests":{"ok":{"method":"elicitation/create","params":{"message":"Switch relay 0 on?","mode":"form","requestedSchema":{"properties":{},"type":"object"}}}}}}"#
        ]
    );

    sim.advance(Duration::from_secs(1));
    let update = request(
        6,
        "tasks/update",
        r#""taskId":"task-1","inputResponses":{"ok":{"action":"accept","content":{}}},"#,
        CAPS,
    );
    sim.host_line(&update);
    assert_eq!(
        sim.host_out(),
        [
            r#"{"jsonrpc":"2.0","id":6,"result":{"resultType":"complete"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"task-1","status":"working","createdAt":"2026-07-28T10:30:00.000Z","lastUpdatedAt":"2026-07-28T10:30:02.000Z","ttlMs":60000,"pollIntervalMs":500}}"#
        ]
    );
    sim.advance(Duration::from_secs(1));
    let answer = format!(r#"{{"jsonrpc":"2.0","id":"embedded-mcp-task-2","result":{RESULT}}}"#);
    sim.device_line(0, 1, &answer);
    assert_eq!(
        sim.host_out(),
        [format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/tasks","params":{{"taskId":"task-1","status":"completed","createdAt":"2026-07-28T10:30:00.000Z","lastUpdatedAt":"2026-07-28T10:30:03.000Z","ttlMs":60000,"pollIntervalMs":500,"result":{RESULT}}}}}"#
        )]
    );
}
