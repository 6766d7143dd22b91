//! Approvals through the engine, byte for byte, and a property test: no sequence of altered
//! retries makes the tool act without an accepted answer for exactly its arguments.

use std::format;
use std::string::String;
use std::vec::Vec;

use hmac::{Hmac, KeyInit, Mac};
use proptest::prelude::*;
use sha2::Sha256;

use super::*;
use crate::server::{Handler, Server, ServerInfo, Tool, ToolError};

const KEY: [u8; 32] = [7; 32];
const BOOT: u32 = 3;

static TOOLS: [Tool; 1] = [Tool::new(
    "relay",
    r#"{"type":"object","properties":{"on":{"type":"boolean"}},"required":["on"]}"#,
)
.output_schema(r#"{"type":"object","properties":{"was":{"type":"boolean"}},"required":["was"]}"#)];

/// A relay behind approval; `acted` counts the switchings.
struct Relay {
    approvals: Approvals,
    now: u64,
    on: bool,
    acted: u32,
}

#[derive(serde::Serialize)]
struct Was {
    was: bool,
}

impl Handler for Relay {
    type Error = ToolError;

    fn call(&mut self, call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
        let message = [Piece::Text("Switch the relay \"on\"?")];
        let out = match self.approvals.confirm(call, out, self.now, &message) {
            Confirmed::Approved(out) => out,
            Confirmed::Answered(done) => return Ok(done),
        };
        self.acted += 1;
        let was = self.on;
        self.on = !self.on;
        Ok(out.structured(&Was { was }))
    }
}

type S = Server<'static, Relay, 1>;

fn server() -> S {
    let storage = std::boxed::Box::leak(std::boxed::Box::new(crate::server::SchemaStorage::<
        1,
        8,
        32,
        128,
    >::new()));
    let relay = Relay {
        approvals: Approvals::new(KEY, BOOT),
        now: 1_000,
        on: false,
        acted: 0,
    };
    Server::new(ServerInfo::new("t", "1"), &TOOLS, storage, relay).unwrap()
}

fn line(server: &mut S, text: &str) -> String {
    let mut out = [0u8; 1024];
    let n = server.handle_line(text.as_bytes(), &mut out).unwrap();
    String::from_utf8(out[..n - 1].to_vec()).unwrap()
}

const MODERN: &str = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28""#;
const ELICIT: &str = r#""io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}"#;

fn call(id: u32, arguments: &str, extra: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{{{MODERN},{ELICIT}}},"name":"relay","arguments":{arguments}{extra}}}}}"#
    )
}

fn retry(id: u32, arguments: &str, state: &str, answer: &str) -> String {
    call(
        id,
        arguments,
        &format!(r#","inputResponses":{{"approval":{answer}}},"requestState":"{state}""#),
    )
}

const ACCEPT: &str = r#"{"action":"accept","content":{"approve":true}}"#;

/// The state in an `input_required` line.
fn state_of(line: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    v["result"]["requestState"].as_str().unwrap().into()
}

/// The state as the module documentation describes it, computed here with the MAC crates
/// directly.
fn expected_state(counter: u32, expiry_ms: u64, arguments: &str) -> String {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&KEY).unwrap();
    mac.update(b"embedded-mcp approval state 1\0");
    mac.update(&BOOT.to_le_bytes());
    mac.update(&counter.to_le_bytes());
    mac.update(&expiry_ms.to_le_bytes());
    mac.update(b"relay\0");
    mac.update(arguments.as_bytes());
    let tag = mac.finalize().into_bytes();
    let hex: String = tag[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("1{counter:08x}{expiry_ms:016x}{hex}")
}

fn error_line(id: u32, text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{text}: tool relay did not act"}}],"isError":true,"resultType":"complete"}}}}"#
    )
}

