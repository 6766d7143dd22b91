//! The router under simulated time: nothing sleeps, the clock is a base instant plus offsets.

use std::time::Duration;

use super::Router;
use crate::bridge::machine::LinkEvent;
use crate::bridge::sim::{config, quiet, Sim};
use crate::bridge::{BridgeConfig, OnInvalid};

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}"#;
const INIT_ANSWER: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"d","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Results forwarded unchecked (these tests give the router no tool list).
fn unchecked() -> BridgeConfig {
    let mut cfg = config();
    cfg.on_invalid = OnInvalid::Pass;
    cfg
}

/// A router whose first link (generation 1) is open.
fn connected(cfg: BridgeConfig) -> Sim<Router> {
    let mut sim = Sim::new(|now| Router::new(cfg, quiet(), false, now));
    assert_eq!(
        sim.links,
        vec![(0, 1, 0, true)],
        "the first attempt is at once"
    );
    sim.link(0, LinkEvent::Opened { gen: 1 });
    sim
}

fn call(id: u32, token: Option<u32>) -> String {
    let meta = token.map_or(String::new(), |t| {
        format!(r#","_meta":{{"progressToken":{t}}}"#)
    });
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"sample_temperature","arguments":{{}}{meta}}}}}"#
    )
}

fn progress(token: u32, n: u32) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":{n},"total":15}}}}"#
    )
}

const RESULT_7: &str = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"ok"}],"isError":false}}"#;

#[test]
fn ids_keep_their_text_and_map_by_value() {
    let mut sim = connected(config());
    let ping = r#"{"jsonrpc":"2.0","id":"a\u0062","method":"ping"}"#;
    sim.host_line(ping);
    assert_eq!(sim.device_out(), vec![ping.to_string()]);
    // The same id (by value) while in flight is refused.
    sim.host_line(r#"{"jsonrpc":"2.0","id":"ab","method":"ping"}"#);
    assert_eq!(
        sim.host_out(),
        vec![
            r#"{"jsonrpc":"2.0","id":"ab","error":{"code":-32600,"message":"Invalid request: this id is already used by a request in flight"}}"#
        ]
    );
    // The device's answer, under another spelling of the id, is forwarded byte for byte.
    let answer = r#"{"jsonrpc":"2.0","id":"ab","result":{}}"#;
    sim.device_line(0, 1, answer);
    assert_eq!(sim.host_out(), vec![answer]);
    // An answer nobody awaits is dropped.
    sim.device_line(0, 1, answer);
    assert!(sim.host_out().is_empty());
}

#[test]
fn a_silent_tool_gets_32001_after_the_idle_deadline_and_is_cancelled() {
    let mut sim = connected(unchecked());
    sim.host_line(&call(7, Some(1)));
    sim.device_out();
    sim.advance(ms(9_999));
    assert!(sim.host_out().is_empty());
    sim.advance(ms(1));
    assert_eq!(
        sim.host_out(),
        vec![
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"The device did not answer `tools/call` within 10000 ms"}}"#
        ]
    );
    assert_eq!(
        sim.device_out(),
        vec![
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"timeout"}}"#
        ]
    );
    // A late answer is dropped.
    sim.device_line(0, 1, RESULT_7);
    assert!(sim.host_out().is_empty());
}

#[test]
fn progress_every_second_keeps_a_15_second_call_alive() {
    let mut sim = connected(unchecked());
    sim.host_line(&call(7, Some(3)));
    for n in 1..=15 {
        sim.advance(ms(1_000));
        sim.device_line(0, 1, &progress(3, n));
    }
    sim.advance(ms(500));
    sim.device_line(0, 1, RESULT_7);
    let host = sim.host_out();
    assert_eq!(host.len(), 16, "{host:#?}");
    assert_eq!(host[0], progress(3, 1));
    assert_eq!(host[14], progress(3, 15));
    assert_eq!(host[15], RESULT_7);
    assert_eq!(sim.ms(), 15_500);
}

