//! A person's approval before a tool acts (feature `approval`), with MCP 2026-07-28
//! multi-round-trip requests: the device answers the call with `input_required` and an
//! elicitation form, the client asks the person and retries the call with the answer in
//! `inputResponses` and the device's `requestState` echoed. The device keeps nothing between
//! the two rounds but a 32-bit counter and a window of 512 spent-or-pending approvals.
//!
//! ```
//! use embedded_mcp::json::Piece;
//! use embedded_mcp::server::approval::{Approvals, Confirmed, Key, Sealing};
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
//!         let question = [Piece::Text("Open the valve?")];
//!         // Nothing below runs before an accepted answer for this very call.
//!         let out = match self.approvals.confirm(call, out, &question) {
//!             Confirmed::Approved(out) => out,
//!             Confirmed::Answered(done) => return Ok(done),
//!         };
//!         self.open = true;
//!         Ok(out.text("opened"))
//!     }
//! }
//!
//! // A board library supplies this (`qemu_lm3s6965::approval::sealing()`,
//! // `rp2040_mcp::approval::sealing()`): the key from provisioning, a salt that differs at
//! // every boot, and the clock.
//! fn uptime_ms() -> u64 { 0 }
//! let sealing = Sealing { key: Key::provisioned([7; 32]), boot_salt: 0x5eed, clock: uptime_ms };
//! let valve = Valve { approvals: Approvals::new(sealing), open: false };
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
//! - **The state.** `requestState` is attacker input. It carries the boot's id, an approval
//!   number and an expiry on the device clock in clear, sealed by HMAC-SHA-256 (on RustCrypto
//!   `sha2`'s compression function, tag cut to 128 bits) over those, the tool's name, the
//!   arguments (their text without the whitespace between tokens) and the boot's salt. Each refusal says what
//!   happened:
//!   - **another boot**: the state's boot id is not this boot's, or it claims a number this
//!     boot has not issued yet or an expiry beyond any it can have issued (an expiry never
//!     outlives the boot: a state forged with the key and expiry 2^64 − 1 is refused);
//!   - **other arguments**: the MAC does not match (altered, forged, another tool or other
//!     arguments);
//!   - **expired**: past its expiry ([`DEFAULT_LIFETIME_MS`] after it was asked for);
//!   - **answered already**: each number is spent by its first answer, whatever it is;
//!   - **too old**: more than 511 approvals were asked for since ([`WINDOW`]). A pending
//!     approval survives 511 asks from anyone else.
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
//! # The key, the salt and the clock
//!
//! A firmware gives [`Approvals::new`] a [`Sealing`], which its board library builds:
//! - **the key** comes from provisioning. On a real board, build with
//!   `EMBEDDED_MCP_APPROVAL_KEY` set to 64 hex digits (`openssl rand -hex 32`), read by
//!   [`provisioned_key!`](crate::provisioned_key) while the board library compiles (a build
//!   without it fails and says so), or read a key written to a known flash page into
//!   [`Key::provisioned`]. [`Key::DEMO`] is public and compiles only into QEMU builds (core
//!   feature `qemu-demo-key`, turned on by the QEMU board libraries): a real-board build that
//!   names it fails with a message saying what to do;
//! - **the boot salt** differs at every boot: the chip's RNG (RP2040 ROSC, ESP32-C3 RNG,
//!   nRF51 RNG) or a boot counter kept in flash; under QEMU 64 random bits the firmware reads
//!   from the host's `/dev/urandom` through semihosting at start. A state from an earlier boot
//!   is refused even once this boot has issued the same number;
//! - **the clock**, milliseconds since boot, measures the expiry.
//!
//! Anyone who can read the key can approve anything: keep it out of logs and out of
//! `device_info`. Several devices sharing one key can open each other's states only when their
//! salts meet; a key per device avoids even that.

mod form;
mod seal;
#[cfg(test)]
mod tests;

use crate::json::{Describe, Piece, SliceSink};

use self::form::{answer, write_input_required, Answer};
use self::seal::{boot_id, open, seal, Binding, Broken, Sealed};
use super::capability::{declared, Capability};
use super::handler::Failure;
use super::{Call, Done, Output};

pub use super::sealing::{Key, Sealing};

/// Approvals a device has issued in the current boot, and what seals them.
#[derive(Clone)]
pub struct Approvals {
    sealing: Sealing,
    /// This boot's public id (see [`seal`]).
    boot: u32,
    lifetime_ms: u64,
    /// The number of the next approval asked for.
    next: u32,
    /// Bit `n % WINDOW`: approval `n` (one of the last [`WINDOW`] issued) has been answered.
    spent: [u32; WINDOW_WORDS],
}

impl core::fmt::Debug for Approvals {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Never the key nor the salt.
        f.debug_struct("Approvals")
            .field("boot", &self.boot)
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

/// How long an approval stays valid by default: two minutes on the device clock.
pub const DEFAULT_LIFETIME_MS: u64 = 120_000;

/// How many of the latest approvals are remembered as pending or spent: a pending one survives
/// `WINDOW - 1` (511) asks after it, from any client; an older one is refused as too old.
/// 64 bytes of RAM.
pub const WINDOW: u32 = 512;

const WINDOW_WORDS: usize = (WINDOW / 32) as usize;

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
/// to seal with and the question shown to the person.
#[derive(Debug)]
pub struct Ask<'a, M> {
    /// The device's approvals.
    pub approvals: &'a mut Approvals,
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
        Some(ask) => ask.approvals.confirm(call, out, &ask.message),
    }
}

