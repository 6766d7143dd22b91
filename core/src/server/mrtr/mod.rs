//! Multi-round-trip requests in general (MCP 2026-07-28 MRTR, feature `approval`): a handler
//! answers a call with `input_required` and any number of keyed input requests to the client
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`), the client retries the call
//! with the answers in `inputResponses` and the `requestState` echoed, and the handler reads
//! them here. [`approval`](super::approval) is one use of it (a person's yes, single-use); this
//! module is the rest: several keys, several rounds, and handler data carried in a state whose
//! integrity a MAC protects ([`StateSeal`]).
//!
//! ```
//! use embedded_mcp::server::mrtr::{self, Elicited, InputMethod, InputRequest, Json};
//! use embedded_mcp::server::{Call, Done, Handler, Output, ToolError};
//!
//! struct Greeter;
//!
//! impl Handler for Greeter {
//!     type Error = ToolError;
//!
//!     fn call(&mut self, call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
//!         let answer = mrtr::response(call, "user_name").map(mrtr::elicited);
//!         if let Some(Elicited::Accepted(content)) = answer {
//!             if let Some(name) = content.get("name").and_then(|n| n.as_str()) {
//!                 return Ok(out.blocks(|w| {
//!                     w.text_fmt(format_args!("Hello, {}!", name.raw()))
//!                 }));
//!             }
//!         }
//!         // No (usable) answer yet: ask; -32021 if the client cannot show a form.
//!         let ask = [InputRequest {
//!             key: "user_name",
//!             method: InputMethod::Elicitation,
//!             params: &Json(r#"{"mode":"form","message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}"#),
//!         }];
//!         Ok(mrtr::input_required(call, out, &ask, None))
//!     }
//! }
//! ```
//!
//! # The rules it keeps
//!
//! - **Capabilities.** [`input_required`] sends a request only when the call's `_meta` client
//!   capabilities declare its method's capability; otherwise the call is answered with -32021
//!   and `data.requiredCapabilities` naming it. [`declares`] lets a handler choose what to ask
//!   by what the client can answer.
//! - **No state between rounds** on the device: what a handler needs from an earlier round
//!   travels in `requestState`. It is attacker input: [`StateSeal`] binds it to the key, the
//!   tool and the arguments with HMAC-SHA-256, and a state that fails the check is answered by
//!   [`rejected_state`] (-32602), never acted on.
//! - **Only `tools/call`**: the engine passes `input_required` for tool calls only; listings and
//!   other methods never carry it.

mod read;
mod state;
#[cfg(test)]
mod tests;

use crate::json::{write_string, EncodeError, Piece, Sink, SliceSink, ToJson};

use super::capability::declared;
use super::handler::Failure;
use super::{Call, Done, Output};

pub use super::capability::Capability;

pub use self::read::{elicited, listed_roots, request_state, response, sampled_text, Elicited};
pub use self::state::{StateError, StateSeal, MAX_STATE_DATA, MAX_STATE_LEN};

/// The method of an input request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputMethod {
    /// `elicitation/create`: a form for a person (answered by an `ElicitResult`).
    Elicitation,
    /// `sampling/createMessage`: a model's completion (answered by a `CreateMessageResult`).
    Sampling,
    /// `roots/list`: the client's roots (answered by a `ListRootsResult`).
    ListRoots,
}

impl InputMethod {
    /// The JSON-RPC method name.
    pub const fn method(self) -> &'static str {
        match self {
            Self::Elicitation => "elicitation/create",
            Self::Sampling => "sampling/createMessage",
            Self::ListRoots => "roots/list",
        }
    }

    /// The client capability the method needs.
    pub const fn capability(self) -> Capability {
        match self {
            Self::Elicitation => Capability::Elicitation,
            Self::Sampling => Capability::Sampling,
            Self::ListRoots => Capability::Roots,
        }
    }
}

