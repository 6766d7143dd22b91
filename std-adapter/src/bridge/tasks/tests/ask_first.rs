//! `ask-first` task tools under simulated time: the first round (no `inputResponses`) is an
//! ordinary call whose answer goes back synchronously, and the retry carrying the answers
//! becomes a task (the MRTR → tasks composition); an ordinary task tool still asks inside its
//! task.

use super::*;

/// `composed` (required, ask-first) and `confirm` (optional, asks inside its task).
fn composing() -> Sim<Layer> {
    let tools = TaskTools::Named(vec![
        NamedTool {
            name: "composed".into(),
            required: true,
            ask_first: true,
        },
        NamedTool {
            name: "confirm".into(),
            required: false,
            ask_first: false,
        },
    ]);
    let mut sim = layer_with(tasks_config(tools));
    sim.link(0, LinkEvent::Opened { gen: 1 });
    sim
}

const ASKS: &str = r#""resultType":"input_required","inputRequests":{"user_name":{"method":"elicitation/create","params":{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}},"requestState":"s1""#;

const ANSWERS: &str =
    r#""inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}}"#;

/// Client call `id` of `tool` that carries the answers to round 1 and its `requestState`.
fn retry(id: u32, tool: &str) -> String {
    call(id, tool, CAPS).replace(
        r#""arguments":{"samples":3},"#,
        &format!(r#""arguments":{{"samples":3}},{ANSWERS},"requestState":"s1","#),
    )
}

#[test]
fn an_ask_first_tool_answers_round_one_synchronously_and_its_retry_becomes_a_task() {
    let mut sim = composing();
    // Round 1: an ordinary call, as the client sent it; no task.
    let first = call(5, "composed", CAPS);
    sim.host_line(&first);
    assert_eq!(sim.device_out(), [first]);
    assert!(sim.host_out().is_empty(), "no CreateTaskResult");
    sim.advance(Duration::from_millis(100));
    let asks = format!(r#"{{"jsonrpc":"2.0","id":5,"result":{{{ASKS}}}}}"#);
    sim.device_line(0, 1, &asks);
    assert_eq!(
        sim.host_out(),
        [asks],
        "input_required, untouched, no taskId"
    );
    sim.host_line(&get(6, "task-1"));
    assert!(
        sim.host_out()[0].contains(r#""code":-32602"#),
        "no task exists"
    );

    // Round 2: the retry with the answers becomes a task, and the device gets them.
    sim.advance(Duration::from_millis(100));
    sim.host_line(&retry(7, "composed"));
    assert_eq!(
        sim.device_out(),
        [device_call(1, "composed", &format!(",{ANSWERS}")).replace(
            r#""name":"composed""#,
            r#""name":"composed","requestState":"s1""#
        )]
    );
    assert_eq!(
        sim.host_out(),
        [
            r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"task","taskId":"task-1","status":"working","createdAt":"2026-07-28T10:30:00.200Z","lastUpdatedAt":"2026-07-28T10:30:00.200Z","ttlMs":60000,"pollIntervalMs":500}}"#
        ]
    );
    sim.advance(Duration::from_millis(300));
    let done = r#"{"content":[{"type":"text","text":"Hello, Alice!"}],"resultType":"complete"}"#;
    sim.device_line(
        0,
        1,
        &format!(r#"{{"jsonrpc":"2.0","id":"embedded-mcp-task-1","result":{done}}}"#),
    );
    assert!(sim.host_out().is_empty(), "the result waits in the task");
    sim.host_line(&get(8, "task-1"));
    assert_eq!(
        sim.host_out(),
        [format!(
            r#"{{"jsonrpc":"2.0","id":8,"result":{{"resultType":"complete","taskId":"task-1","status":"completed","createdAt":"2026-07-28T10:30:00.200Z","lastUpdatedAt":"2026-07-28T10:30:00.500Z","ttlMs":60000,"pollIntervalMs":500,"result":{done}}}}}"#
        )]
    );
}

#[test]
fn an_ask_first_round_one_passes_any_answer_and_required_still_needs_the_extension() {
    let mut sim = composing();
    sim.host_line(&call(1, "composed", NO_CAPS));
    assert!(sim.host_out()[0].contains(r#""code":-32021"#));
    assert!(sim.device_out().is_empty(), "refused before the device");
    sim.host_line(&retry(2, "composed").replace(CAPS, NO_CAPS));
    assert!(sim.host_out()[0].contains(r#""code":-32021"#));
    assert!(sim.device_out().is_empty());

    let first = call(3, "composed", CAPS);
    sim.host_line(&first);
    assert_eq!(sim.device_out(), [first]);
    let error =
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: samples"}}"#;
    sim.device_line(0, 1, error);
    assert_eq!(sim.host_out(), [error], "the device's error, untouched");
}

#[test]
fn an_ordinary_task_tool_still_asks_inside_its_task() {
    let mut sim = composing();
    sim.host_line(&call(5, "confirm", CAPS));
    assert_eq!(sim.device_out(), [device_call(1, "confirm", "")]);
    assert!(sim.host_out()[0].contains(r#""taskId":"task-1","status":"working""#));
    let asks = format!(r#"{{"jsonrpc":"2.0","id":"embedded-mcp-task-1","result":{{{ASKS}}}}}"#);
    sim.device_line(0, 1, &asks);
    assert!(sim.host_out().is_empty(), "the question waits in the task");
    sim.host_line(&get(6, "task-1"));
    let got = &sim.host_out()[0];
    assert!(got.contains(r#""status":"input_required""#), "{got}");
    assert!(got.contains(r#""inputRequests":{"user_name":"#), "{got}");
}

#[test]
fn a_tool_the_firmware_marks_ask_first_answers_round_one_synchronously() {
    let mut sim = layer_with(tasks_config(TaskTools::Marked));
    sim.link(0, LinkEvent::Opened { gen: 1 });
    sim.host_line(&request(1, "tools/list", "", CAPS));
    sim.device_out();
    let listed = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"composed","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"},"_meta":{"embedded-mcp/askFirst":true}},{"name":"confirm","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}}"#;
    sim.device_line(0, 1, listed);
    assert_eq!(sim.host_out(), [listed], "the list passes byte for byte");
    // Round 1 of the marked tool: an ordinary call, no task.
    let first = call(5, "composed", CAPS);
    sim.host_line(&first);
    assert_eq!(sim.device_out(), [first]);
    assert!(sim.host_out().is_empty(), "no CreateTaskResult");
    // An optional tool without the mark becomes a task at once.
    sim.host_line(&call(6, "confirm", CAPS));
    assert!(sim.host_out()[0]
        .starts_with(r#"{"jsonrpc":"2.0","id":6,"result":{"resultType":"task","taskId":"task-1""#));
}
