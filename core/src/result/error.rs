//! Why bytes are not a `CallToolResult`.

use core::fmt;

use crate::json::DecodeError;

/// Why [`ResultView::parse`](super::ResultView::parse) refused its input.
///
/// Offsets count bytes from the start of the parsed input (from the start of the value for
/// [`ResultView::from_value`](super::ResultView::from_value)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ResultError {
    /// The input is not one strict JSON document (grammar, UTF-8, escapes, surrogates,
    /// nesting depth, trailing data).
    Json(DecodeError),
    /// The result, or one of its content blocks, is not a JSON object.
    NotAnObject {
        /// Where the value starts.
        offset: usize,
    },
    /// A required member is absent: `content` in the result; `type` in a block, or the members
    /// its type requires (`text`; `data` and `mimeType`; `uri` and `name`; `resource`).
    MissingMember {
        /// The member's name.
        member: &'static str,
        /// Where the object that lacks it starts.
        offset: usize,
    },
    /// A member has the wrong JSON type (for example `content` not an array, `isError` not a
    /// boolean, `text` not a string).
    WrongType {
        /// The member's name.
        member: &'static str,
        /// Where the member's value starts.
        offset: usize,
    },
    /// A member the view reads appears twice in one object (readers disagree on which wins).
    DuplicateMember {
        /// The member's name.
        member: &'static str,
        /// Where the second value starts.
        offset: usize,
    },
}

impl From<DecodeError> for ResultError {
    fn from(e: DecodeError) -> Self {
        Self::Json(e)
    }
}

impl fmt::Display for ResultError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Json(e) => write!(f, "invalid JSON: {e}"),
            Self::NotAnObject { offset } => {
                write!(
                    f,
                    "tool result or content block at byte {offset} is not an object"
                )
            }
            Self::MissingMember { member, offset } => {
                write!(
                    f,
                    "object at byte {offset} lacks required member `{member}`"
                )
            }
            Self::WrongType { member, offset } => {
                write!(
                    f,
                    "member `{member}` at byte {offset} has the wrong JSON type"
                )
            }
            Self::DuplicateMember { member, offset } => {
                write!(f, "member `{member}` repeated at byte {offset}")
            }
        }
    }
}

impl core::error::Error for ResultError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Json(e) => Some(e),
            _ => None,
        }
    }
}
