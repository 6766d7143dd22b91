//! The wire side of an approval: the `input_required` result that asks for it, and the reading
//! of the answer a client sends back in `inputResponses`.

use crate::json::{Describe, EncodeError, Kind, Sink, Value};
use crate::result::EscapingSink;

/// The key of the one input request an approval makes.
pub(super) const REQUEST_KEY: &str = "approval";

/// The form a person fills in: one required boolean, `approve`.
pub(super) const REQUESTED_SCHEMA: &str = r#"{"type":"object","properties":{"approve":{"type":"boolean","title":"Approve","description":"Let the device go ahead"}},"required":["approve"]}"#;

/// Writes `{"resultType":"input_required","inputRequests":{"approval":…},"requestState":"…"}`.
pub(super) fn write_input_required(
    sink: &mut dyn Sink,
    message: &dyn Describe,
    state: &[u8],
) -> Result<(), EncodeError> {
    sink.put(b"{\"resultType\":\"input_required\",\"inputRequests\":{\"")?;
    sink.put(REQUEST_KEY.as_bytes())?;
    sink.put(
        b"\":{\"method\":\"elicitation/create\",\"params\":{\"mode\":\"form\",\"message\":\"",
    )?;
    {
        let mut escaping = EscapingSink::new(&mut *sink);
        message.describe(&mut escaping)?;
    }
    sink.put(b"\",\"requestedSchema\":")?;
    sink.put(REQUESTED_SCHEMA.as_bytes())?;
    sink.put(b"}}},\"requestState\":\"")?;
    sink.put(state)?;
    sink.put(b"\"}")
}

/// What the person answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Answer {
    /// Accepted with `approve: true`.
    Approved,
    /// Accepted with `approve: false`.
    NotApproved,
    /// `decline`.
    Declined,
    /// `cancel`.
    Cancelled,
    /// Not an `ElicitResult`, or accepted content that does not match [`REQUESTED_SCHEMA`].
    Invalid,
}

/// Reads the answer to [`REQUEST_KEY`] in `inputResponses`; `None` when there is none.
pub(super) fn answer(responses: Option<Value<'_>>) -> Option<Answer> {
    let response = responses?.get(REQUEST_KEY)?;
    let Some(action) = response.get("action").and_then(|a| a.as_str()) else {
        return Some(Answer::Invalid);
    };
    Some(if action.eq_str("accept") {
        // The requested schema: an object whose `approve` is present and a boolean.
        match response.get("content") {
            Some(c) if c.kind() == Kind::Object => match c.get("approve").and_then(|a| a.as_bool())
            {
                Some(true) => Answer::Approved,
                Some(false) => Answer::NotApproved,
                None => Answer::Invalid,
            },
            _ => Answer::Invalid,
        }
    } else if action.eq_str("decline") {
        Answer::Declined
    } else if action.eq_str("cancel") {
        Answer::Cancelled
    } else {
        Answer::Invalid
    })
}