#[test]
fn asks_then_acts_once_on_an_accepted_answer() {
    let mut s = server();
    let first = line(&mut s, &call(1, r#"{"on":true}"#, ""));
    let state = expected_state(0, 121_000, r#"{"on":true}"#);
    assert_eq!(
        first,
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required","inputRequests":{{"approval":{{"method":"elicitation/create","params":{{"mode":"form","message":"Switch the relay \"on\"?","requestedSchema":{{"type":"object","properties":{{"approve":{{"type":"boolean","title":"Approve","description":"Let the device go ahead"}}}},"required":["approve"]}}}}}}}},"requestState":"{state}"}}}}"#
        )
    );
    assert_eq!(s.handler().acted, 0);
    // Spacing of the arguments does not matter, their values do.
    let done = line(&mut s, &retry(2, r#"{ "on" : true }"#, &state, ACCEPT));
    assert_eq!(
        done,
        r#"{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"was":false},"content":[{"type":"text","text":"{\"was\":false}"}],"resultType":"complete"}}"#
    );
    assert_eq!(s.handler().acted, 1);
    // Replayed: refused, no action.
    let again = line(&mut s, &retry(3, r#"{"on":true}"#, &state, ACCEPT));
    assert_eq!(
        again,
        error_line(3, "Approval refused: this approval was already answered")
    );
    assert_eq!(s.handler().acted, 1);
}

#[test]
fn refusals_never_act() {
    let mut s = server();
    let state = state_of(&line(&mut s, &call(1, r#"{"on":true}"#, "")));
    // Other arguments under the state.
    assert_eq!(
        line(&mut s, &retry(2, r#"{"on":false}"#, &state, ACCEPT)),
        error_line(2, "Approval refused: the requestState was not issued by this device for this tool and these arguments")
    );
    // A forged tag.
    let mut forged = state.clone().into_bytes();
    let last = forged.len() - 1;
    forged[last] = if forged[last] == b'0' { b'1' } else { b'0' };
    let forged = String::from_utf8(forged).unwrap();
    assert_eq!(
        line(&mut s, &retry(3, r#"{"on":true}"#, &forged, ACCEPT)),
        error_line(3, "Approval refused: the requestState was not issued by this device for this tool and these arguments")
    );
    // A longer expiry in clear, the tag kept.
    let stretched = format!("{}{:016x}{}", &state[..9], u64::MAX, &state[25..]);
    assert!(
        line(&mut s, &retry(4, r#"{"on":true}"#, &stretched, ACCEPT))
            .contains("not issued by this device")
    );
    // Not a state at all.
    assert_eq!(
        line(&mut s, &retry(5, r#"{"on":true}"#, "xyz", ACCEPT)),
        error_line(5, "Approval refused: the requestState is malformed")
    );
    // An answer without a state.
    assert_eq!(
        line(
            &mut s,
            &call(
                6,
                r#"{"on":true}"#,
                &format!(r#","inputResponses":{{"approval":{ACCEPT}}}"#)
            )
        ),
        error_line(
            6,
            "Approval refused: an answer came without its requestState"
        )
    );
    // Declined, cancelled, not approved, malformed content: each spends its own state.
    for (id, answer, text) in [
        (7, r#"{"action":"decline"}"#, "The user declined"),
        (9, r#"{"action":"cancel"}"#, "The user cancelled"),
        (11, r#"{"action":"accept","content":{"approve":false}}"#, "The user did not approve"),
        (13, r#"{"action":"accept","content":{"approve":"yes"}}"#, "Approval refused: the answer does not match the requested form (action accept with content {\\\"approve\\\": boolean}, decline or cancel)"),
        (15, r#"{"action":"accept"}"#, "Approval refused: the answer does not match the requested form (action accept with content {\\\"approve\\\": boolean}, decline or cancel)"),
    ] {
        let state = state_of(&line(&mut s, &call(id, r#"{"on":true}"#, "")));
        assert_eq!(line(&mut s, &retry(id + 1, r#"{"on":true}"#, &state, answer)), error_line(id + 1, text));
    }
    // Expired: one millisecond after the lifetime.
    let state = state_of(&line(&mut s, &call(20, r#"{"on":true}"#, "")));
    s.handler().now += DEFAULT_LIFETIME_MS + 1;
    assert_eq!(
        line(&mut s, &retry(21, r#"{"on":true}"#, &state, ACCEPT)),
        error_line(21, "Approval refused: it expired")
    );
    assert_eq!(s.handler().acted, 0);
    assert!(!s.handler().on);
}

#[test]
fn a_state_without_an_answer_asks_again() {
    let mut s = server();
    let state = state_of(&line(&mut s, &call(1, r#"{"on":true}"#, "")));
    let again = line(
        &mut s,
        &call(
            2,
            r#"{"on":true}"#,
            &format!(r#","requestState":"{state}""#),
        ),
    );
    assert_eq!(
        state_of(&again),
        expected_state(1, 121_000, r#"{"on":true}"#)
    );
    assert_eq!(s.handler().acted, 0);
}

#[test]
fn only_the_latest_window_of_states_is_accepted() {
    let mut s = server();
    let oldest = state_of(&line(&mut s, &call(1, r#"{"on":true}"#, "")));
    for id in 0..WINDOW {
        line(&mut s, &call(100 + id, r#"{"on":true}"#, ""));
    }
    assert_eq!(
        line(&mut s, &retry(2, r#"{"on":true}"#, &oldest, ACCEPT)),
        error_line(2, "Approval refused: this approval was already answered")
    );
    assert_eq!(s.handler().acted, 0);
}

#[test]
fn a_client_without_elicitation_gets_32021() {
    let mut s = server();
    let request = r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"relay","arguments":{"on":true}}}"#;
    assert_eq!(
        line(&mut s, request),
        r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32021,"message":"Missing required client capability: elicitation","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}}"#
    );
    assert_eq!(s.handler().acted, 0);
}

#[test]
fn a_legacy_session_is_told_to_use_the_bridge() {
    let mut s = server();
    line(
        &mut s,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}"#,
    );
    let answer = line(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"relay","arguments":{"on":true}}}"#,
    );
    assert_eq!(
        answer,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"This tool needs a person's approval, which this client cannot be asked for: use a client that declares elicitation, or `embedded-mcp call` on a terminal: tool relay did not act"}],"isError":true}}"#
    );
    assert_eq!(s.handler().acted, 0);
}

/// One step of a client's play.
#[derive(Debug, Clone)]
enum Step {
    /// A first call with arguments `on`.
    Ask { on: bool },
    /// A retry of the state issued at `pick` (modulo the issued ones), maybe altered, with
    /// arguments `on` and an answer.
    Retry {
        pick: usize,
        alter: Option<(usize, u8)>,
        on: bool,
        answer: u8,
    },
    /// The clock moves on.
    Wait { ms: u64 },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        any::<bool>().prop_map(|on| Step::Ask { on }),
        (
            any::<usize>(),
            proptest::option::of((0usize..57, any::<u8>())),
            any::<bool>(),
            0u8..5
        )
            .prop_map(|(pick, alter, on, answer)| Step::Retry {
                pick,
                alter,
                on,
                answer
            }),
        (0u64..80_000).prop_map(|ms| Step::Wait { ms }),
    ]
}

const ANSWERS: [&str; 5] = [
    ACCEPT,
    r#"{"action":"decline"}"#,
    r#"{"action":"cancel"}"#,
    r#"{"action":"accept","content":{"approve":false}}"#,
    r#"{"action":"accept","content":{}}"#,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn no_action_without_an_accepted_answer_for_exactly_these_arguments(
        steps in proptest::collection::vec(step(), 1..40)
    ) {
        let mut s = server();
        // Issued states: (state, arguments, expiry, answered).
        let mut issued: Vec<(String, bool, u64, bool)> = Vec::new();
        let mut id = 0u32;
        for step in steps {
            id += 1;
            match step {
                Step::Ask { on } => {
                    let args = format!(r#"{{"on":{on}}}"#);
                    let state = state_of(&line(&mut s, &call(id, &args, "")));
                    let expiry = s.handler().now + DEFAULT_LIFETIME_MS;
                    issued.push((state, on, expiry, false));
                }
                Step::Retry { pick, alter, on, answer } => {
                    if issued.is_empty() {
                        continue;
                    }
                    let index = pick % issued.len();
                    let (state, issued_on, expiry, answered) = issued[index].clone();
                    let mut sent = state.clone().into_bytes();
                    if let Some((at, byte)) = alter {
                        sent[at] = b"0123456789abcdefXY"[usize::from(byte) % 18];
                    }
                    let sent = String::from_utf8(sent).unwrap();
                    let before = s.handler().acted;
                    let now = s.handler().now;
                    let args = format!(r#"{{"on":{on}}}"#);
                    let reply = line(&mut s, &retry(id, &args, &sent, ANSWERS[usize::from(answer)]));
                    let acted = s.handler().acted > before;
                    let genuine = sent == state && on == issued_on;
                    let in_window = issued.len() - index <= WINDOW as usize;
                    let should = genuine && answer == 0 && !answered && now <= expiry && in_window;
                    prop_assert_eq!(acted, should, "{}", reply);
                    if !acted {
                        prop_assert!(reply.contains(r#""isError":true"#), "{}", reply);
                    }
                    if genuine {
                        issued[index].3 = true;
                    }
                }
                Step::Wait { ms } => s.handler().now += ms,
            }
        }
    }
}
