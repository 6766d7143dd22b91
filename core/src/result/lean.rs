//! The lean form of a structured result, for a bridge that asked for it: the same result
//! without its `content` member when that member holds nothing but the text twin (the JSON of
//! `structuredContent` escaped as a string).
//!
//! A bridge asks with `params._meta["embedded-mcp/lean"]: true` ([`LEAN_KEY`]) and puts the
//! member back for its host, byte for byte: `,"content":[{"type":"text","text":"E(J)"}]` right
//! after `J`, the `structuredContent` text, where `E` is the escaping of
//! [`EscapingSink`](super::EscapingSink) (see [the layout](super#byte-layout)), followed by
//! `,"resultType":"complete"` for a 2026-07-28 request (which the lean form leaves out too: the
//! bridge knows the revision of its request). A result without
//! `content` is the mark of the lean form (the protocol requires `content`, so no other result
//! lacks it). A result with more blocks, an error or a text result is sent whole. A request
//! without the key (any host talking to the device directly) gets both channels, as the
//! protocol recommends.
//!
//! ```text
//! full: {"structuredContent":J,"content":[{"type":"text","text":"E(J)"}],"resultType":"complete"}
//! lean: {"structuredContent":J}
//! ```
//!
//! [`LEAN_KEY`]: crate::protocol::LEAN_KEY

use super::writer::{STRUCTURED_HEAD, TEXT_BLOCK_HEAD};
use crate::json::{move_within, Limits, Value};
use crate::protocol::parse_value;

/// Bytes of `TEXT_BLOCK_HEAD` before the text block itself: `,"content":[`.
const CONTENT_OPEN: usize = 12;

/// Where the `content` member of the result `result` is (from the comma before it to its `]`,
/// and a `"resultType":"complete"` right after it) when it holds the text twin alone; `None` when `result` is not a structured result of this
/// crate's writers or has more blocks.
pub fn text_twin_span(result: &[u8]) -> Option<core::ops::Range<usize>> {
    if !result.starts_with(STRUCTURED_HEAD) {
        return None;
    }
    let value = parse_value(result, Limits::default()).ok()?;
    let structured = value.get("structuredContent")?;
    let twin_at = STRUCTURED_HEAD.len().checked_add(structured.raw().len())?;
    if !result.get(twin_at..)?.starts_with(TEXT_BLOCK_HEAD) {
        return None;
    }
    let start = twin_at.checked_add(CONTENT_OPEN)?;
    let first: Value<'_> = value.get("content")?.elements()?.next()?;
    let end = start.checked_add(first.raw().len())?;
    if result.get(end) != Some(&b']') {
        return None;
    }
    let after = end.checked_add(1)?;
    // 2026-07-28: `resultType` goes too (the bridge knows the request's revision).
    let tail = match result.get(after..) {
        Some(rest) if rest.starts_with(COMPLETE) => COMPLETE.len(),
        _ => 0,
    };
    Some(twin_at..after.checked_add(tail)?)
}

/// What a 2026-07-28 result has after its `content` when it is not an error.
const COMPLETE: &[u8] = b",\"resultType\":\"complete\"";

/// Removes the `content` member holding only the text twin from the result in `result` (a
/// bridge asked for it with the `_meta` key `embedded-mcp/lean`); the length of what is left at the start of `result`. Any other result
/// is left as it is.
pub fn drop_text_twin(result: &mut [u8]) -> usize {
    let len = result.len();
    let Some(twin) = text_twin_span(result) else {
        return len;
    };
    let removed = twin.len();
    if move_within(result, twin.end..len, twin.start) {
        len.saturating_sub(removed)
    } else {
        len
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::String;

    use super::*;

    fn lean(full: &str) -> String {
        let mut buf = full.as_bytes().to_vec();
        let n = drop_text_twin(&mut buf);
        String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    #[test]
    fn the_twin_goes_and_nothing_else() {
        assert_eq!(
            lean(
                r#"{"structuredContent":{"t":21.5},"content":[{"type":"text","text":"{\"t\":21.5}"}]}"#
            ),
            r#"{"structuredContent":{"t":21.5}}"#
        );
        assert_eq!(
            lean(
                r#"{"structuredContent":[1,"a"],"content":[{"type":"text","text":"[1,\"a\"]"}],"resultType":"complete"}"#
            ),
            r#"{"structuredContent":[1,"a"]}"#
        );
    }

    #[test]
    fn results_without_structured_content_stay() {
        for full in [
            r#"{"content":[{"type":"text","text":"bad"}],"isError":true}"#,
            r#"{"structuredContent":{},"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}"#,
            r#"{"structuredContent":{}}"#,
            r#"{"structuredContent":[1],"content":[{"type":"text","text":"[1]"},{"type":"text","text":"x"}]}"#,
            r#"{"structuredContent":{},"content":[{"type":"text","text":"{}"}"#,
        ] {
            assert_eq!(lean(full), full);
        }
    }
}
