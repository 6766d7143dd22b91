//! The client capabilities an input request needs (feature `approval`), and whether a request
//! declares them: below both the handler's results, which name one in a -32021 answer, and the
//! multi-round-trip requests and approvals, which ask for them.

use crate::json::{Kind, Value};
use crate::protocol::CLIENT_CAPABILITIES_KEY;

/// A client capability an input request needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Capability {
    /// `elicitation` (form mode).
    Elicitation,
    /// `sampling`.
    Sampling,
    /// `roots`.
    Roots,
}

impl Capability {
    /// The capability's member name in `ClientCapabilities`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Elicitation => "elicitation",
            Self::Sampling => "sampling",
            Self::Roots => "roots",
        }
    }

    /// The capability object a -32021 error names as required: `{"form":{}}` for
    /// elicitation (the mode the device asks in), `{}` otherwise.
    pub const fn required(self) -> &'static str {
        match self {
            Self::Elicitation => r#"{"form":{}}"#,
            Self::Sampling | Self::Roots => "{}",
        }
    }
}

/// True when a request's `params` declare `capability` (an object) in their `_meta` client
/// capabilities.
pub(crate) fn declared(params: Option<Value<'_>>, capability: Capability) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(CLIENT_CAPABILITIES_KEY))
        .and_then(|c| c.get(capability.name()))
        .is_some_and(|e| e.kind() == Kind::Object)
}
