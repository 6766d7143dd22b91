//! The fixture tools that ask the client for input (MCP 2026-07-28 multi-round-trip requests,
//! `embedded_mcp::server::mrtr`), shaped as the conformance suite's `input-required-*`,
//! `server-stateless` and 2025 elicitation scenarios describe them: the same keys, methods,
//! forms and result texts as the suite's reference server. What one round must remember
//! travels in a `requestState` sealed by [`StateSeal`]; a state that fails its check is
//! answered with -32602.
//!
//! The 2025-11-25 elicitation tools (`test_elicitation`, `test_elicitation_sep1034_defaults`,
//! `test_elicitation_sep1330_enums`) answer `input_required` too: the bridge's legacy shim
//! turns it into `elicitation/create` for a 2025 host and retries the call in 2026-07-28.

use embedded_mcp::json::{EncodeError, JsonStr, Piece, Sink, Value, Written};
use embedded_mcp::server::approval::Key;
use embedded_mcp::server::mrtr::{
    self, elicited, listed_roots, response, sampled_text, Capability, Elicited, InputMethod,
    InputRequest, Json, StateSeal, MAX_STATE_DATA, MAX_STATE_LEN,
};
use embedded_mcp::server::{Call, Done, Output};

/// The key that seals the fixtures' states: the QEMU demo key, public, and boot salt 0 (the
/// fixtures' states carry no counter to replay). So anyone with the source can seal a state;
/// the fixtures need integrity against a client that alters a state, which is what the suite
/// checks.
pub const SEAL: StateSeal = StateSeal::new(Key::DEMO, 0);

/// `{"name": string}` forms.
const NAME_FORM: Json<'static> = Json(
    r#"{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}"#,
);
const STEP1_FORM: Json<'static> = Json(
    r#"{"message":"Step 1: What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}"#,
);
const STEP2_FORM: Json<'static> = Json(
    r#"{"message":"Step 2: What is your favorite color?","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}}"#,
);
const CONFIRM_FORM: Json<'static> = Json(
    r#"{"message":"Please confirm","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}"#,
);
const VALUE_FORM: Json<'static> = Json(
    r#"{"message":"Elicitation input","requestedSchema":{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}}"#,
);
const CAPITAL: Json<'static> = Json(
    r#"{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":100}"#,
);
const GREETING: Json<'static> = Json(
    r#"{"messages":[{"role":"user","content":{"type":"text","text":"Generate a greeting"}}],"maxTokens":50}"#,
);
const SAMPLE: Json<'static> = Json(
    r#"{"messages":[{"role":"user","content":{"type":"text","text":"Sample request"}}],"maxTokens":50}"#,
);
const NO_PARAMS: Json<'static> = Json("{}");
/// SEP-1034: a default for every primitive type.
const DEFAULTS_FORM: Json<'static> = Json(
    r#"{"message":"Please review and update the form fields with defaults","requestedSchema":{"type":"object","properties":{"name":{"type":"string","description":"User name","default":"John Doe"},"age":{"type":"integer","description":"User age","default":30},"score":{"type":"number","description":"User score","default":95.5},"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}}"#,
);
/// SEP-1330: the five enum forms.
const ENUMS_FORM: Json<'static> = Json(
    r#"{"message":"Please select options from the enum fields","requestedSchema":{"type":"object","properties":{"untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},"titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},"legacyEnum":{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},"untitledMulti":{"type":"array","description":"Select multiple options","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},"titledMulti":{"type":"array","description":"Select multiple options with titles","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},"required":[]}}"#,
);

const fn ask<'a>(key: &'a str, method: InputMethod, params: &'a Json<'a>) -> InputRequest<'a> {
    InputRequest {
        key,
        method,
        params,
    }
}

/// Longest decoded answer text echoed in a result.
const ECHO_BYTES: usize = 96;

/// The decoded text of `s` (in `buf`); "unknown" when absent or too long.
fn text_of<'b>(s: Option<JsonStr<'_>>, buf: &'b mut [u8; ECHO_BYTES]) -> &'b str {
    match s.map(|s| s.decode_into(buf)) {
        Some(Ok(text)) => text,
        _ => "unknown",
    }
}

