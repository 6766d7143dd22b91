//! Multi-round-trip requests through the engine, byte for byte: several keys and methods, the
//! capability check, two rounds carried by a sealed state, and refused states.

use std::format;
use std::string::String;
use std::vec::Vec;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use super::*;
use crate::server::{Handler, Server, ServerInfo, Tool, ToolError};

const KEY: [u8; 32] = [9; 32];
const BOOT: u64 = 5;

static TOOLS: [Tool; 2] = [
    Tool::new("ask_all", r#"{"type":"object","properties":{}}"#),
    Tool::new(
        "two_rounds",
        r#"{"type":"object","properties":{"n":{"type":"integer"}}}"#,
    ),
];

const NAME_FORM: Json<'static> = Json(
    r#"{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}"#,
);
const SAMPLE: Json<'static> =
    Json(r#"{"messages":[{"role":"user","content":{"type":"text","text":"Hi"}}],"maxTokens":5}"#);
const NO_PARAMS: Json<'static> = Json("{}");

struct Fixture {
    seal: StateSeal,
}

impl Handler for Fixture {
    type Error = ToolError;

    fn call(&mut self, call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
        match call.name() {
            "ask_all" => {
                let name = response(call, "name").map(elicited);
                let text = response(call, "sample").and_then(sampled_text);
                let roots = response(call, "roots").and_then(listed_roots);
                if let (Some(Elicited::Accepted(c)), Some(text), Some(roots)) = (name, text, roots)
                {
                    let name = c
                        .get("name")
                        .and_then(|n| n.as_str())
                        .map_or("?", |n| n.raw());
                    return Ok(
                        out.blocks(|w| w.text_fmt(format_args!("{name} {} {roots}", text.raw())))
                    );
                }
                let ask = [
                    InputRequest {
                        key: "name",
                        method: InputMethod::Elicitation,
                        params: &NAME_FORM,
                    },
                    InputRequest {
                        key: "sample",
                        method: InputMethod::Sampling,
                        params: &SAMPLE,
                    },
                    InputRequest {
                        key: "roots",
                        method: InputMethod::ListRoots,
                        params: &NO_PARAMS,
                    },
                ];
                Ok(input_required(call, out, &ask, None))
            }
            _ => {
                let mut data = [0u8; MAX_STATE_DATA];
                let round = match self.seal.open(call, &mut data) {
                    Ok(None) => 0,
                    Ok(Some(d)) => d.first().copied().unwrap_or(0),
                    Err(_) => return Ok(rejected_state(out)),
                };
                if round == 1 && response(call, "step").is_some() {
                    return Ok(out.text("done"));
                }
                let mut text = [0u8; MAX_STATE_LEN];
                let Ok(state) = self.seal.seal(call, &[1, b'x'], &mut text) else {
                    return Ok(out.error("cannot seal"));
                };
                let ask = [InputRequest {
                    key: "step",
                    method: InputMethod::Elicitation,
                    params: &NAME_FORM,
                }];
                Ok(input_required(call, out, &ask, Some(state)))
            }
        }
    }
}

type S = Server<'static, Fixture, 2>;

fn server() -> S {
    let storage = std::boxed::Box::leak(std::boxed::Box::new(crate::server::SchemaStorage::<
        2,
        8,
        32,
        128,
    >::new()));
    let fixture = Fixture {
        seal: StateSeal::new(crate::server::approval::Key::provisioned(KEY), BOOT),
    };
    Server::new(ServerInfo::new("t", "1"), &TOOLS, storage, fixture).unwrap()
}

fn line(server: &mut S, text: &str) -> String {
    let mut out = [0u8; 1024];
    let n = server.handle_line(text.as_bytes(), &mut out).unwrap();
    String::from_utf8(out[..n - 1].to_vec()).unwrap()
}

const ALL_CAPS: &str = r#"{"elicitation":{},"sampling":{},"roots":{}}"#;

fn call(id: u32, name: &str, caps: &str, extra: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{caps}}},"name":"{name}","arguments":{{}}{extra}}}}}"#
    )
}

