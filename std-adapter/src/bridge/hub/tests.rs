//! The hub under simulated time: routing by prefix, withdrawal of a device that went away, and
//! the list changes told to 2026-07-28 listen streams.

use std::time::Duration;

use serde_json::Value;

use super::Hub;
use crate::bridge::machine::LinkEvent;
use crate::bridge::sim::{hub_config, quiet, Sim};

/// The id of the newest request written to device `device`.
fn last_id(sim: &Sim<Hub>, device: usize) -> String {
    let (_, _, line) = sim
        .device
        .iter()
        .rev()
        .find(|(d, _, _)| *d == device)
        .expect("a request");
    let v: Value = serde_json::from_str(line).unwrap();
    v["id"].to_string()
}

/// Device `device` (link 1) answers the hub's newest request with `result`.
fn answer(sim: &mut Sim<Hub>, device: usize, result: &str) {
    let id = last_id(sim, device);
    sim.device_line(
        device,
        1,
        &format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#),
    );
}

/// A hub of `m1` (tool `a`) and `m2` (tool `b`), both up and listed, its host initialized.
fn hub() -> Sim<Hub> {
    let mut sim = hub_listed();
    sim.host_line(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#);
    sim.host_out();
    sim.device.clear();
    sim
}

/// A hub of `m1` (tool `a`) and `m2` (tool `b`), both up and listed; its host said nothing yet.
fn hub_listed() -> Sim<Hub> {
    let mut sim = Sim::new(|now| Hub::new(&hub_config(&["m1", "m2"]), quiet(), now));
    assert_eq!(sim.links, vec![(0, 1, 0, true), (1, 1, 0, true)]);
    for (device, tool) in [(0, "a"), (1, "b")] {
        sim.link(device, LinkEvent::Opened { gen: 1 });
        answer(
            &mut sim,
            device,
            r#"{"protocolVersion":"2025-11-25","capabilities":{}}"#,
        );
        let list =
            format!(r#"{{"tools":[{{"name":"{tool}","inputSchema":{{"type":"object"}}}}]}}"#);
        answer(&mut sim, device, &list);
    }
    sim.device.clear();
    sim
}

fn tools_list(sim: &mut Sim<Hub>) -> Vec<String> {
    sim.host_line(r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#);
    let out = sim.host_out();
    let v: Value = serde_json::from_str(out.last().unwrap()).unwrap();
    v["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn calls_go_to_the_device_their_prefix_names_and_come_back_under_the_host_id() {
    let mut sim = hub();
    assert_eq!(tools_list(&mut sim), ["m1.a", "m2.b"]);
    sim.host_line(r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"m2.b","arguments":{"z":1.50,"a":18446744073709551617,"s":"\u00e9"}}}"#);
    let (device, gen, line) = sim.device.pop().unwrap();
    assert_eq!((device, gen), (1, 1));
    // The host's arguments byte for byte, only the tool's name changed.
    assert!(
        line.ends_with(r#","method":"tools/call","params":{"name":"b","arguments":{"z":1.50,"a":18446744073709551617,"s":"\u00e9"}}}"#),
        "{line}"
    );
    let sent: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(sent["params"]["name"], "b");
    let id = sent["id"].to_string();
    sim.device_line(
        1,
        1,
        &format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"n":1.50}}}}"#),
    );
    assert_eq!(
        sim.host_out(),
        vec![r#"{"jsonrpc":"2.0","id":"x","result":{"content":[],"n":1.50}}"#]
    );
    sim.host_line(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"m3.b"}}"#);
    assert_eq!(
        sim.host_out(),
        vec![
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Unknown tool: \"m3.b\" (hub tools are named DEVICE.tool)"}}"#
        ]
    );
}

