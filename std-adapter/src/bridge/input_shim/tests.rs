//! The shim under simulated time, as the engine's layer around the router of one device (and
//! around a hub): a legacy host that declared `elicitation` calls a tool that needs a person's
//! approval.

use std::time::Duration;

use crate::bridge::input_shim::ShimLayer;
use crate::bridge::machine::{Input, LinkEvent, Machine};
use crate::bridge::router::Router;
use crate::bridge::sim::{config, quiet, Sim};
use crate::bridge::BridgeConfig;

const INIT_ANSWER: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"d","version":"1"}}}"#;
const CALL: &str = r#"{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"set_relay","arguments":{"relay":1,"on":true}}}"#;
/// The call as the device gets it.
const ROUND_1: &str = r#"{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"set_relay","arguments":{"relay":1,"on":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#;
const ASK: &str = r#"{"jsonrpc":"2.0","id":"c1","result":{"resultType":"input_required","inputRequests":{"approval":{"method":"elicitation/create","params":{"mode":"form","message":"Switch relay 1 on?","requestedSchema":{"type":"object","properties":{"approve":{"type":"boolean"}},"required":["approve"]}}}},"requestState":"st\/1"}}"#;
/// The question as the host gets it.
const ELICIT_1: &str = r#"{"id":"embedded-mcp-bridge-input-1","jsonrpc":"2.0","method":"elicitation/create","params":{"message":"Switch relay 1 on?","mode":"form","requestedSchema":{"properties":{"approve":{"type":"boolean"}},"required":["approve"],"type":"object"}}}"#;
const DONE: &str = r#"{"jsonrpc":"2.0","id":"c1","result":{"structuredContent":{"relay":1,"on":true,"wasOn":false},"content":[{"type":"text","text":"{\"relay\":1,\"on\":true,\"wasOn\":false}"}],"resultType":"complete"}}"#;
const DONE_LEGACY: &str = r#"{"jsonrpc":"2.0","id":"c1","result":{"structuredContent":{"relay":1,"on":true,"wasOn":false},"content":[{"type":"text","text":"{\"relay\":1,\"on\":true,\"wasOn\":false}"}]}}"#;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn accept(id: u32) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":"embedded-mcp-bridge-input-{id}","result":{{"action":"accept","content":{{"approve":true}}}}}}"#
    )
}

/// The retry of round 1 with `answer` (the host's `ElicitResult`) and state `st\/1`.
fn round_2(answer: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{{"name":"set_relay","arguments":{{"relay":1,"on":true}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{}}}}}},"inputResponses":{{"approval":{answer}}},"requestState":"st\/1"}}}}"#
    )
}

fn tool_error(text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":"c1","result":{{"content":[{{"type":"text","text":"{text}"}}],"isError":true}}}}"#
    )
}

/// A router (results unchecked) whose host initialized at 2025-11-25 with `capabilities`.
fn initialized_with(capabilities: &str, input_timeout: Duration) -> Sim<ShimLayer<Router>> {
    let mut cfg: BridgeConfig = config();
    cfg.on_invalid = crate::bridge::OnInvalid::Pass;
    cfg.input_timeout = input_timeout;
    let mut sim =
        Sim::new(|now| ShimLayer::new(Router::new(cfg, quiet(), false, now), input_timeout, now));
    sim.link(0, LinkEvent::Opened { gen: 1 });
    sim.host_line(&format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{capabilities},"clientInfo":{{"name":"h","version":"1"}}}}}}"#
    ));
    sim.device_line(0, 1, INIT_ANSWER);
    sim.host_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    sim.host_out();
    sim.device_out();
    sim
}