#[test]
fn progress_of_another_token_does_not_extend_a_call() {
    let mut sim = connected(config());
    sim.host_line(&call(7, Some(3)));
    for n in 1..=10 {
        sim.advance(ms(1_000));
        sim.device_line(0, 1, &progress(4, n));
    }
    // Progress of a token the device was not given never reaches the host.
    let host = sim.host_out();
    assert_eq!(host.len(), 1, "{host:#?}");
    assert!(host[0].contains(r#""code":-32001"#), "{}", host[0]);
}

#[test]
fn the_hard_cap_ends_a_call_that_keeps_sending_progress() {
    let mut cfg = config();
    cfg.max_call = ms(30_000);
    let mut sim = connected(cfg);
    sim.host_line(&call(7, Some(3)));
    sim.device_out();
    let mut n = 0;
    while sim.ms() < 40_000 {
        sim.advance(ms(1_000));
        n += 1;
        sim.device_line(0, 1, &progress(3, n));
    }
    let errors: Vec<(usize, String)> = sim
        .host_out()
        .into_iter()
        .enumerate()
        .filter(|(_, l)| l.contains("error"))
        .collect();
    assert_eq!(
        errors,
        vec![(29, r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"The device did not finish `tools/call` within the bridge's limit of 30000 ms (--max-call-ms)"}}"#.to_string())],
        "the cap hits at 30 s, after 29 progress notifications"
    );
    assert!(sim.device_out()[0].contains("notifications/cancelled"));
}

#[test]
fn a_closed_link_answers_32000_reconnects_and_replays_the_handshake() {
    let mut sim = connected(config());
    sim.host_line(INIT);
    sim.device_line(0, 1, INIT_ANSWER);
    sim.host_line(INITIALIZED);
    sim.host_line(&call(7, None));
    assert_eq!(sim.device_out().len(), 3);
    sim.host_out();
    sim.advance(ms(100));
    sim.link(
        0,
        LinkEvent::Closed {
            gen: 1,
            why: "end of stream".into(),
        },
    );
    assert_eq!(
        sim.host_out(),
        vec![
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"The device link closed before `tools/call` was answered (end of stream); the bridge is reconnecting"}}"#
        ]
    );
    // The device had spoken: the next attempt is at once, and the old link is closed.
    assert_eq!(sim.links[1..], [(0, 1, 100, false), (0, 2, 100, true)]);
    // A request meanwhile waits for the replayed handshake.
    sim.host_line(&call(8, None));
    sim.link(0, LinkEvent::Opened { gen: 2 });
    let replay = sim.device_out();
    assert_eq!(
        replay,
        vec![
            r#"{"id":"embedded-mcp-bridge-1","jsonrpc":"2.0","method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"h","version":"1"},"protocolVersion":"2025-11-25"}}"#
        ]
    );
    sim.device_line(
        0,
        2,
        &INIT_ANSWER.replace(r#""id":0"#, r#""id":"embedded-mcp-bridge-1""#),
    );
    assert_eq!(
        sim.device_out(),
        vec![INITIALIZED.to_string(), call(8, None)]
    );
    assert!(
        sim.host_out().is_empty(),
        "the replay is not shown to the host"
    );
}

#[test]
fn connection_attempts_back_off_then_give_up_and_refuse_what_waited() {
    let mut cfg = config();
    cfg.timeout = ms(60_000);
    let mut sim = Sim::new(|now| Router::new(cfg, quiet(), false, now));
    sim.host_line(&call(7, None));
    // One cycle of attempts is one link generation.
    for _ in 1..=10 {
        assert_eq!(sim.links.last().map(|l| (l.1, l.3)), Some((1, true)));
        sim.link(
            0,
            LinkEvent::OpenFailed {
                gen: 1,
                error: "refused".into(),
            },
        );
        sim.advance(ms(2_000));
    }
    let opened_at: Vec<u128> = sim.links.iter().map(|l| l.2).collect();
    assert_eq!(
        opened_at,
        vec![0, 100, 2_200, 4_400, 6_800, 9_600, 12_000, 14_000, 16_000, 18_000],
        "each failure (every 2 s here) waits 100 ms doubling up to 2 s"
    );
    assert_eq!(
        sim.host_out(),
        vec![
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"device unavailable: refused"}}"#
        ]
    );
    // The next host message starts a new cycle.
    sim.host_line(&call(8, None));
    assert_eq!(sim.links.last().map(|l| (l.1, l.3)), Some((2, true)));
}

#[test]
fn a_request_cancelled_while_queued_never_reaches_the_device() {
    let mut sim = Sim::new(|now| Router::new(config(), quiet(), false, now));
    sim.host_line(&call(7, None));
    sim.host_line(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#,
    );
    sim.link(0, LinkEvent::Opened { gen: 1 });
    assert!(sim.device_out().is_empty());
    assert!(sim.host_out().is_empty());
    // A cancel of a request the device has is forwarded as is.
    sim.host_line(&call(8, None));
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8}}"#;
    sim.host_line(cancel);
    assert_eq!(sim.device_out(), vec![call(8, None), cancel.to_string()]);
}

#[test]
fn a_silent_fresh_link_gets_idempotent_requests_again() {
    let mut sim = connected(config());
    sim.host_line(INIT);
    sim.host_line(&call(7, None));
    assert_eq!(sim.device_out().len(), 2);
    sim.advance(ms(5_000));
    // Three re-sends of the initialize, one second apart; never the call.
    assert_eq!(sim.device_out(), vec![INIT.to_string(); 3]);
    sim.device_line(0, 1, INIT_ANSWER);
    sim.advance(ms(2_000));
    assert!(sim.device_out().is_empty());
}

