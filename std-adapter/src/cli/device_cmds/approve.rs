//! `call` on a tool that asks a person first: the call goes to the device in 2026-07-28 form,
//! declaring `elicitation`; when the device answers `input_required`, the person at the terminal
//! is shown its question and form ([`super::form`]) and the call is retried with their answers
//! and the device's `requestState`, as many rounds as the device asks (at most
//! [`MAX_ROUNDS`]). `--yes` approves without a terminal; with neither, nothing is asked and the
//! command says how to answer.
//!
//! A legacy session (`initialize`) takes this path when the device also speaks 2026-07-28
//! (its `server/discover` says so, as every embedded-mcp device's does); the final result is then
//! shaped as the session's revision has it, as the bridge does for its legacy hosts.

use std::io::{BufRead, IsTerminal, Write};

use serde_json::{json, Map, Value};

use super::form::{accept, decline, yes_no, Form, Typed};
use crate::bridge::input_shim::legacy_result;
use crate::bridge::message::meta;
use crate::device::client::{Client, ClientError, Response, MODERN_PROTOCOL};

/// Most rounds of one call: a device that keeps asking is not answered forever.
pub(super) const MAX_ROUNDS: u32 = 8;

/// Who answers the device's questions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Answerer {
    /// The person at the terminal (stdin is one).
    Terminal,
    /// `--yes`: every question approved.
    Yes,
    /// Nobody: asking ends the command.
    Nobody,
}

impl Answerer {
    /// `--yes`, else the terminal when stdin is one, else nobody.
    pub(super) fn new(yes: bool) -> Self {
        if yes {
            Self::Yes
        } else if std::io::stdin().is_terminal() {
            Self::Terminal
        } else {
            Self::Nobody
        }
    }
}

/// How a call that may ask ended.
pub(super) enum Asked {
    /// The device's final answer.
    Answered(Response),
    /// Nothing more to do: the reason is printed; exit with 1.
    Stopped,
}

/// The elicitation capability `call` declares: forms, which it shows on the terminal.
pub(super) fn capabilities() -> Value {
    json!({"elicitation": {"form": {}}})
}

/// Whether a legacy session's device also speaks 2026-07-28 (its `server/discover` lists it).
pub(super) fn speaks_modern(client: &mut Client) -> bool {
    let probe = json!({"_meta": modern_meta()});
    client
        .request("server/discover", probe)
        .ok()
        .and_then(|r| r.result().cloned())
        .and_then(|r| r.get("supportedVersions").cloned())
        .and_then(|v| v.as_array().cloned())
        .is_some_and(|v| v.iter().any(|v| v.as_str() == Some(MODERN_PROTOCOL)))
}

/// `_meta` of a 2026-07-28 request sent in a legacy session.
fn modern_meta() -> Value {
    json!({
        meta::PROTOCOL_VERSION: MODERN_PROTOCOL,
        meta::CLIENT_CAPABILITIES: capabilities(),
        meta::CLIENT_INFO: {"name": "embedded-mcp", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// Calls `tool` in 2026-07-28 form and answers the device's questions with `answerer`. In a
/// legacy session (`legacy`), the final result is reshaped for its revision.
pub(super) fn call_asking(
    client: &mut Client,
    tool: &str,
    arguments: &Value,
    answerer: Answerer,
    legacy: bool,
) -> Result<Asked, ClientError> {
    let mut round: Option<(Map<String, Value>, Value)> = None;
    for _ in 0..MAX_ROUNDS {
        let mut params = json!({"name": tool, "arguments": arguments});
        if legacy {
            params["_meta"] = modern_meta();
        }
        if let Some((responses, state)) = round.take() {
            params["inputResponses"] = Value::Object(responses);
            params["requestState"] = state;
        }
        let response = client.request("tools/call", params)?;
        let result = response.result().cloned().unwrap_or(Value::Null);
        if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
            return Ok(Asked::Answered(if legacy {
                legacy_shaped(response)
            } else {
                response
            }));
        }
        let requests = result
            .get("inputRequests")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let mut responses = Map::new();
        for (key, request) in &requests {
            let method = request.get("method").and_then(Value::as_str).unwrap_or("");
            let form = match Form::from_request(method, request.get("params")) {
                Ok(form) => form,
                Err(why) => {
                    eprintln!("embedded-mcp call: {why}");
                    return Ok(Asked::Stopped);
                }
            };
            let answer = match answerer {
                Answerer::Yes => match form.approved() {
                    Ok(content) => {
                        eprintln!("The device asks: {} (approved: --yes)", form.message);
                        accept(content)
                    }
                    Err(why) => {
                        eprintln!("embedded-mcp call: {why}");
                        return Ok(Asked::Stopped);
                    }
                },
                Answerer::Terminal => ask_terminal(&form),
                Answerer::Nobody => {
                    eprintln!(
                        "embedded-mcp call: `{tool}` asks a person first: \"{}\"; run `call` on a \
                         terminal to answer, or pass --yes to approve",
                        form.message
                    );
                    return Ok(Asked::Stopped);
                }
            };
            responses.insert(key.clone(), answer);
        }
        let state = result.get("requestState").cloned().unwrap_or(Value::Null);
        round = Some((responses, state));
    }
    eprintln!("embedded-mcp call: the device still asks after {MAX_ROUNDS} rounds");
    Ok(Asked::Stopped)
}

/// The device's 2026-07-28 response as a legacy session has it (its `result` reshaped, every
/// other byte the device's).
fn legacy_shaped(response: Response) -> Response {
    let raw = embedded_mcp::json::Value::parse_with(
        &response.line,
        embedded_mcp::json::Limits {
            max_depth: embedded_mcp::json::MAX_DEPTH_LIMIT,
        },
    );
    let Some(result) = raw
        .ok()
        .and_then(|v| v.get("result").map(|r| legacy_result(&r)))
    else {
        return response;
    };
    let id = response.message.get("id").cloned().unwrap_or(Value::Null);
    let mut line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":").into_bytes();
    line.extend_from_slice(&result);
    line.push(b'}');
    match serde_json::from_slice(&line) {
        Ok(message) => Response { line, message },
        Err(_) => response,
    }
}

/// Shows `form` on the terminal (stderr) and reads the answers (stdin): `y`/`n` for one
/// boolean, each field for a larger form. End of input is a no.
fn ask_terminal(form: &Form) -> Value {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut read = |prompt: &str| -> Option<String> {
        eprint!("{prompt}");
        let _ = std::io::stderr().flush();
        lines.next().and_then(Result::ok)
    };
    eprintln!("The device asks: {}", form.message);
    if form.is_yes_no() {
        loop {
            let Some(line) = read("Approve? [y/n] ") else {
                return decline();
            };
            match yes_no(&line) {
                Some(true) => return accept(form.approved().unwrap_or_default()),
                Some(false) => return decline(),
                None => eprintln!("answer y or n"),
            }
        }
    }
    let mut content = Map::new();
    for field in &form.fields {
        loop {
            let Some(line) = read(&Form::prompt(field)) else {
                return decline();
            };
            match Form::read(field, &line) {
                Typed::Value(value) => {
                    content.insert(field.name.clone(), value);
                    break;
                }
                Typed::Empty => break,
                Typed::Invalid(why) => eprintln!("{why}"),
            }
        }
    }
    accept(content)
}