fn initialized() -> Sim<ShimLayer<Router>> {
    initialized_with(r#"{"elicitation":{}}"#, Duration::from_secs(120))
}

/// The host calls, the device asks: the host has the question.
fn asked() -> Sim<ShimLayer<Router>> {
    let mut sim = initialized();
    sim.host_line(CALL);
    assert_eq!(sim.device_out(), vec![ROUND_1]);
    sim.device_line(0, 1, ASK);
    assert_eq!(sim.host_out(), vec![ELICIT_1]);
    sim
}

#[test]
fn accepted_in_one_round_the_call_is_answered_under_the_host_id_in_legacy_shape() {
    let mut sim = asked();
    let answer = r#"{"action":"accept","content":{"approve":true}}"#;
    sim.host_line(&accept(1));
    assert_eq!(sim.device_out(), vec![round_2(answer)]);
    assert!(sim.host_out().is_empty());
    sim.device_line(0, 1, DONE);
    assert_eq!(sim.host_out(), vec![DONE_LEGACY]);
    // The id is free again.
    sim.host_line(r#"{"jsonrpc":"2.0","id":"c1","method":"ping"}"#);
    assert_eq!(sim.device_out().len(), 1);
}

#[test]
fn two_rounds_echo_each_new_state_and_ask_again() {
    let mut sim = asked();
    sim.host_line(&accept(1));
    sim.device_out();
    sim.device_line(0, 1, &ASK.replace(r"st\/1", "st2"));
    let second = ELICIT_1.replace("input-1", "input-2");
    assert_eq!(sim.host_out(), vec![second]);
    sim.host_line(&accept(2));
    let answer = r#"{"action":"accept","content":{"approve":true}}"#;
    assert_eq!(
        sim.device_out(),
        vec![round_2(answer).replace(r"st\/1", "st2")]
    );
    sim.device_line(0, 1, DONE);
    assert_eq!(sim.host_out(), vec![DONE_LEGACY]);
}

#[test]
fn decline_and_cancel_reach_the_device_which_answers_them() {
    for action in ["decline", "cancel"] {
        let mut sim = asked();
        let answer = format!(r#"{{"action":"{action}"}}"#);
        sim.host_line(&format!(
            r#"{{"jsonrpc":"2.0","id":"embedded-mcp-bridge-input-1","result":{answer}}}"#
        ));
        assert_eq!(sim.device_out(), vec![round_2(&answer)]);
        let refusal = r#"{"jsonrpc":"2.0","id":"c1","result":{"content":[{"type":"text","text":"The user declined: tool set_relay did not act"}],"isError":true,"resultType":"complete"}}"#;
        sim.device_line(0, 1, refusal);
        assert_eq!(
            sim.host_out(),
            vec![tool_error("The user declined: tool set_relay did not act")]
        );
    }
}

#[test]
fn a_host_without_elicitation_is_not_shimmed_and_a_refusal_of_the_device_is_a_tool_error() {
    // No elicitation: the call goes to the device as the host wrote it.
    let mut sim = initialized_with("{}", Duration::from_secs(120));
    sim.host_line(CALL);
    assert_eq!(sim.device_out(), vec![CALL]);
    // A host that declared elicitation, when the device wants a capability it lacks (-32021).
    let mut sim = initialized();
    sim.host_line(CALL);
    sim.device_out();
    sim.device_line(
        0,
        1,
        r#"{"jsonrpc":"2.0","id":"c1","error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"sampling":{}}}}}"#,
    );
    assert_eq!(
        sim.host_out(),
        vec![tool_error(
            "Tool set_relay did not act: the device needs to ask the user through client capabilities your host did not declare in initialize (sampling); use a host that supports them"
        )]
    );
    // An input request of a kind the host did not declare is refused before anything is asked.
    sim.host_line(CALL);
    sim.device_out();
    sim.device_line(
        0,
        1,
        &ASK.replace("elicitation/create", "sampling/createMessage"),
    );
    assert_eq!(
        sim.host_out(),
        vec![tool_error(
            r#"Tool set_relay did not act: the device asks for input (sampling/createMessage \"approval\") that your host did not declare it can give in initialize"#
        )]
    );
}

#[test]
fn nobody_answering_is_a_tool_error_at_the_input_timeout_and_no_device_deadline_runs_meanwhile() {
    let mut sim = initialized_with(r#"{"elicitation":{}}"#, ms(30_000));
    sim.host_line(CALL);
    sim.device_out();
    sim.device_line(0, 1, ASK);
    sim.host_out();
    // Longer than the device's idle deadline (10 s) and its cap (60 s would be next): nothing.
    sim.advance(ms(29_999));
    assert!(sim.host_out().is_empty());
    assert!(sim.device_out().is_empty());
    sim.advance(ms(1));
    assert_eq!(
        sim.host_out(),
        vec![
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"embedded-mcp-bridge-input-1","reason":"the call is over"}}"#.to_string(),
            tool_error("Tool set_relay did not act: nobody answered its question within 30000 ms (the bridge's --input-timeout-ms)"),
        ]
    );
    assert!(sim.device_out().is_empty());
    // A late answer is dropped (forwarded to the device as any stray response).
    sim.host_line(&accept(1));
    assert!(sim.host_out().is_empty());
}

#[test]
fn a_host_that_cancels_while_the_person_thinks_gets_nothing_and_its_question_is_withdrawn() {
    let mut sim = asked();
    sim.host_line(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"user"}}"#,
    );
    assert_eq!(
        sim.host_out(),
        vec![
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"embedded-mcp-bridge-input-1","reason":"the call was cancelled"}}"#
        ]
    );
    assert!(sim.device_out().is_empty(), "nothing is on the device");
    sim.host_line(&accept(1));
    sim.advance(ms(200_000));
    assert!(sim.host_out().is_empty());
    sim.input(Input::HostEof(None));
    assert!(sim.machine.is_finished());
}

