//! The MCP `CallToolResult`: encoding both channels, and a checked borrowed view for decoding.
//!
//! # Encoding
//!
//! A tool's output `T: Serialize` becomes a result whose `structuredContent` is the JSON of `T`
//! and whose first content block is a `text` block holding the same JSON as a string: once the
//! string is unescaped it is byte for byte the `structuredContent` text. [`encode_structured`]
//! serialises once into the caller's buffer and copies the JSON escaped into the text block;
//! [`write_structured`] works on any [`Sink`](crate::json::Sink) (which cannot be read back) by
//! serialising twice, the second time through an [`EscapingSink`]. Both write the same bytes.
//! [`ResultWriter`] builds results with more blocks (`text`, `image`, `audio`, `resource_link`)
//! and `isError`; [`encode_structured_with`] adds such blocks after a structured value while
//! still serialising it once; [`encode_error`] and [`encode_text`] cover the common one-block
//! cases.
//!
//! ## Byte layout
//!
//! Compact JSON, no whitespace, members in this order (JSON leaves member order free):
//!
//! ```text
//! {"structuredContent":J,"content":[{"type":"text","text":"E(J)"},B...],"isError":true,"resultType":"complete"}
//! ```
//!
//! - `J` is the value's compact JSON; `E(J)` is `J` escaped as a JSON string body.
//!   `structuredContent` and its text block are present only for structured results.
//! - `B...` are further blocks, in the order written, for example
//!   `{"type":"image","data":"<base64>","mimeType":"image/png"}` or
//!   `{"type":"resource_link","uri":"..","name":"..","mimeType":"..","description":".."}`
//!   (optional members left out when absent).
//! - `"isError":true` is written only for error results; `false` is the default and omitted.
//! - `"resultType":"complete"` is written only for [`Era::Stateless`] (2026-07-28).
//! - For [`Era::Legacy`] a value whose JSON is not an object is wrapped as `{"result":J}` in
//!   both channels, matching the `{"type":"object","properties":{"result":..}}` schema that
//!   legacy peers are shown.
//!
//! Examples, byte for byte:
//!
//! ```text
//! Legacy,    {"t":21.5}:  {"structuredContent":{"t":21.5},"content":[{"type":"text","text":"{\"t\":21.5}"}]}
//! Legacy,    [1,2]:       {"structuredContent":{"result":[1,2]},"content":[{"type":"text","text":"{\"result\":[1,2]}"}]}
//! Stateless, [1,2]:       {"structuredContent":[1,2],"content":[{"type":"text","text":"[1,2]"}],"resultType":"complete"}
//! Stateless, error "bad": {"content":[{"type":"text","text":"bad"}],"isError":true,"resultType":"complete"}
//! ```
//!
//! Strings are escaped as RFC 8259 requires (so a message never holds a raw line feed),
//! integers are exact, floats are the shortest text that reads back to the same value, and a
//! NaN or infinite float is [`EncodeError::NonFiniteFloat`](crate::json::EncodeError). A buffer
//! that is too small gives [`EncodeError::BufferTooSmall`](crate::json::EncodeError) with the
//! exact size needed; the buffer's content is then unspecified and must not be sent.
//!
//! A bridge may ask for the lean form, without the text twin, and restore it for its host
//! ([`drop_text_twin`]).
//!
//! # Decoding
//!
//! [`ResultView::parse`] checks a result of any revision once (strict JSON, bounded nesting,
//! then the `CallToolResult` shape) and afterwards hands out borrowed parts without failing:
//! content blocks, the exact `structuredContent` text, `isError`, `resultType`.
//! [`ResultView::structured_as`] deserialises `structuredContent` with escaped strings decoded
//! into caller-provided scratch.

mod encode;
mod error;
mod escaping;
mod lean;
mod view;
mod writer;

pub use encode::{
    encode_error, encode_structured, encode_structured_json, encode_structured_raw,
    encode_structured_with, encode_text, write_error, write_structured, write_structured_raw,
    write_text, Encoded,
};
pub use error::ResultError;
pub use escaping::EscapingSink;
pub use lean::{drop_text_twin, text_twin_span};
pub use view::{ContentBlock, ContentBlocks, ResultView};
pub use writer::ResultWriter;
pub(crate) use writer::{Json, Payload, Ser};

/// Which family of MCP revisions the peer speaks; it decides the era-specific bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Era {
    /// 2025-06-18 and 2025-11-25: `structuredContent` must be an object, so a value whose JSON
    /// is not an object is wrapped as `{"result": value}`; no `resultType`.
    Legacy,
    /// 2026-07-28: every result carries `"resultType":"complete"`; `structuredContent` may be
    /// any JSON value.
    Stateless,
}

impl Era {
    /// The era of a protocol revision string, or `None` for a revision this crate does not serve.
    ///
    /// ```
    /// use embedded_mcp::result::Era;
    /// assert_eq!(Era::of_revision("2025-06-18"), Some(Era::Legacy));
    /// assert_eq!(Era::of_revision("2026-07-28"), Some(Era::Stateless));
    /// assert_eq!(Era::of_revision("2025-03-26"), None);
    /// ```
    pub fn of_revision(revision: &str) -> Option<Self> {
        match revision {
            "2025-06-18" | "2025-11-25" => Some(Self::Legacy),
            "2026-07-28" => Some(Self::Stateless),
            _ => None,
        }
    }

    /// The bytes that close a result of this era after its content array: `]`, `isError` when
    /// set, `resultType` for [`Era::Stateless`], `}`.
    pub(crate) fn tail(self, is_error: bool) -> &'static [u8] {
        match (self, is_error) {
            (Self::Legacy, false) => b"]}",
            (Self::Legacy, true) => b"],\"isError\":true}",
            (Self::Stateless, false) => b"],\"resultType\":\"complete\"}",
            (Self::Stateless, true) => b"],\"isError\":true,\"resultType\":\"complete\"}",
        }
    }
}