/// The string member `field` of an accepted form in `inputResponses[key]`.
fn accepted_field<'a>(call: &Call<'a>, key: &str, field: &str) -> Option<JsonStr<'a>> {
    match response(call, key).map(elicited) {
        Some(Elicited::Accepted(content)) => content.get(field)?.as_str(),
        _ => None,
    }
}

/// What the state of this call holds: `Ok(None)` without one; `Err(())` when it fails its
/// integrity check (the caller answers -32602).
fn opened<'b>(call: &Call<'_>, buf: &'b mut [u8; MAX_STATE_DATA]) -> Result<Option<&'b [u8]>, ()> {
    SEAL.open(call, buf).map_err(|_| ())
}

/// Asks `requests` with a state sealing `data`.
fn ask_sealed(
    call: &Call<'_>,
    out: Output<'_>,
    requests: &[InputRequest<'_>],
    data: &[u8],
) -> Done {
    let mut text = [0u8; MAX_STATE_LEN];
    match SEAL.seal(call, data, &mut text) {
        Ok(state) => mrtr::input_required(call, out, requests, Some(state)),
        Err(_) => out.error("the request state could not be sealed"),
    }
}

/// Answers the tools of this module; `Err(out)` back for any other tool.
pub fn answer<'o>(call: &Call<'_>, out: Output<'o>) -> Result<Done, Output<'o>> {
    let mut buf = [0u8; ECHO_BYTES];
    let mut data = [0u8; MAX_STATE_DATA];
    Ok(match call.name() {
        "test_missing_capability" => {
            if mrtr::declares(call, Capability::Sampling) {
                out.text("Success")
            } else {
                mrtr::missing_capability(out, Capability::Sampling)
            }
        }
        "test_input_required_result_elicitation" => {
            match accepted_field(call, "user_name", "name") {
                Some(name) => out.blocks(|w| {
                    w.text_of(&[
                        Piece::Text("Hello, "),
                        Piece::Text(text_of(Some(name), &mut buf)),
                        Piece::Text("!"),
                    ])
                }),
                None => mrtr::input_required(
                    call,
                    out,
                    &[ask("user_name", InputMethod::Elicitation, &NAME_FORM)],
                    None,
                ),
            }
        }
        "test_input_required_result_sampling" => {
            match response(call, "sample_request").and_then(sampled_text) {
                Some(text) => out.blocks(|w| {
                    w.text_of(&[
                        Piece::Text("Sampling result: "),
                        Piece::Text(text_of(Some(text), &mut buf)),
                    ])
                }),
                None => mrtr::input_required(
                    call,
                    out,
                    &[ask("sample_request", InputMethod::Sampling, &CAPITAL)],
                    None,
                ),
            }
        }
        "test_input_required_result_list_roots" => {
            match response(call, "roots_request").and_then(listed_roots) {
                Some(n) => out.blocks(|w| {
                    w.text_of(&[
                        Piece::Text("Found "),
                        Piece::Dec(n as u64),
                        Piece::Text(" root(s)"),
                    ])
                }),
                None => mrtr::input_required(
                    call,
                    out,
                    &[ask("roots_request", InputMethod::ListRoots, &NO_PARAMS)],
                    None,
                ),
            }
        }
        "test_input_required_result_request_state" => match opened(call, &mut data) {
            Err(()) => mrtr::rejected_state(out),
            Ok(Some(b"request-state")) if confirmed(call) => {
                out.text("state-ok: requestState validated")
            }
            Ok(_) => ask_sealed(
                call,
                out,
                &[ask("confirm", InputMethod::Elicitation, &CONFIRM_FORM)],
                b"request-state",
            ),
        },
        "test_input_required_result_tampered_state" => match opened(call, &mut data) {
            Err(()) => mrtr::rejected_state(out),
            Ok(Some(b"tamper-test")) if response(call, "confirm").is_some() => {
                out.text("integrity-ok: state verified")
            }
            Ok(_) => ask_sealed(
                call,
                out,
                &[ask("confirm", InputMethod::Elicitation, &CONFIRM_FORM)],
                b"tamper-test",
            ),
        },
        "test_input_required_result_multiple_inputs" => multiple_inputs(call, out),
        "test_input_required_result_multi_round" => multi_round(call, out),
        "test_input_required_result_capabilities" => capabilities(call, out),
        "test_elicitation" => legacy_elicitation(call, out, "User response: "),
        "test_elicitation_sep1034_defaults" => {
            form_then_echo(call, out, &DEFAULTS_FORM, "Elicitation completed: ")
        }
        "test_elicitation_sep1330_enums" => {
            form_then_echo(call, out, &ENUMS_FORM, "Elicitation completed: ")
        }
        _ => return Err(out),
    })
}

/// True when `inputResponses.confirm` accepts with `ok: true`.
fn confirmed(call: &Call<'_>) -> bool {
    match response(call, "confirm").map(elicited) {
        Some(Elicited::Accepted(c)) => c.get("ok").and_then(|v| v.as_bool()) == Some(true),
        _ => false,
    }
}

/// An elicitation, a sampling and a roots request in one result, answered together.
fn multiple_inputs(call: &Call<'_>, out: Output<'_>) -> Done {
    let mut data = [0u8; MAX_STATE_DATA];
    let state = match opened(call, &mut data) {
        Err(()) => return mrtr::rejected_state(out),
        Ok(state) => state,
    };
    let name = accepted_field(call, "user_name", "name");
    let greeting = response(call, "greeting").and_then(sampled_text);
    let roots = response(call, "client_roots").and_then(listed_roots);
    if let (Some(b"multiple-inputs"), Some(name), Some(greeting), Some(roots)) =
        (state, name, greeting, roots)
    {
        let (mut a, mut b) = ([0u8; ECHO_BYTES], [0u8; ECHO_BYTES]);
        let (name, greeting) = (text_of(Some(name), &mut a), text_of(Some(greeting), &mut b));
        return out.blocks(|w| {
            w.text_of(&[
                Piece::Text("Name: "),
                Piece::Text(name),
                Piece::Text("; Greeting: "),
                Piece::Text(greeting),
                Piece::Text("; Roots: "),
                Piece::Dec(roots as u64),
            ])
        });
    }
    ask_sealed(
        call,
        out,
        &[
            ask("user_name", InputMethod::Elicitation, &NAME_FORM),
            ask("greeting", InputMethod::Sampling, &GREETING),
            ask("client_roots", InputMethod::ListRoots, &NO_PARAMS),
        ],
        b"multiple-inputs",
    )
}

/// Three rounds: a name, then a colour (the name carried in the state), then the result.
fn multi_round(call: &Call<'_>, out: Output<'_>) -> Done {
    let mut data = [0u8; MAX_STATE_DATA];
    let state = match opened(call, &mut data) {
        Err(()) => return mrtr::rejected_state(out),
        Ok(state) => state,
    };
    let step1 = [ask("step1", InputMethod::Elicitation, &STEP1_FORM)];
    match state.and_then(|s| s.split_first()) {
        Some((b'1', _)) => {
            let mut name = [0u8; ECHO_BYTES];
            let Some(given) =
                accepted_field(call, "step1", "name").and_then(|n| n.decode_into(&mut name).ok())
            else {
                return ask_sealed(call, out, &step1, b"1");
            };
            // Round 2's state: `2` and the name (cut to what a state holds).
            let mut next = [0u8; MAX_STATE_DATA];
            let kept = given.len().min(MAX_STATE_DATA - 1);
            let (head, rest) = next.split_at_mut(1);
            head[0] = b'2';
            rest[..kept].copy_from_slice(&given.as_bytes()[..kept]);
            ask_sealed(
                call,
                out,
                &[ask("step2", InputMethod::Elicitation, &STEP2_FORM)],
                &next[..=kept],
            )
        }
        Some((b'2', name)) => {
            let mut buf = [0u8; ECHO_BYTES];
            match accepted_field(call, "step2", "color") {
                Some(color) => {
                    let name = core::str::from_utf8(name).unwrap_or("friend");
                    let color = text_of(Some(color), &mut buf);
                    out.blocks(|w| {
                        w.text_of(&[
                            Piece::Text("Multi-round complete for "),
                            Piece::Text(name),
                            Piece::Text(" who likes "),
                            Piece::Text(color),
                        ])
                    })
                }
                None => ask_sealed(
                    call,
                    out,
                    &[ask("step2", InputMethod::Elicitation, &STEP2_FORM)],
                    state.unwrap_or_default(),
                ),
            }
        }
        // No state (or one of another shape): start over.
        _ => ask_sealed(call, out, &step1, b"1"),
    }
}

/// Asks only for what the client declared: an elicitation, a sampling, both or neither.
fn capabilities(call: &Call<'_>, out: Output<'_>) -> Done {
    let mut data = [0u8; MAX_STATE_DATA];
    let state = match opened(call, &mut data) {
        Err(()) => return mrtr::rejected_state(out),
        Ok(state) => state,
    };
    let got_elicit = response(call, "elicit_input").is_some();
    let got_sample = response(call, "sample_input").is_some();
    if state == Some(b"capabilities-test") && (got_elicit || got_sample) {
        let received = match (got_elicit, got_sample) {
            (true, true) => "elicit_input,sample_input",
            (true, false) => "elicit_input",
            _ => "sample_input",
        };
        return out.blocks(|w| {
            w.text_of(&[
                Piece::Text("capabilities-ok: received "),
                Piece::Text(received),
            ])
        });
    }
    let elicit = ask("elicit_input", InputMethod::Elicitation, &VALUE_FORM);
    let sample = ask("sample_input", InputMethod::Sampling, &SAMPLE);
    let both = [elicit, sample];
    let asked: &[InputRequest<'_>] = match (
        mrtr::declares(call, Capability::Elicitation),
        mrtr::declares(call, Capability::Sampling),
    ) {
        (true, true) => &both,
        (true, false) => &both[..1],
        (false, true) => &both[1..],
        (false, false) => return out.text("No supported capabilities declared"),
    };
    ask_sealed(call, out, asked, b"capabilities-test")
}

/// `test_elicitation`: the form shows the `message` argument; the answer is echoed.
fn legacy_elicitation(call: &Call<'_>, out: Output<'_>, prefix: &str) -> Done {
    if let Some(answer) = response(call, "user_input") {
        return echo(out, prefix, answer);
    }
    let message = call
        .arguments()
        .get("message")
        .and_then(|m| m.as_str())
        .map_or("", |m| m.raw());
    // The message is already a JSON string body (checked escapes): written back as it is.
    let params = Written(|sink: &mut dyn Sink| -> Result<(), EncodeError> {
        sink.put(b"{\"message\":\"")?;
        sink.put(message.as_bytes())?;
        sink.put(br#"","requestedSchema":{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}}"#)
    });
    let request = InputRequest {
        key: "user_input",
        method: InputMethod::Elicitation,
        params: &params,
    };
    mrtr::input_required(call, out, &[request], None)
}

/// A fixed form; the answer is echoed.
fn form_then_echo(call: &Call<'_>, out: Output<'_>, form: &Json<'_>, prefix: &str) -> Done {
    match response(call, "user_input") {
        Some(answer) => echo(out, prefix, answer),
        None => mrtr::input_required(
            call,
            out,
            &[ask("user_input", InputMethod::Elicitation, form)],
            None,
        ),
    }
}

/// `PREFIXaction=<action>, content=<content JSON>`, as the reference server writes it.
fn echo(out: Output<'_>, prefix: &str, answer: Value<'_>) -> Done {
    let action = match elicited(answer) {
        Elicited::Accepted(_) => "accept",
        Elicited::Declined => "decline",
        Elicited::Cancelled => "cancel",
        _ => return out.error("the answer is not an ElicitResult"),
    };
    let content = answer.get("content").map_or("{}", |c| c.raw());
    out.blocks(|w| {
        w.text_of(&[
            Piece::Text(prefix),
            Piece::Text("action="),
            Piece::Text(action),
            Piece::Text(", content="),
            Piece::Text(content),
        ])
    })
}