#[test]
fn an_answer_with_an_unknown_id_leaves_the_question_open_and_an_error_ends_the_call() {
    let mut sim = asked();
    let stray =
        r#"{"jsonrpc":"2.0","id":"embedded-mcp-bridge-input-9","result":{"action":"accept"}}"#;
    sim.host_line(stray);
    assert_eq!(sim.device_out(), vec![stray], "forwarded as any response");
    assert!(sim.host_out().is_empty());
    sim.host_line(
        r#"{"jsonrpc":"2.0","id":"embedded-mcp-bridge-input-1","error":{"code":-32601,"message":"Method not found"}}"#,
    );
    assert_eq!(
        sim.host_out(),
        vec![tool_error(
            "Tool set_relay did not act: the host could not ask the user (Method not found)"
        )]
    );
    assert!(sim.device_out().is_empty());
}

#[test]
fn the_link_dropping_while_the_person_thinks_delays_the_retry_until_it_is_back() {
    let mut sim = asked();
    sim.link(
        0,
        LinkEvent::Closed {
            gen: 1,
            why: "reset".into(),
        },
    );
    // The call is not on the device: nothing to answer yet.
    assert!(sim.host_out().iter().all(|l| !l.contains("\"c1\"")));
    sim.host_line(&accept(1));
    assert!(sim.device_out().is_empty(), "queued while the link is down");
    sim.advance(ms(100));
    let gen = sim.links.last().map(|l| l.1).unwrap_or_default();
    sim.link(0, LinkEvent::Opened { gen });
    // The handshake is replayed first, then the retry goes out.
    let out = sim.device_out();
    assert!(out[0].contains("\"initialize\""), "{out:?}");
    let replay_id = serde_json::from_str::<serde_json::Value>(&out[0]).unwrap()["id"].clone();
    sim.device_line(
        0,
        gen,
        &INIT_ANSWER.replace("\"id\":0", &format!("\"id\":{replay_id}")),
    );
    let answer = r#"{"action":"accept","content":{"approve":true}}"#;
    assert_eq!(
        sim.device_out(),
        vec![
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
            round_2(answer)
        ]
    );
    // A device that rebooted refuses the old state: the host hears its tool error.
    let refused = r#"{"jsonrpc":"2.0","id":"c1","result":{"content":[{"type":"text","text":"Approval refused: the requestState was not issued by this device for this tool and these arguments: tool set_relay did not act"}],"isError":true,"resultType":"complete"}}"#;
    sim.device_line(0, gen, refused);
    assert_eq!(
        sim.host_out(),
        vec![tool_error("Approval refused: the requestState was not issued by this device for this tool and these arguments: tool set_relay did not act")]
    );
}