#[test]
fn a_device_speaks_only_of_its_own_calls_never_for_the_hub() {
    let mut sim = hub();
    // The host's call of m2.b carries token 5; m1 has no call at all.
    sim.host_line(r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"m2.b","arguments":{},"_meta":{"progressToken":5}}}"#);
    let progress = |token: u32, text: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1,"message":"{text}"}}}}"#
        )
    };
    for token in 1..=40 {
        sim.device_line(0, 1, &progress(token, "INJECTED by m1"));
    }
    sim.device_line(0, 1, r#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"forged-1","status":"completed"}}"#);
    // Nor may it speak for the hub's listen streams.
    sim.device_line(0, 1, r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#);
    sim.device_line(
        0,
        1,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#,
    );
    assert!(sim.host_out().is_empty());
    // Its logs pass.
    let log = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"m1 here"}}"#;
    sim.device_line(0, 1, log);
    assert_eq!(sim.host_out(), [log]);
    // m2's own progress for the call it has passes.
    sim.device_line(1, 1, &progress(5, "m2 at work"));
    assert_eq!(sim.host_out(), [progress(5, "m2 at work")]);
    // A device's own request is answered by the bridge, on that device's link only.
    sim.device.clear();
    sim.device_line(
        0,
        1,
        r#"{"jsonrpc":"2.0","id":"s","method":"sampling/createMessage","params":{}}"#,
    );
    assert!(sim.host_out().is_empty());
    let answered: Vec<_> = sim
        .device
        .iter()
        .map(|(d, _, l)| (*d, l.contains(r#""id":"s","error":{"code":-32601"#)))
        .collect();
    assert_eq!(answered, [(0, true)]);
}

#[test]
fn a_device_that_went_away_has_its_tools_withdrawn_after_two_seconds() {
    let mut sim = hub();
    sim.link(
        1,
        LinkEvent::Closed {
            gen: 1,
            why: "end of stream".into(),
        },
    );
    // Its router reconnects; the hub re-lists it, and keeps its tools for now.
    assert_eq!(tools_list(&mut sim), ["m1.a", "m2.b"]);
    sim.advance(Duration::from_millis(1_999));
    assert!(sim.host_out().is_empty());
    sim.advance(Duration::from_millis(1));
    assert_eq!(
        sim.host_out(),
        vec![r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#]
    );
    assert_eq!(tools_list(&mut sim), ["m1.a"]);
    // It comes back: listed again, announced again.
    let gen = sim.links.last().unwrap().1;
    sim.link(1, LinkEvent::Opened { gen });
    // Its router replays the hub's handshake first, then the listing goes out.
    let id = last_id(&sim, 1);
    assert_eq!(id, r#""embedded-mcp-bridge-1""#);
    let init = r#"{"protocolVersion":"2025-11-25","capabilities":{}}"#;
    sim.device_line(
        1,
        gen,
        &format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{init}}}"#),
    );
    let id = last_id(&sim, 1);
    let list = r#"{"tools":[{"name":"b","inputSchema":{"type":"object"}}]}"#;
    sim.device_line(
        1,
        gen,
        &format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{list}}}"#),
    );
    assert_eq!(
        sim.host_out(),
        vec![r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#]
    );
    assert_eq!(tools_list(&mut sim), ["m1.a", "m2.b"]);
}

#[test]
fn a_cancel_reaches_the_device_under_the_hub_id() {
    let mut sim = hub();
    sim.host_line(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"m1.a"}}"#);
    let id = last_id(&sim, 0);
    sim.host_line(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"r"}}"#,
    );
    let cancels: Vec<String> = sim
        .device
        .iter()
        .filter(|(_, _, l)| l.contains("notifications/cancelled"))
        .map(|(d, _, l)| format!("{d} {l}"))
        .collect();
    assert_eq!(
        cancels,
        [
            format!(
                r#"0 {{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"reason":"r","requestId":{id}}}}}"#
            ),
            format!(
                r#"1 {{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"reason":"r","requestId":{id}}}}}"#
            ),
        ]
    );
    // Its answer, if any, finds no job: nothing reaches the host.
    sim.device_line(
        0,
        1,
        &format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#),
    );
    assert!(sim.host_out().is_empty());
}

/// A 2026-07-28 `subscriptions/listen` request with id `id` and `notifications` `filter`.
fn listen(id: &str, filter: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}},"notifications":{filter}}}}}"#
    )
}

/// Device `m2` (index 1) goes away; 2 s later its tools are withdrawn.
fn withdraw_m2(sim: &mut Sim<Hub>) -> Vec<String> {
    let gen = sim.links.iter().rev().find(|l| l.0 == 1).unwrap().1;
    sim.link(
        1,
        LinkEvent::Closed {
            gen,
            why: "end of stream".into(),
        },
    );
    sim.advance(Duration::from_millis(1_999));
    assert!(sim.host_out().is_empty());
    sim.advance(Duration::from_millis(1));
    sim.host_out()
}

/// Device `m2` comes back on its newest link and lists its tool again.
fn bring_back_m2(sim: &mut Sim<Hub>) {
    let gen = sim.links.iter().rev().find(|l| l.0 == 1).unwrap().1;
    sim.link(1, LinkEvent::Opened { gen });
    let id = last_id(sim, 1);
    let init = r#"{"protocolVersion":"2025-11-25","capabilities":{}}"#;
    sim.device_line(
        1,
        gen,
        &format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{init}}}"#),
    );
    let id = last_id(sim, 1);
    let list = r#"{"tools":[{"name":"b","inputSchema":{"type":"object"}}]}"#;
    sim.device_line(
        1,
        gen,
        &format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{list}}}"#),
    );
}

#[test]
fn a_2026_listen_stream_gets_its_acknowledgement_then_each_list_change_tagged_until_cancelled() {
    let mut sim = hub_listed();
    sim.host_line(&listen(
        r#""s\u0031""#,
        r#"{"toolsListChanged":true,"promptsListChanged":true}"#,
    ));
    assert_eq!(
        sim.host_out(),
        vec![
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":"s\u0031"}}}"#
        ]
    );
    // No legacy handshake: the untagged notification is not sent.
    let tagged = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"s\u0031"}}}"#;
    assert_eq!(withdraw_m2(&mut sim), vec![tagged]);
    bring_back_m2(&mut sim);
    assert_eq!(sim.host_out(), vec![tagged]);
    // The host cancels the listen request (the same id, written otherwise): the stream ends,
    // with no answer, and the next change is not told.
    sim.host_line(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s1"}}"#,
    );
    assert!(sim.host_out().is_empty());
    assert!(
        !sim.device.iter().any(|(_, _, l)| l.contains("cancelled")),
        "a listen cancel is the hub's own, not the devices'"
    );
    assert!(withdraw_m2(&mut sim).is_empty());
}

