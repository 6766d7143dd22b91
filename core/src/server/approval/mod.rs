//! A person's approval before a tool acts (feature `approval`), with MCP 2026-07-28
//! multi-round-trip requests: the device answers the call with `input_required` and an
//! elicitation form, the client asks the person and retries the call with the answer in
//! `inputResponses` and the device's `requestState` echoed. The device keeps nothing between
//! the two rounds but a 32-bit counter and a window of spent approvals.
//!
//! ```
//! use embedded_mcp::json::Piece;
//! use embedded_mcp::server::approval::{Approvals, Confirmed};
//! use embedded_mcp::server::{Call, Done, Handler, Output, ToolError};
//!
//! struct Valve {
//!     approvals: Approvals,
//!     open: bool,
//! }
//!
//! impl Handler for Valve {
//!     type Error = ToolError;
//!
//!     fn call(&mut self, call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
//!         let now_ms = 0; // the device clock
//!         let question = [Piece::Text("Open the valve?")];
//!         // Nothing below runs before an accepted answer for this very call.
//!         let out = match self.approvals.confirm(call, out, now_ms, &question) {
//!             Confirmed::Approved(out) => out,
//!             Confirmed::Answered(done) => return Ok(done),
//!         };
//!         self.open = true;
//!         Ok(out.text("opened"))
//!     }
//! }
//!
//! // A per-boot random key from the chip's RNG in real firmware.
//! let valve = Valve { approvals: Approvals::new([7; 32], 0), open: false };
//! # let _ = valve;
//! ```
//!
//! Typed tools say it with `#[tool(confirm = Self::ask_relay)]`: before the method runs, the
//! generated handler calls `Self::ask_relay(&mut self, &args)` (`(&mut self)` for a tool without
//! arguments), which returns `Some(`[`Ask`]`)` when this call needs a person's yes and `None`
//! when it does not, and passes it to [`gate`].
//!
//! # What the device checks
//!
//! - **Capabilities.** The form is sent only to a request whose `_meta` client capabilities
//!   declare `elicitation`; any other 2026-07-28 request gets -32021 with
//!   `data.requiredCapabilities`.
//! - **The state.** `requestState` is attacker input. It carries an approval number and an
//!   expiry on the device clock in clear, sealed by HMAC-SHA-256 (RustCrypto `hmac` and `sha2`,
//!   tag cut to 128 bits) over those, the tool's name, the arguments (their text without the
//!   whitespace between tokens) and the boot's salt. A state that was altered, forged, made for
//!   another tool or other arguments, or in another boot is refused; so is an expired one, and
//!   one already answered (each number is spent by its first answer, whatever it is; the device
//!   remembers the last 32 numbers it issued, an older one is refused as spent).
//! - **The answer.** `decline` and `cancel` are `isError` results that say so; `accept` must
//!   carry content matching the requested form (`approve`, a boolean) and `approve: true` to
//!   let the tool act. Anything else is an `isError` result. An answer without a state is
//!   refused; a valid state without an answer gets a new form.
//! - **Legacy sessions** (2025 revisions, connected straight to the device): the device does
//!   not hold a request open to send `elicitation/create` mid-call. It answers with an `isError`
//!   that asks for a client declaring elicitation; the bridge is one for a legacy host that
//!   declared it (it asks the host on the device's behalf). The same text reaches a legacy host
//!   without elicitation through the bridge.
//!
//! # The key
//!
//! The firmware gives the key and a boot salt to [`Approvals::new`]:
//! - a **per-boot random key** (from the chip's RNG): states die with the boot, and the salt
//!   may be 0;
//! - a **provisioned key** (the same across boots, kept in flash or a secure element): the salt
//!   must differ at every boot (a boot counter kept in flash, or a random value), otherwise the
//!   counter restarts and a state from an earlier boot would be accepted again. A provisioned
//!   key also lets several devices share one key, which a per-device key avoids.
//!
//! Anyone who can read the key can approve anything: keep it out of logs and out of
//! `device_info`.

