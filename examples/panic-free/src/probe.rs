//! The one tool served: `probe`. Its schemas come from the UART; its handler decodes the
//! arguments with serde (`Call::parse`) and serialises a structured result, so the engine's
//! input check, the deserialiser, the result codec and the output check all run on input the
//! optimiser cannot see. A call with `"confirm": true` goes through a person's approval first
//! (`input_required`, the sealed `requestState` and its answer, all from the UART).

use embedded_mcp::json::Piece;
use embedded_mcp::server::approval::{Approvals, Confirmed, Key, Sealing};
use embedded_mcp::server::mrtr::{
    self, Elicited, InputMethod, InputRequest, Json, StateSeal, MAX_STATE_DATA, MAX_STATE_LEN,
};
use embedded_mcp::server::{Call, Done, Handler, Output, ServerInfo, ToolError};
use serde::{Deserialize, Serialize};

/// Who this server is.
pub const SERVER_INFO: ServerInfo = ServerInfo::new("panic-free", env!("CARGO_PKG_VERSION"))
    .title("Panic-free proof firmware")
    .instructions("Tool schemas and programs are read from the UART before serving.");

/// The name of the tool.
pub const NAME: &str = "probe";

/// `probe`'s arguments (all optional: the `inputSchema` from the UART decides what is valid).
#[derive(Deserialize)]
struct Arguments<'a> {
    label: Option<&'a str>,
    scale: Option<f64>,
    count: Option<u32>,
    values: Option<[i32; 3]>,
    fail: Option<bool>,
    confirm: Option<bool>,
    ask: Option<bool>,
}

/// `probe`'s result.
#[derive(Serialize)]
struct Reading<'a> {
    label: &'a str,
    value: f32,
    scaled: f64,
    count: u32,
    calls: u32,
    values: [i32; 3],
}

/// The handler: counts calls and echoes its arguments, transformed, as a structured result.
pub struct Probe {
    calls: u32,
    approvals: Approvals,
    seal: StateSeal,
}

/// The clock the approvals' expiry is measured on: the calls so far would do, but a volatile
/// read keeps the optimiser from knowing it (SysTick's current value).
fn clock() -> u64 {
    u64::from(cortex_m::peripheral::SYST::get_current())
}

/// The form `probe` asks with `"ask": true`.
const FORM: Json<'static> = Json(
    r#"{"mode":"form","message":"Which label?","requestedSchema":{"type":"object","properties":{"label":{"type":"string"}},"required":["label"]}}"#,
);

impl Probe {
    /// A handler that has seen no call.
    pub fn new() -> Self {
        // A fixed key: this firmware proves the absence of panics, it guards nothing.
        let key = Key::provisioned([0x5a; 32]);
        Self {
            calls: 0,
            approvals: Approvals::new(Sealing {
                key: key.clone(),
                boot_salt: clock(),
                clock,
            }),
            seal: StateSeal::new(key, 7),
        }
    }

    /// `"ask": true`: a first round asks for a label with `input_required` and a sealed state
    /// (the call count); the retry's answer and state are read back.
    fn ask(&mut self, call: &Call<'_>, out: Output<'_>) -> Done {
        let mut data = [0u8; MAX_STATE_DATA];
        match self.seal.open(call, &mut data) {
            Ok(Some(state)) => {
                let asked_at = state.first().copied().unwrap_or(0);
                return match mrtr::response(call, "label").map(mrtr::elicited) {
                    Some(Elicited::Accepted(content)) => out.blocks(|w| {
                        w.text_fmt(format_args!("asked at call {asked_at}: {}", content.raw()))
                    }),
                    Some(_) => out.error("no label"),
                    None => out.error("no answer"),
                };
            }
            Ok(None) => {}
            Err(_) => return mrtr::rejected_state(out),
        }
        let mut text = [0u8; MAX_STATE_LEN];
        let count = [u8::try_from(self.calls).unwrap_or(u8::MAX)];
        let Ok(state) = self.seal.seal(call, &count, &mut text) else {
            return out.error("state not sealed");
        };
        let requests = [InputRequest {
            key: "label",
            method: InputMethod::Elicitation,
            params: &FORM,
        }];
        mrtr::input_required(call, out, &requests, Some(state))
    }
}

impl Handler for Probe {
    type Error = ToolError;

    fn call(&mut self, call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
        self.calls = self.calls.wrapping_add(1);
        if call.name() != NAME {
            return Err(ToolError::NotImplemented);
        }
        let mut scratch = [0u8; 128];
        let arguments: Arguments<'_> = call.parse(&mut scratch)?;
        if arguments.ask == Some(true) {
            return Ok(self.ask(call, out));
        }
        if arguments.fail == Some(true) {
            return Ok(out.error_fmt(format_args!("asked to fail after {} calls", self.calls)));
        }
        let out = if arguments.confirm == Some(true) {
            let question = [Piece::Text("Probe "), Piece::Dec(u64::from(self.calls))];
            match self.approvals.confirm(call, out, &question) {
                Confirmed::Approved(out) => out,
                Confirmed::Answered(done) => return Ok(done),
            }
        } else {
            out
        };
        let scale = arguments.scale.unwrap_or(1.0);
        let count = arguments.count.unwrap_or(0);
        let values = arguments.values.unwrap_or([0; 3]);
        let reading = Reading {
            label: arguments.label.unwrap_or("none"),
            value: (scale * 1.5) as f32,
            scaled: scale / 3.0,
            count: count.wrapping_mul(2),
            calls: self.calls,
            values: values.map(|v| v.wrapping_neg()),
        };
        Ok(out.structured(&reading))
    }
}
