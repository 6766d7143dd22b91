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
const SALT: u64 = 0x0123_4567_89ab_cdef;

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
        let out = match self.approvals.confirm_at(call, out, self.now, &message) {
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

fn no_clock() -> u64 {
    0
}

fn sealing(salt: u64) -> Sealing {
    Sealing {
        key: Key::provisioned(KEY),
        boot_salt: salt,
        clock: no_clock,
    }
}

fn server() -> S {
    server_in_boot(SALT)
}

fn server_in_boot(salt: u64) -> S {
    let storage = std::boxed::Box::leak(std::boxed::Box::new(crate::server::SchemaStorage::<
        1,
        8,
        32,
        128,
    >::new()));
    let relay = Relay {
        approvals: Approvals::new(sealing(salt)),
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
    state_with(SALT, counter, expiry_ms, arguments)
}

/// A state sealed with the key and `salt` for any counter and expiry (what someone holding
/// the key and the salt could forge).
fn state_with(salt: u64, counter: u32, expiry_ms: u64, arguments: &str) -> String {
    let mut boot = <Hmac<Sha256> as KeyInit>::new_from_slice(&KEY).unwrap();
    boot.update(b"embedded-mcp boot id\0");
    boot.update(&salt.to_le_bytes());
    let boot = boot.finalize().into_bytes();
    let boot = u32::from_le_bytes(boot[..4].try_into().unwrap());
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&KEY).unwrap();
    mac.update(b"embedded-mcp approval state 3\0");
    mac.update(&salt.to_le_bytes());
    mac.update(&counter.to_le_bytes());
    mac.update(&expiry_ms.to_le_bytes());
    mac.update(b"relay\0");
    mac.update(arguments.as_bytes());
    let tag = mac.finalize().into_bytes();
    let hex: String = tag[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("3{boot:08x}{counter:08x}{expiry_ms:016x}{hex}")
}

const OTHER_BOOT_TEXT: &str = "Approval refused: the requestState is from another boot; ask again";

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
    assert_eq!(again, error_line(3, "Approval refused: already answered"));
    assert_eq!(s.handler().acted, 1);
}

#[test]
fn refusals_never_act() {
    let mut s = server();
    let state = state_of(&line(&mut s, &call(1, r#"{"on":true}"#, "")));
    // Other arguments under the state.
    assert_eq!(
        line(&mut s, &retry(2, r#"{"on":false}"#, &state, ACCEPT)),
        error_line(
            2,
            "Approval refused: the requestState was not issued for this tool and these arguments"
        )
    );
    // A forged tag.
    let mut forged = state.clone().into_bytes();
    let last = forged.len() - 1;
    forged[last] = if forged[last] == b'0' { b'1' } else { b'0' };
    let forged = String::from_utf8(forged).unwrap();
    assert_eq!(
        line(&mut s, &retry(3, r#"{"on":true}"#, &forged, ACCEPT)),
        error_line(
            3,
            "Approval refused: the requestState was not issued for this tool and these arguments"
        )
    );
    // A longer expiry in clear, the tag kept.
    let stretched = format!("{}{:016x}{}", &state[..17], u64::MAX, &state[33..]);
    assert!(
        line(&mut s, &retry(4, r#"{"on":true}"#, &stretched, ACCEPT))
            .contains("not issued for this tool")
    );
    // Not a state at all.
    assert_eq!(
        line(&mut s, &retry(5, r#"{"on":true}"#, "xyz", ACCEPT)),
        error_line(5, "Approval refused: malformed requestState")
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
        error_line(6, "Approval refused: an answer without its requestState")
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
        error_line(21, "Approval refused: expired; ask again")
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
fn a_pending_approval_survives_511_other_asks_and_not_512() {
    let mut s = server();
    let kept = state_of(&line(&mut s, &call(1, r#"{"on":true}"#, "")));
    let lost = state_of(&line(&mut s, &call(2, r#"{"on":true}"#, "")));
    for id in 0..WINDOW - 1 {
        line(&mut s, &call(100 + id, r#"{"on":false}"#, ""));
    }
    // `kept` has seen 512 asks after it (`lost` and 511 others): refused, saying why; `lost`
    // has seen 511 and still acts.
    assert_eq!(
        line(&mut s, &retry(3, r#"{"on":true}"#, &kept, ACCEPT)),
        error_line(
            3,
            "Approval refused: 511 newer approvals were asked for; ask again"
        )
    );
    assert_eq!(s.handler().acted, 0);
    assert!(line(&mut s, &retry(4, r#"{"on":true}"#, &lost, ACCEPT)).contains("structuredContent"));
    assert_eq!(s.handler().acted, 1);
}

#[test]
fn a_state_of_an_earlier_boot_is_refused_once_the_counter_meets_it_again() {
    let mut boot_1 = server_in_boot(1);
    let old = state_of(&line(&mut boot_1, &call(1, r#"{"on":true}"#, "")));
    let mut boot_2 = server_in_boot(2);
    let new = state_of(&line(&mut boot_2, &call(1, r#"{"on":true}"#, "")));
    // Both are approval 0 with the same expiry; only the boot differs.
    assert_eq!(old[9..33], new[9..33]);
    assert_eq!(
        line(&mut boot_2, &retry(2, r#"{"on":true}"#, &old, ACCEPT)),
        error_line(2, OTHER_BOOT_TEXT)
    );
    assert_eq!(boot_2.handler().acted, 0);
    // The new boot's own approval is still pending and acts.
    assert!(
        line(&mut boot_2, &retry(3, r#"{"on":true}"#, &new, ACCEPT)).contains("structuredContent")
    );
    assert_eq!(boot_2.handler().acted, 1);
}

#[test]
fn states_forged_with_the_key_and_salt_never_outlive_the_boot() {
    let mut s = server();
    line(&mut s, &call(1, r#"{"on":true}"#, ""));
    // The expiry 2^64 - 1, MAC and boot id right: this boot never issues it.
    let forever = state_with(SALT, 0, u64::MAX, r#"{"on":true}"#);
    assert_eq!(
        line(&mut s, &retry(2, r#"{"on":true}"#, &forever, ACCEPT)),
        error_line(2, OTHER_BOOT_TEXT)
    );
    // A number this boot has not reached.
    let ahead = state_with(SALT, 5, 121_000, r#"{"on":true}"#);
    assert_eq!(
        line(&mut s, &retry(3, r#"{"on":true}"#, &ahead, ACCEPT)),
        error_line(3, OTHER_BOOT_TEXT)
    );
    assert_eq!(s.handler().acted, 0);
    // The genuine one still acts.
    let genuine = state_with(SALT, 0, 121_000, r#"{"on":true}"#);
    assert!(
        line(&mut s, &retry(4, r#"{"on":true}"#, &genuine, ACCEPT)).contains("structuredContent")
    );
}

#[test]
fn the_demo_key_and_hex_keys_parse() {
    assert!(Key::from_hex(&"ab".repeat(32)).is_some());
    assert!(Key::from_hex(&"AB".repeat(32)).is_some());
    assert!(Key::from_hex(&"ab".repeat(31)).is_none());
    assert!(Key::from_hex(&"zz".repeat(32)).is_none());
    assert_eq!(format!("{:?}", Key::provisioned(KEY)), "Key(..)");
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
            proptest::option::of((0usize..65, any::<u8>())),
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