#[test]
fn a_listen_without_tools_list_changed_gets_no_list_changes() {
    let mut sim = hub_listed();
    sim.host_line(&listen("3", r#"{"toolsListChanged":false}"#));
    assert_eq!(
        sim.host_out(),
        vec![
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#
        ]
    );
    assert!(withdraw_m2(&mut sim).is_empty());
}

#[test]
fn two_listen_streams_each_get_their_own_tag_and_a_legacy_host_its_plain_notification() {
    let mut sim = hub();
    sim.host_line(&listen("1", r#"{"toolsListChanged":true}"#));
    sim.host_line(&listen("2", r#"{"toolsListChanged":true}"#));
    assert_eq!(sim.host_out().len(), 2);
    assert_eq!(
        withdraw_m2(&mut sim),
        vec![
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}"#,
        ]
    );
}

#[test]
fn a_listen_request_must_be_2026_and_name_its_notifications() {
    let mut sim = hub_listed();
    sim.host_line(r#"{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}"#);
    sim.host_line(&listen("6", "[]"));
    assert_eq!(
        sim.host_out(),
        vec![
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found: subscriptions/listen is a 2026-07-28 request"}}"#,
            r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid params: subscriptions/listen needs a \"notifications\" object"}}"#,
        ]
    );
    assert!(withdraw_m2(&mut sim).is_empty());
}

#[test]
fn the_hub_stopping_ends_each_open_listen_stream_with_a_cancel() {
    let mut sim = hub_listed();
    sim.host_line(&listen("1", r#"{"toolsListChanged":true}"#));
    sim.host_line(&listen(r#""two""#, "{}"));
    sim.host_line(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
    );
    sim.host_line(&listen("3", r#"{"toolsListChanged":true}"#));
    assert_eq!(sim.host_out().len(), 3);
    sim.stop();
    assert_eq!(
        sim.host_out(),
        vec![
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"two","reason":"the bridge is stopping"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"the bridge is stopping"}}"#,
        ]
    );
}

#[test]
fn a_2026_call_reaches_its_device_with_its_meta_and_input_required_comes_back_as_it_was() {
    let mut sim = hub();
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/logLevel":"info"}"#;
    sim.host_line(&format!(
        r#"{{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{{"name":"m2.b","arguments":{{"on":true}},{meta}}}}}"#
    ));
    let (device, _, line) = sim.device.pop().unwrap();
    assert_eq!(device, 1);
    let sent: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(sent["params"]["name"], "b");
    let expected: Value = serde_json::from_str(&format!("{{{meta}}}")).unwrap();
    assert_eq!(sent["params"]["_meta"], expected["_meta"], "{line}");
    let asks = r#"{"resultType":"input_required","inputRequests":{"approval":{"method":"elicitation/create","params":{"mode":"form","message":"Switch?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"st"}"#;
    let reply =
        |id: &Value, result: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
    sim.device_line(1, 1, &reply(&sent["id"], asks));
    assert_eq!(
        sim.host_out(),
        [format!(r#"{{"jsonrpc":"2.0","id":"c","result":{asks}}}"#)]
    );
    // The retry goes with the answers and the state, byte for byte in value.
    sim.host_line(&format!(
        r#"{{"jsonrpc":"2.0","id":"c2","method":"tools/call","params":{{"name":"m2.b","arguments":{{"on":true}},"inputResponses":{{"approval":{{"action":"accept","content":{{}}}}}},"requestState":"st",{meta}}}}}"#
    ));
    let (_, _, line) = sim.device.pop().unwrap();
    let sent: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(sent["params"]["requestState"], "st");
    assert_eq!(
        sent["params"]["inputResponses"]["approval"]["action"],
        "accept"
    );
    assert_eq!(sent["params"]["_meta"], expected["_meta"]);
    sim.device_line(
        1,
        1,
        &reply(&sent["id"], r#"{"resultType":"complete","content":[]}"#),
    );
    assert_eq!(
        sim.host_out(),
        [r#"{"jsonrpc":"2.0","id":"c2","result":{"resultType":"complete","content":[]}}"#]
    );
    // A legacy host's call still goes without the 2026-07-28 keys.
    sim.host_line(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"m1.a","_meta":{"progressToken":1,"io.modelcontextprotocol/logLevel":"info"}}}"#);
    let (_, _, line) = sim.device.pop().unwrap();
    let sent: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        sent["params"]["_meta"],
        serde_json::json!({"progressToken": 1}),
        "{line}"
    );
}
