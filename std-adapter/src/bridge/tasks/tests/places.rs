//! The table's places under simulated time: finished tasks give theirs up first (readable
//! until then), `tasks/cancel` frees one, and a call is refused when the OS gives no id.

use super::*;

/// A layer holding at most `max` tasks, its link open.
fn small(max: usize) -> Sim<Layer> {
    let mut sim = layer_with(TaskConfig {
        max_tasks: max,
        ..tasks_config(TaskTools::All)
    });
    sim.link(0, LinkEvent::Opened { gen: 1 });
    sim
}

/// Task `n` (the client's call `id`) is created, then its call answered by the device.
fn short_task(sim: &mut Sim<Layer>, id: u32, n: u32) {
    sim.host_line(&call(id, "read_temperature", CAPS));
    let created = sim.host_out();
    assert!(
        created[0].contains(&format!(r#""taskId":"task-{n}","status":"working""#)),
        "{created:?}"
    );
    let answer = format!(r#"{{"jsonrpc":"2.0","id":"embedded-mcp-task-{n}","result":{RESULT}}}"#);
    sim.device_line(0, 1, &answer);
    sim.advance(Duration::from_millis(10));
}

fn status_of(sim: &mut Sim<Layer>, id: u32, task: &str) -> String {
    sim.host_line(&get(id, task));
    let out = sim.host_out();
    let v: serde_json::Value = serde_json::from_str(&out[0]).unwrap();
    v["result"]["status"]
        .as_str()
        .map_or_else(|| v["error"]["message"].to_string(), str::to_owned)
}

#[test]
fn three_finished_tasks_do_not_block_a_fourth_at_max_tasks_3() {
    let mut sim = small(3);
    for n in 1..=3 {
        short_task(&mut sim, 10 + n, n);
    }
    // Each finished task is still readable while the table has room for none.
    for n in 1..=3 {
        assert_eq!(
            status_of(&mut sim, 20 + n, &format!("task-{n}")),
            "completed"
        );
    }
    short_task(&mut sim, 14, 4);
    // task-1 finished first: it gave its place up.
    assert_eq!(
        status_of(&mut sim, 31, "task-1"),
        r#""Failed to retrieve task: Task not found (unknown, or expired)""#
    );
    for n in 2..=4 {
        assert_eq!(
            status_of(&mut sim, 30 + n, &format!("task-{n}")),
            "completed"
        );
    }
}

#[test]
fn tasks_cancel_frees_a_place_and_running_tasks_keep_theirs() {
    let mut sim = small(2);
    sim.host_line(&call(5, "sample_temperature", CAPS));
    sim.host_line(&call(6, "sample_temperature", CAPS));
    sim.host_out();
    sim.device_out();
    // Both run: a third is refused, and nothing is dropped for it.
    sim.host_line(&call(7, "sample_temperature", CAPS));
    assert!(sim.host_out()[0].contains("none of them finished"));
    // The client cancels task-1: its place is the newcomer's.
    sim.host_line(&request(8, "tasks/cancel", r#""taskId":"task-1","#, CAPS));
    assert_eq!(sim.device_out().len(), 1, "the device is told to stop");
    sim.host_out();
    assert_eq!(status_of(&mut sim, 9, "task-1"), "cancelled");
    // (The refused call used id task-3: an id is drawn before the table is asked.)
    sim.host_line(&call(10, "sample_temperature", CAPS));
    assert!(sim.host_out()[0].contains(r#""taskId":"task-4","status":"working""#));
    assert_eq!(status_of(&mut sim, 11, "task-2"), "working");
    // task-1's late answer finds nothing.
    let late = format!(r#"{{"jsonrpc":"2.0","id":"embedded-mcp-task-1","result":{RESULT}}}"#);
    sim.device_line(0, 1, &late);
    assert!(sim.host_out().is_empty());
}

#[test]
fn no_randomness_from_the_os_refuses_the_call_and_makes_no_task() {
    let mut sim = Sim::new(|now| {
        let router = Router::new(unchecked(), quiet(), false, now);
        let no_ids: super::super::layer::TaskIds = Box::new(|| None);
        TaskLayer::new(router, tasks_config(TaskTools::All), now, wall(), no_ids)
    });
    sim.link(0, LinkEvent::Opened { gen: 1 });
    sim.host_line(&call(5, "sample_temperature", CAPS));
    assert_eq!(
        sim.host_out(),
        [
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Task refused: the operating system gave no randomness for an unguessable task id"}}"#
        ]
    );
    assert!(sim.device_out().is_empty(), "the device never hears of it");
    // An ordinary call still goes through.
    let plain = call(6, "read_temperature", NO_CAPS);
    sim.host_line(&plain);
    assert_eq!(sim.device_out(), [plain]);
}
