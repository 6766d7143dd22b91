//! Reading a retried call: its `inputResponses` and its `requestState`, and the three kinds of
//! answers a client gives.

use crate::json::{JsonStr, Kind, Value};

use super::super::Call;

/// The answer under `key` in the call's `inputResponses` (`None` when there is none, or
/// `inputResponses` is not an object). Keys the handler did not ask for are never read, so
/// extra ones are ignored.
pub fn response<'a>(call: &Call<'a>, key: &str) -> Option<Value<'a>> {
    call.params?.get("inputResponses")?.get(key)
}

/// The call's `requestState` (the JSON string's raw body), when it is a string.
pub fn request_state<'a>(call: &Call<'a>) -> Option<JsonStr<'a>> {
    call.params?.get("requestState")?.as_str()
}

/// What an `ElicitResult` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Elicited<'a> {
    /// `accept`, with its `content` object (check it against the form before use).
    Accepted(Value<'a>),
    /// `decline`.
    Declined,
    /// `cancel`.
    Cancelled,
    /// Not an `ElicitResult`: not an object, no known `action`, or `accept` without an object
    /// `content`.
    Malformed,
}

/// Reads `answer` as an `ElicitResult`.
pub fn elicited(answer: Value<'_>) -> Elicited<'_> {
    let Some(action) = answer.get("action").and_then(|a| a.as_str()) else {
        return Elicited::Malformed;
    };
    if action.eq_str("accept") {
        match answer.get("content") {
            Some(c) if c.kind() == Kind::Object => Elicited::Accepted(c),
            _ => Elicited::Malformed,
        }
    } else if action.eq_str("decline") {
        Elicited::Declined
    } else if action.eq_str("cancel") {
        Elicited::Cancelled
    } else {
        Elicited::Malformed
    }
}

/// The text of a `CreateMessageResult` (`content` a text block, or an array whose first text
/// block is taken); `None` when `answer` is not one or carries no text.
pub fn sampled_text(answer: Value<'_>) -> Option<JsonStr<'_>> {
    answer.get("role")?.as_str()?;
    let content = answer.get("content")?;
    let block = match content.kind() {
        Kind::Array => content.elements()?.find(|b| {
            b.get("type")
                .and_then(|t| t.as_str())
                .is_some_and(|t| t.eq_str("text"))
        })?,
        _ => content,
    };
    if !block.get("type")?.as_str()?.eq_str("text") {
        return None;
    }
    block.get("text")?.as_str()
}

/// How many roots a `ListRootsResult` lists (each an object with a string `uri`); `None` when
/// `answer` is not one.
pub fn listed_roots(answer: Value<'_>) -> Option<usize> {
    let mut count = 0usize;
    for root in answer.get("roots")?.elements()? {
        root.get("uri")?.as_str()?;
        count = count.checked_add(1)?;
    }
    Some(count)
}