/// The state as the module documentation describes it, computed with the MAC crates directly.
fn expected_state(data: &[u8], tool: &str, arguments: &str) -> String {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&KEY).unwrap();
    mac.update(b"embedded-mcp request state 2\0");
    mac.update(&BOOT.to_le_bytes());
    mac.update(&(data.len() as u32).to_le_bytes());
    mac.update(data);
    mac.update(tool.as_bytes());
    mac.update(&[0]);
    mac.update(arguments.as_bytes());
    let tag = mac.finalize().into_bytes();
    let hex = |b: &[u8]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
    format!("2{}{}", hex(data), hex(&tag[..16]))
}

#[test]
fn several_requests_of_several_methods_in_one_result() {
    let mut s = server();
    assert_eq!(
        line(&mut s, &call(1, "ask_all", ALL_CAPS, "")),
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"name":{"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}},"sample":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Hi"}}],"maxTokens":5}},"roots":{"method":"roots/list","params":{}}}}}"#
    );
    let answers = r#","inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}},"sample":{"role":"assistant","content":{"type":"text","text":"Hello"},"model":"m","stopReason":"endTurn"},"roots":{"roots":[{"uri":"file:///a"},{"uri":"file:///b"}]},"extra":{"action":"accept","content":{}}}"#;
    assert_eq!(
        line(&mut s, &call(2, "ask_all", ALL_CAPS, answers)),
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Ada Hello 2"}],"resultType":"complete"}}"#
    );
}

#[test]
fn a_missing_capability_is_minus_32021_naming_it() {
    let mut s = server();
    assert_eq!(
        line(
            &mut s,
            &call(3, "ask_all", r#"{"elicitation":{},"roots":{}}"#, "")
        ),
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32021,"message":"Missing required client capability: sampling","data":{"requiredCapabilities":{"sampling":{}}}}}"#
    );
    assert_eq!(
        line(
            &mut s,
            &call(4, "ask_all", r#"{"sampling":{},"roots":{}}"#, "")
        ),
        r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32021,"message":"Missing required client capability: elicitation","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}}"#
    );
    assert_eq!(
        line(
            &mut s,
            &call(5, "ask_all", r#"{"elicitation":{},"sampling":{}}"#, "")
        ),
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32021,"message":"Missing required client capability: roots","data":{"requiredCapabilities":{"roots":{}}}}}"#
    );
}

#[test]
fn two_rounds_carry_data_in_a_sealed_state() {
    let mut s = server();
    let state = expected_state(&[1, b'x'], "two_rounds", "{}");
    assert_eq!(
        line(&mut s, &call(1, "two_rounds", ALL_CAPS, "")),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required","inputRequests":{{"step":{{"method":"elicitation/create","params":{}}}}},"requestState":"{state}"}}}}"#,
            NAME_FORM.0
        )
    );
    let answer = format!(
        r#","inputResponses":{{"step":{{"action":"accept","content":{{"name":"A"}}}}}},"requestState":"{state}""#
    );
    assert_eq!(
        line(&mut s, &call(2, "two_rounds", ALL_CAPS, &answer)),
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}],"resultType":"complete"}}"#
    );
}

#[test]
fn altered_forged_and_misbound_states_are_minus_32602() {
    let mut s = server();
    let good = expected_state(&[1, b'x'], "two_rounds", "{}");
    let other_tool = expected_state(&[1, b'x'], "ask_all", "{}");
    let other_args = expected_state(&[1, b'x'], "two_rounds", r#"{"n":1}"#);
    let mut flipped: Vec<u8> = good.clone().into_bytes();
    flipped[2] ^= 1; // one bit of the data
    let flipped = String::from_utf8(flipped).unwrap();
    let tampered = format!("{good}-TAMPERED");
    let refused = |id: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32602,"message":"requestState integrity check failed"}}}}"#
        )
    };
    for (id, state) in [
        (1, tampered.as_str()),
        (2, flipped.as_str()),
        (3, other_tool.as_str()),
        (4, other_args.as_str()),
        (5, ""),
        (6, "2zz"),
    ] {
        let extra = format!(
            r#","inputResponses":{{"step":{{"action":"accept","content":{{}}}}}},"requestState":"{state}""#
        );
        assert_eq!(
            line(&mut s, &call(id, "two_rounds", ALL_CAPS, &extra)),
            refused(id)
        );
    }
    // A non-string state is malformed too; the next request is still served.
    let extra = r#","requestState":5"#;
    assert_eq!(
        line(&mut s, &call(7, "two_rounds", ALL_CAPS, extra)),
        refused(7)
    );
    assert!(line(&mut s, &call(8, "two_rounds", ALL_CAPS, "")).contains("input_required"));
}