#[test]
fn a_paged_list_is_answered_in_one_page() {
    let mut sim = connected(config());
    sim.host_line(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
    sim.device_line(
        0,
        1,
        r#"{"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"p2"}}"#,
    );
    assert_eq!(
        sim.device_out()[1],
        r#"{"id":5,"jsonrpc":"2.0","method":"tools/list","params":{"cursor":"p2"}}"#
    );
    sim.device_line(
        0,
        1,
        r#"{"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"b","inputSchema":{"type":"object"}}]}}"#,
    );
    assert_eq!(
        sim.host_out(),
        vec![
            r#"{"jsonrpc":"2.0","id":5,"result":{"tools":[{"inputSchema":{"type":"object"},"name":"a"},{"inputSchema":{"type":"object"},"name":"b"}]}}"#
        ]
    );
    // Served from the cache until the list changes.
    sim.host_line(r#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#);
    assert!(sim.device_out().is_empty());
    assert_eq!(sim.host_out().len(), 1);
}

const LIST_WITH_SCHEMA: &str = r#"{"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"v":{"type":"integer"}},"required":["v"]}}]}}"#;
const BAD_RESULT: &str =
    r#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{"v":"x"}}}"#;

fn checked(on_invalid: OnInvalid) -> Vec<String> {
    let mut cfg = config();
    cfg.on_invalid = on_invalid;
    let mut sim = connected(cfg);
    sim.host_line(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
    sim.device_line(0, 1, LIST_WITH_SCHEMA);
    sim.host_out();
    sim.host_line(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}"#);
    sim.device_line(0, 1, BAD_RESULT);
    sim.host_out()
}

#[test]
fn on_invalid_decides_what_a_result_breaking_its_schema_becomes() {
    assert_eq!(
        checked(OnInvalid::Error),
        vec![
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"The result of tool `t` does not match its outputSchema, so the embedded-mcp bridge withheld it: field `/structuredContent/v` broke rule `type` (schema path `/properties/v/type`): \"x\" is not of type \"integer\""}],"isError":true}}"#
        ]
    );
    assert_eq!(checked(OnInvalid::Warn), vec![BAD_RESULT]);
    assert_eq!(checked(OnInvalid::Pass), vec![BAD_RESULT]);
}

/// A 2026-07-28 call's bare array output, checked against a schema learnt in a legacy listing
/// (a hub's): in its legacy wrapping `{"result": …}` it passes; a wrong one is still withheld.
#[test]
fn a_2026_bare_array_is_checked_in_its_legacy_wrapping() {
    const WRAPPED: &str = r#"{"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"result":{"type":"array","items":{"type":"number"}}},"required":["result"]}}]}}"#;
    let answer = |structured: &str| {
        let mut sim = connected(config());
        sim.host_line(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
        sim.device_line(0, 1, WRAPPED);
        sim.host_out();
        let version = embedded_mcp::protocol::PROTOCOL_VERSION_KEY;
        sim.host_line(&format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"t","_meta":{{"{version}":"2026-07-28"}}}}}}"#
        ));
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":7,"result":{{"resultType":"complete","content":[],"structuredContent":{structured}}}}}"#
        );
        sim.device_line(0, 1, &line);
        (line, sim.host_out())
    };
    let (good, out) = answer("[1.5,2]");
    assert_eq!(out, vec![good]);
    let (_, out) = answer(r#"["x"]"#);
    assert_eq!(out.len(), 1);
    assert!(out[0].contains(r#""isError":true"#), "{out:?}");
}

/// Through the engine's old-revisions layer above the router.
#[test]
fn a_host_of_2024_11_05_gets_answers_of_its_revision() {
    use crate::bridge::old_revisions::RevisionLayer;
    let mut sim = Sim::new(|now| RevisionLayer::new(Router::new(unchecked(), quiet(), false, now)));
    sim.link(0, LinkEvent::Opened { gen: 1 });
    sim.host_line(&INIT.replace("2025-11-25", "2024-11-05"));
    sim.device_line(0, 1, INIT_ANSWER);
    assert_eq!(
        sim.host_out(),
        vec![
            r#"{"jsonrpc":"2.0","id":0,"result":{"capabilities":{"tools":{}},"protocolVersion":"2024-11-05","serverInfo":{"name":"d","version":"1"}}}"#
        ]
    );
    sim.host_line(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}"#);
    sim.device_line(
        0,
        1,
        r#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{"v":1}}}"#,
    );
    assert_eq!(
        sim.host_out(),
        vec![
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"{\"v\":1}","type":"text"}]}}"#
        ]
    );
}

#[test]
fn a_full_device_queue_refuses_the_request_with_32000() {
    let mut sim = connected(config());
    sim.host_line(&call(7, None));
    sim.link(
        0,
        LinkEvent::WriteRefused {
            gen: 1,
            key: Some("7".into()),
        },
    );
    assert_eq!(
        sim.host_out(),
        vec![
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"the device is not reading (its write queue is full)"}}"#
        ]
    );
}

#[test]
fn the_router_finishes_when_the_host_is_gone_and_all_is_answered() {
    use crate::bridge::machine::{Input, Machine};
    let mut sim = connected(unchecked());
    sim.host_line(&call(7, None));
    sim.input(Input::HostEof(None));
    assert!(!sim.machine.is_finished());
    sim.device_line(0, 1, RESULT_7);
    assert!(sim.machine.is_finished());
    sim.machine.stop();
    assert_eq!(
        sim.machine.poll_output(),
        Some(crate::bridge::machine::Output::Link {
            device: 0,
            action: crate::bridge::machine::LinkAction::Close { gen: 1 }
        })
    );
}