mod form;
pub(super) mod seal;
#[cfg(test)]
mod tests;

use crate::json::{Describe, Piece, SliceSink};

use self::form::{answer, write_input_required, Answer};
use self::seal::{open, seal, Binding, Broken, Sealed};
use super::handler::Failure;
use super::mrtr::Capability;
use super::{Call, Done, Output};

/// Approvals a device has issued in the current boot, and the key that seals them.
#[derive(Clone)]
pub struct Approvals {
    key: [u8; 32],
    boot: u32,
    lifetime_ms: u64,
    /// The number of the next approval asked for.
    next: u32,
    /// Bit `i`: approval `next - 1 - i` has been answered.
    spent: u32,
}

impl core::fmt::Debug for Approvals {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Never the key.
        f.debug_struct("Approvals")
            .field("boot", &self.boot)
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

/// How long an approval stays valid by default: two minutes on the device clock.
pub const DEFAULT_LIFETIME_MS: u64 = 120_000;

/// How many of the latest approvals are remembered as spent or not; an older one is refused.
pub const WINDOW: u32 = 32;

/// What [`Approvals::confirm`] decided.
#[derive(Debug)]
pub enum Confirmed<'o> {
    /// A person approved this very call (tool and arguments): act, then answer through the
    /// output.
    Approved(Output<'o>),
    /// The call is answered without acting (a form to fill in, a refusal, or -32021): return
    /// this from the handler.
    Answered(Done),
}

/// What a typed tool's `confirm` function returns when a call needs approval: the approvals
/// to seal with, the device clock and the question shown to the person.
#[derive(Debug)]
pub struct Ask<'a, M> {
    /// The device's approvals.
    pub approvals: &'a mut Approvals,
    /// The device clock, milliseconds.
    pub now_ms: u64,
    /// The question (for example an array of [`Piece`]s naming the arguments).
    pub message: M,
}

/// The gate of a typed tool with `confirm` (called by the code `#[embedded_mcp::tools]`
/// generates): the output back when the call needs no approval (`None`) or was approved.
pub fn gate<'o, M: Describe>(
    ask: Option<Ask<'_, M>>,
    call: &Call<'_>,
    out: Output<'o>,
) -> Confirmed<'o> {
    match ask {
        None => Confirmed::Approved(out),
        Some(ask) => ask.approvals.confirm(call, out, ask.now_ms, &ask.message),
    }
}

impl Approvals {
    /// Approvals sealed with `key`, in the boot named `boot` (see the module documentation for
    /// the choice of key and salt).
    pub const fn new(key: [u8; 32], boot: u32) -> Self {
        Self {
            key,
            boot,
            lifetime_ms: DEFAULT_LIFETIME_MS,
            next: 0,
            spent: 0,
        }
    }

    /// How long an approval stays valid, in milliseconds of the device clock.
    pub const fn lifetime_ms(mut self, lifetime_ms: u64) -> Self {
        self.lifetime_ms = lifetime_ms;
        self
    }