impl Approvals {
    /// Approvals sealed with `sealing`'s key and boot salt, their expiry on its clock.
    pub fn new(sealing: Sealing) -> Self {
        Self {
            boot: boot_id(&sealing.key, sealing.boot_salt),
            sealing,
            lifetime_ms: DEFAULT_LIFETIME_MS,
            next: 0,
            spent: [0; WINDOW_WORDS],
        }
    }

    /// How long an approval stays valid, in milliseconds of the device clock.
    pub const fn lifetime_ms(mut self, lifetime_ms: u64) -> Self {
        self.lifetime_ms = lifetime_ms;
        self
    }

    /// Asks a person to approve `call` with `message`, or reads their answer: the output back
    /// when this call (its tool and arguments) was approved, the call's answer otherwise. The
    /// expiry is measured on the sealing's clock.
    pub fn confirm<'o>(
        &mut self,
        call: &Call<'_>,
        out: Output<'o>,
        message: &dyn Describe,
    ) -> Confirmed<'o> {
        let now_ms = (self.sealing.clock)();
        self.confirm_at(call, out, now_ms, message)
    }

    /// [`confirm`](Self::confirm) at device time `now_ms` (the deciding logic, for tests under
    /// simulated time).
    // One copy, called from each tool that confirms (not inlined into every generated gate).
    #[inline(never)]
    pub fn confirm_at<'o>(
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
        let params = call.params;
        let responses = params.and_then(|p| p.get("inputResponses"));
        let state = params.and_then(|p| p.get("requestState"));
        let Some(state) = state else {
            if responses.is_some() {
                return refuse(out, "Approval refused: an answer without its requestState");
            }
            return self.ask(call, out, now_ms, message);
        };
        let opened = state
            .as_str()
            .map(|s| open(&self.binding(call), self.boot, s.raw()));
        let sealed =
            match opened {
                Some(Ok(sealed)) => sealed,
                Some(Err(Broken::OtherBoot)) => return refuse(out, OTHER_BOOT),
                Some(Err(Broken::Forged)) => return refuse(
                    out,
                    "Approval refused: the requestState was not issued for this tool and these \
                     arguments",
                ),
                Some(Err(Broken::Malformed)) | None => {
                    return refuse(out, "Approval refused: malformed requestState")
                }
            };
        // Sealed with this boot's key and salt, yet never issued by it: a number not reached
        // yet, or an expiry later than any this boot can have set.
        if sealed.counter >= self.next || sealed.expiry_ms > now_ms.saturating_add(self.lifetime_ms)
        {
            return refuse(out, OTHER_BOOT);
        }
        let Some(answer) = answer(responses) else {
            // A genuine state without its answer: ask again.
            return self.ask(call, out, now_ms, message);
        };
        if now_ms > sealed.expiry_ms {
            return refuse(out, "Approval refused: expired; ask again");
        }
        match self.spend(sealed.counter) {
            Spend::Fresh => {}
            Spend::Spent => return refuse(out, "Approval refused: already answered"),
            Spend::TooOld => {
                return refuse(
                    out,
                    "Approval refused: 511 newer approvals were asked for; ask again",
                )
            }
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

    fn binding<'c>(&'c self, call: &Call<'c>) -> Binding<'c> {
        Binding {
            key: &self.sealing.key,
            salt: self.sealing.boot_salt,
            tool: call.name(),
            arguments: call.arguments().raw(),
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
        if !declared(call.params, Capability::Elicitation) {
            return Confirmed::Answered(Done::failed(Failure::MissingCapability(
                Capability::Elicitation,
            )));
        }
        let Some(next) = self.next.checked_add(1) else {
            return Confirmed::Answered(
                out.error("Approval refused: no approval numbers left until the device restarts"),
            );
        };
        let counter = self.next;
        let sealed = Sealed {
            boot: self.boot,
            counter,
            expiry_ms: now_ms.saturating_add(self.lifetime_ms),
        };
        let state = seal(&self.binding(call), sealed);
        self.next = next;
        // The slot of the approval `WINDOW` older, now out of the window, is this one's.
        let (word, bit) = slot(counter);
        if let Some(word) = self.spent.get_mut(word) {
            *word &= !bit;
        }
        let buf = out.into_buf();
        let mut sink = SliceSink::new(buf);
        let written = write_input_required(&mut sink, message, &state);
        Confirmed::Answered(match written.and_then(|()| sink.finish()) {
            Ok(len) => Done::input_required(len),
            Err(e) => Done::failed(Failure::Encode(e)),
        })
    }

    /// Marks approval `counter` (issued in this boot) answered.
    fn spend(&mut self, counter: u32) -> Spend {
        let age = self.next.wrapping_sub(counter);
        // Approval `next - WINDOW`'s slot is free again when `next` is issued: `counter` keeps
        // its slot while `age` is at most WINDOW.
        if age > WINDOW {
            return Spend::TooOld;
        }
        let (word, bit) = slot(counter);
        let Some(word) = self.spent.get_mut(word) else {
            return Spend::TooOld;
        };
        if *word & bit != 0 {
            return Spend::Spent;
        }
        *word |= bit;
        Spend::Fresh
    }
}

/// The refusal of a state from another boot (or one this boot never issued).
const OTHER_BOOT: &str = "Approval refused: the requestState is from another boot; ask again";

/// What spending an approval found.
enum Spend {
    /// Not answered before: now it is.
    Fresh,
    /// Answered already.
    Spent,
    /// Out of the window.
    TooOld,
}

/// The word and bit of approval `counter` in the window.
fn slot(counter: u32) -> (usize, u32) {
    let index = counter % WINDOW;
    (
        usize::try_from(index / 32).unwrap_or(0),
        1u32.wrapping_shl(index % 32),
    )
}
