//! The fixture tools of the conformance suite's `tasks-*` scenarios (the tasks extension,
//! `io.modelcontextprotocol/tasks`), shaped as the scenarios describe them. The device knows
//! nothing of tasks: `embedded-mcp bridge` runs these calls as tasks (its `--task-tools`
//! option names them, see tests/conformance/run.sh), polls nothing on the device and maps
//! `tasks/cancel` to `notifications/cancelled`, which drops a sleeping call at once.
//!
//! - `greet`: sync only, `Hello, {name}!`.
//! - `slow_compute`: sleeps `seconds` (timer 0A, the CPU idle), then `computed {label}`.
//! - `failing_job`: a tool error (`isError`) after a second.
//! - `protocol_error_job`: a protocol-level failure, the JSON-RPC error -32603.
//! - `confirm_delete`, `multi_input`, `test_tool_with_task`: one, two and one elicitations
//!   (`input_required`), then a result that echoes the answers.

use embedded_mcp::json::{JsonStr, Piece};
use embedded_mcp::server::mrtr::{
    self, elicited, response, Elicited, InputMethod, InputRequest, Json,
};
use embedded_mcp::server::{Call, Done, Output};
use qemu_lm3s6965::timer;

/// `inputSchema` of `greet`.
pub const GREET_ARGUMENTS: &str =
    r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#;
/// `inputSchema` of `slow_compute`: at most 10 minutes.
pub const SLOW_COMPUTE_ARGUMENTS: &str = r#"{"type":"object","properties":{"seconds":{"type":"number","minimum":0,"maximum":600},"label":{"type":"string"}}}"#;
/// `inputSchema` of `confirm_delete`.
pub const CONFIRM_DELETE_ARGUMENTS: &str =
    r#"{"type":"object","properties":{"filename":{"type":"string"}}}"#;

/// `confirm_delete`'s question.
const CONFIRM_FORM: Json<'static> = Json(
    r#"{"message":"Delete the file?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}}"#,
);
/// `multi_input`'s two questions, asked at once.
const FIRST_FORM: Json<'static> = Json(
    r#"{"message":"First input: your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}"#,
);
const SECOND_FORM: Json<'static> = Json(
    r#"{"message":"Second input: confirm?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}}}}"#,
);
/// `test_tool_with_task`'s question.
const NAME_FORM: Json<'static> = Json(
    r#"{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}"#,
);

/// Longest decoded text echoed in a result.
const ECHO_BYTES: usize = 96;

/// The decoded text of `s` (in `buf`); `fallback` when absent or too long.
fn text_of<'b>(
    s: Option<JsonStr<'_>>,
    buf: &'b mut [u8; ECHO_BYTES],
    fallback: &'b str,
) -> &'b str {
    match s.map(|s| s.decode_into(buf)) {
        Some(Ok(text)) => text,
        _ => fallback,
    }
}

/// The string argument `name`.
fn argument<'a>(call: &Call<'a>, name: &str) -> Option<JsonStr<'a>> {
    call.arguments().get(name)?.as_str()
}

/// Answers the async tools of this module (`slow_compute`, `failing_job`); `Err(out)` back for
/// any other tool.
pub async fn answer_async<'o>(call: &Call<'_>, out: Output<'o>) -> Result<Done, Output<'o>> {
    Ok(match call.name() {
        "slow_compute" => {
            let seconds = call
                .arguments()
                .get("seconds")
                .and_then(|s| s.as_number())
                .and_then(|s| s.as_f64())
                .unwrap_or(0.0);
            // A float-to-integer `as` saturates (and maps NaN to 0); the schema caps it at 600.
            timer::sleep_ms((seconds * 1000.0) as u64).await;
            let mut buf = [0u8; ECHO_BYTES];
            let label = text_of(argument(call, "label"), &mut buf, "");
            out.blocks(|w| w.text_of(&[Piece::Text("computed "), Piece::Text(label)]))
        }
        "failing_job" => {
            timer::sleep_ms(1000).await;
            out.error("failing_job: the job failed, as it always does")
        }
        _ => return Err(out),
    })
}

/// Answers the sync tools of this module; `Err(out)` back for any other tool.
pub fn answer<'o>(call: &Call<'_>, out: Output<'o>) -> Result<Done, Output<'o>> {
    let mut buf = [0u8; ECHO_BYTES];
    Ok(match call.name() {
        "greet" => {
            let name = text_of(argument(call, "name"), &mut buf, "unknown");
            out.blocks(|w| {
                w.text_of(&[Piece::Text("Hello, "), Piece::Text(name), Piece::Text("!")])
            })
        }
        "protocol_error_job" => out.internal_error("protocol_error_job: the job broke"),
        "confirm_delete" => match response(call, "confirm").map(elicited) {
            Some(answer) => {
                let file = text_of(argument(call, "filename"), &mut buf, "the file");
                let verdict = match answer {
                    Elicited::Accepted(c)
                        if c.get("confirm").and_then(|v| v.as_bool()) == Some(true) =>
                    {
                        "Deleted "
                    }
                    _ => "Kept ",
                };
                out.blocks(|w| w.text_of(&[Piece::Text(verdict), Piece::Text(file)]))
            }
            None => mrtr::input_required(call, out, &[elicit("confirm", &CONFIRM_FORM)], None),
        },
        "multi_input" => match (response(call, "first"), response(call, "second")) {
            (Some(first), Some(second)) => out.blocks(|w| {
                w.text_of(&[
                    Piece::Text("multi_input done: first="),
                    Piece::Text(first.raw()),
                    Piece::Text(", second="),
                    Piece::Text(second.raw()),
                ])
            }),
            _ => mrtr::input_required(
                call,
                out,
                &[elicit("first", &FIRST_FORM), elicit("second", &SECOND_FORM)],
                None,
            ),
        },
        "test_tool_with_task" => match response(call, "user_name").map(elicited) {
            Some(Elicited::Accepted(content)) => {
                let name = content.get("name").and_then(|n| n.as_str());
                let name = text_of(name, &mut buf, "unknown");
                out.blocks(|w| {
                    w.text_of(&[Piece::Text("Hello, "), Piece::Text(name), Piece::Text("!")])
                })
            }
            _ => mrtr::input_required(call, out, &[elicit("user_name", &NAME_FORM)], None),
        },
        _ => return Err(out),
    })
}

/// An elicitation under `key`.
const fn elicit<'a>(key: &'a str, params: &'a Json<'a>) -> InputRequest<'a> {
    InputRequest {
        key,
        method: InputMethod::Elicitation,
        params,
    }
}