    /// Asks a person to approve `call` with `message`, or reads their answer: the output back
    /// when this call (its tool and arguments) was approved, the call's answer otherwise.
    /// `now_ms` is the device clock (the one the expiry is measured on).
    pub fn confirm<'o>(
        &mut self,
        call: &Call<'_>,
        out: Output<'o>,
        now_ms: u64,
        message: &dyn Describe,
    ) -> Confirmed<'o> {
        let refuse = |out: Output<'o>, why: &str| {
            Confirmed::Answered(out.error_of(&[
                Piece::Text(why),
                Piece::Text(": tool "),
                Piece::Text(call.name()),
                Piece::Text(" did not act"),
            ]))
        };
        if call.version().is_legacy() {
            return refuse(
                out,
                "This tool needs a person's approval, which this client cannot be asked for: use \
                 a client that declares elicitation, or `embedded-mcp call` on a terminal",
            );
        }
        let binding = Binding {
            key: &self.key,
            boot: self.boot,
            tool: call.name(),
            arguments: call.arguments().raw(),
        };
        let params = call.params;
        let responses = params.and_then(|p| p.get("inputResponses"));
        let state = params.and_then(|p| p.get("requestState"));
        let Some(state) = state else {
            if responses.is_some() {
                return refuse(
                    out,
                    "Approval refused: an answer came without its requestState",
                );
            }
            return self.ask(call, out, now_ms, message);
        };
        let sealed =
            match state.as_str().map(|s| open(&binding, s.raw())) {
                Some(Ok(sealed)) => sealed,
                Some(Err(Broken::Forged)) => return refuse(
                    out,
                    "Approval refused: the requestState was not issued by this device for this \
                     tool and these arguments",
                ),
                Some(Err(Broken::Malformed)) | None => {
                    return refuse(out, "Approval refused: the requestState is malformed")
                }
            };
        let Some(answer) = answer(responses) else {
            // A genuine state without its answer: ask again.
            return self.ask(call, out, now_ms, message);
        };
        if !self.spend(sealed.counter) {
            return refuse(out, "Approval refused: this approval was already answered");
        }
        if now_ms > sealed.expiry_ms {
            return refuse(out, "Approval refused: it expired");
        }
        match answer {
            Answer::Approved => Confirmed::Approved(out),
            Answer::NotApproved => refuse(out, "The user did not approve"),
            Answer::Declined => refuse(out, "The user declined"),
            Answer::Cancelled => refuse(out, "The user cancelled"),
            Answer::Invalid => refuse(
                out,
                "Approval refused: the answer does not match the requested form (action \
                 accept with content {\"approve\": boolean}, decline or cancel)",
            ),
        }
    }

    /// Answers with a new sealed form, or -32021 when the client cannot show one.
    fn ask<'o>(
        &mut self,
        call: &Call<'_>,
        out: Output<'o>,
        now_ms: u64,
        message: &dyn Describe,
    ) -> Confirmed<'o> {
        if !super::mrtr::declares(call, Capability::Elicitation) {
            return Confirmed::Answered(Done::failed(Failure::MissingCapability(
                Capability::Elicitation,
            )));
        }
        let Some(next) = self.next.checked_add(1) else {
            return Confirmed::Answered(
                out.error("Approval refused: no approval numbers left until the device restarts"),
            );
        };
        let sealed = Sealed {
            counter: self.next,
            expiry_ms: now_ms.saturating_add(self.lifetime_ms),
        };
        let binding = Binding {
            key: &self.key,
            boot: self.boot,
            tool: call.name(),
            arguments: call.arguments().raw(),
        };
        let Some(state) = seal(&binding, sealed) else {
            return Confirmed::Answered(
                out.error("Approval refused: the state could not be sealed"),
            );
        };
        self.next = next;
        self.spent <<= 1;
        let buf = out.into_buf();
        let mut sink = SliceSink::new(buf);
        let written = write_input_required(&mut sink, message, &state);
        Confirmed::Answered(match written.and_then(|()| sink.finish()) {
            Ok(len) => Done::input_required(len),
            Err(e) => Done::failed(Failure::Encode(e)),
        })
    }

    /// Marks approval `counter` answered; `false` when it already was, was never issued, or is
    /// older than the window.
    fn spend(&mut self, counter: u32) -> bool {
        let Some(age) = self
            .next
            .checked_sub(counter)
            .and_then(|a| a.checked_sub(1))
        else {
            return false;
        };
        if age >= WINDOW {
            return false;
        }
        let bit = 1u32.checked_shl(age).unwrap_or(0);
        if self.spent & bit != 0 {
            return false;
        }
        self.spent |= bit;
        true
    }
}