#[test]
fn the_host_log_level_travels_with_each_converted_call() {
    let mut sim = initialized();
    sim.host_line(
        r#"{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"info"}}"#,
    );
    sim.device_line(0, 1, r#"{"jsonrpc":"2.0","id":5,"result":{}}"#);
    sim.device_out();
    sim.host_line(CALL);
    let out = sim.device_out();
    assert!(
        out[0].contains(r#""io.modelcontextprotocol/logLevel":"info""#),
        "{out:?}"
    );
}

mod through_the_hub {
    use serde_json::Value;

    use crate::bridge::hub::Hub;
    use crate::bridge::input_shim::ShimLayer;
    use crate::bridge::machine::LinkEvent;
    use crate::bridge::sim::{hub_config, quiet, Sim};

    /// Device `device` (link 1) answers the hub's newest request with `result`.
    fn answer(sim: &mut Sim<ShimLayer<Hub>>, device: usize, result: &str) {
        let (_, _, line) = sim
            .device
            .iter()
            .rev()
            .find(|(d, _, _)| *d == device)
            .expect("a request")
            .clone();
        let id = serde_json::from_str::<Value>(&line).unwrap()["id"].to_string();
        sim.device_line(
            device,
            1,
            &format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#),
        );
    }

    fn last_line(sim: &Sim<ShimLayer<Hub>>, device: usize) -> Value {
        let (_, _, line) = sim
            .device
            .iter()
            .rev()
            .find(|(d, _, _)| *d == device)
            .expect("a request");
        serde_json::from_str(line).unwrap()
    }

    #[test]
    fn each_device_of_a_hub_asks_a_legacy_host_through_the_shim() {
        let mut sim = Sim::new(|now| {
            let hub = Hub::new(&hub_config(&["m1", "m2"]), quiet(), now);
            ShimLayer::new(hub, std::time::Duration::from_secs(120), now)
        });
        for device in [0, 1] {
            sim.link(device, LinkEvent::Opened { gen: 1 });
            answer(
                &mut sim,
                device,
                r#"{"protocolVersion":"2025-11-25","capabilities":{}}"#,
            );
            answer(
                &mut sim,
                device,
                r#"{"tools":[{"name":"set_relay","inputSchema":{"type":"object"}}]}"#,
            );
        }
        sim.host_line(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}}}}"#);
        sim.host_out();
        sim.host_line(r#"{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"m2.set_relay","arguments":{"relay":1,"on":true}}}"#);
        let round_1 = last_line(&sim, 1);
        assert_eq!(round_1["params"]["name"], "set_relay");
        assert_eq!(
            round_1["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(
            round_1["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"],
            serde_json::json!({"elicitation": {}})
        );
        let asked = super::ASK
            .split_once(r#""result":"#)
            .map(|(_, r)| r.strip_suffix('}').unwrap().to_owned())
            .unwrap();
        answer(&mut sim, 1, &asked);
        assert_eq!(
            sim.host_out(),
            vec![super::ELICIT_1],
            "the same question, under the same ids, as through one device's router"
        );
        sim.host_line(r#"{"jsonrpc":"2.0","id":"embedded-mcp-bridge-input-1","result":{"action":"accept","content":{"approve":true}}}"#);
        let round_2 = last_line(&sim, 1);
        assert_eq!(
            round_2["params"]["inputResponses"]["approval"]["action"],
            "accept"
        );
        assert_eq!(round_2["params"]["requestState"], "st/1");
        assert_ne!(round_2["id"], round_1["id"], "each round has a hub id");
        let done = super::DONE
            .split_once(r#""result":"#)
            .map(|(_, r)| r.strip_suffix('}').unwrap().to_owned())
            .unwrap();
        answer(&mut sim, 1, &done);
        assert_eq!(sim.host_out(), vec![super::DONE_LEGACY]);
    }
}