/// One keyed input request of an `input_required` result.
#[derive(Clone, Copy)]
pub struct InputRequest<'a> {
    /// The key the client answers under in `inputResponses`.
    pub key: &'a str,
    /// What is asked.
    pub method: InputMethod,
    /// The request's `params` object (for example [`Json`] text).
    pub params: &'a dyn ToJson,
}

impl core::fmt::Debug for InputRequest<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("InputRequest")
            .field("key", &self.key)
            .field("method", &self.method)
            .finish_non_exhaustive()
    }
}

/// JSON text written as it is: the firmware's own compact JSON (one line, checked by the
/// firmware's author, not by the engine).
#[derive(Debug, Clone, Copy)]
pub struct Json<'a>(pub &'a str);

impl ToJson for Json<'_> {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        sink.put(self.0.as_bytes())
    }
}

/// True when the call's `_meta` client capabilities declare `capability` (an object).
pub fn declares(call: &Call<'_>, capability: Capability) -> bool {
    declared(call.params, capability)
}

/// Answers `call` with `{"resultType":"input_required","inputRequests":{…},"requestState":…}`
/// (no `requestState` when `state` is `None`). When the client did not declare the capability
/// of one of the requests, the answer is -32021 naming the first one missing instead (nothing
/// is asked). Requests with the same key are the handler's mistake: the client keeps the last.
///
/// A legacy call (2025 revisions, which have no `input_required`) gets an `isError` result
/// that asks for a client declaring the capability; the embedded-mcp bridge is one for a
/// legacy host that declared it (it asks the host and retries the call in 2026-07-28).
pub fn input_required(
    call: &Call<'_>,
    out: Output<'_>,
    requests: &[InputRequest<'_>],
    state: Option<&str>,
) -> Done {
    if call.version().is_legacy() {
        return out.error_of(&[
            Piece::Text("Tool "),
            Piece::Text(call.name()),
            Piece::Text(LEGACY),
        ]);
    }
    if let Some(missing) = requests
        .iter()
        .map(|r| r.method.capability())
        .find(|c| !declares(call, *c))
    {
        return Done::failed(Failure::MissingCapability(missing));
    }
    let mut sink = SliceSink::new(out.into_buf());
    let written = write(&mut sink, requests, state);
    match written.and_then(|()| sink.finish()) {
        Ok(len) => Done::input_required(len),
        Err(e) => Done::failed(Failure::Encode(e)),
    }
}

/// What a legacy call of a tool that asks for input is told.
const LEGACY: &str = " asks the client for input this client cannot be asked for: use a client \
                      that declares the capability it asks for (a form: `embedded-mcp call` on \
                      a terminal answers it too)";

fn write(
    sink: &mut dyn Sink,
    requests: &[InputRequest<'_>],
    state: Option<&str>,
) -> Result<(), EncodeError> {
    sink.put(b"{\"resultType\":\"input_required\",\"inputRequests\":{")?;
    for (i, r) in requests.iter().enumerate() {
        if i > 0 {
            sink.put_byte(b',')?;
        }
        write_string(sink, r.key)?;
        sink.put(b":{\"method\":\"")?;
        sink.put(r.method.method().as_bytes())?;
        sink.put(b"\",\"params\":")?;
        r.params.to_json(sink)?;
        sink.put_byte(b'}')?;
    }
    sink.put_byte(b'}')?;
    if let Some(state) = state {
        sink.put(b",\"requestState\":")?;
        write_string(sink, state)?;
    }
    sink.put_byte(b'}')
}

/// Answers `call` with -32021: it needs `capability`, which the client did not declare (for a
/// handler that decides so itself, before asking anything).
pub fn missing_capability(_out: Output<'_>, capability: Capability) -> Done {
    Done::failed(Failure::MissingCapability(capability))
}

/// Answers `call` with -32602 "requestState integrity check failed": the `requestState` was
/// not one this device sealed for this tool and these arguments (see [`StateSeal::open`]).
pub fn rejected_state(_out: Output<'_>) -> Done {
    Done::failed(Failure::BadRequestState)
}