#[test]
fn answers_that_are_not_the_asked_kind_are_not_read_as_answers() {
    for (text, ok) in [
        (r#"{"action":"accept","content":{"a":1}}"#, true),
        (r#"{"action":"accept"}"#, false),
        (r#"{"action":"accept","content":[1]}"#, false),
        (r#"{"action":"maybe"}"#, false),
        ("12345", false),
        ("null", false),
    ] {
        let v = crate::json::Value::parse(text.as_bytes()).unwrap();
        assert_eq!(matches!(elicited(v), Elicited::Accepted(_)), ok, "{text}");
    }
    let v = crate::json::Value::parse(br#"{"action":"decline"}"#).unwrap();
    assert_eq!(elicited(v), Elicited::Declined);
    let v = crate::json::Value::parse(br#"{"action":"cancel"}"#).unwrap();
    assert_eq!(elicited(v), Elicited::Cancelled);
    let v = crate::json::Value::parse(br#"{"role":"assistant","content":[{"type":"image","data":"","mimeType":"image/png"},{"type":"text","text":"T"}]}"#).unwrap();
    assert_eq!(sampled_text(v).map(|t| t.raw()), Some("T"));
    let v = crate::json::Value::parse(br#"{"content":{"type":"text","text":"T"}}"#).unwrap();
    assert_eq!(sampled_text(v), None);
    let v =
        crate::json::Value::parse(br#"{"roots":[{"uri":"file:///a"},{"name":"no uri"}]}"#).unwrap();
    assert_eq!(listed_roots(v), None);
    let v = crate::json::Value::parse(br#"{"roots":[]}"#).unwrap();
    assert_eq!(listed_roots(v), Some(0));
}

#[test]
fn seal_refuses_too_much_data_and_states_stay_within_their_length() {
    let params = crate::json::Value::parse(b"{}").unwrap();
    let call = Call {
        tool: &TOOLS[1],
        index: 1,
        arguments: params,
        version: crate::protocol::Version::V2026_07_28,
        params: None,
    };
    let seal = StateSeal::new(crate::server::approval::Key::provisioned(KEY), BOOT);
    let mut buf = [0u8; MAX_STATE_LEN];
    assert_eq!(
        seal.seal(&call, &[0; MAX_STATE_DATA + 1], &mut buf),
        Err(StateError::TooLong)
    );
    assert_eq!(
        seal.seal(&call, &[0xab; MAX_STATE_DATA], &mut buf)
            .map(str::len),
        Ok(MAX_STATE_LEN)
    );
    let mut data = [0u8; MAX_STATE_DATA];
    assert_eq!(seal.open(&call, &mut data), Ok(None));
}

#[test]
fn a_legacy_call_is_told_to_use_the_bridge() {
    let mut s = server();
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}"#;
    line(&mut s, init);
    let mut out = [0u8; 256];
    let none = s.handle_line(
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        &mut out,
    );
    assert_eq!(none, None);
    assert_eq!(
        line(
            &mut s,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_all","arguments":{}}}"#
        ),
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Tool ask_all asks the client for input this client cannot be asked for: use a client that declares the capability it asks for (a form: `embedded-mcp call` on a terminal answers it too)"}],"isError":true}}"#
    );
}
