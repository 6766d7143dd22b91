//! Results reshaped by the legacy wrapping rule ([`crate::wire::wrapping`]): a 2026-07-28
//! result whose `structuredContent` is not an object, shown to a peer that expects the legacy
//! `{"result": value}` form. Every other byte is the device's.

use embedded_mcp::json::{Kind, Value as RawValue};
use serde_json::Value;

use super::push_json_string;
use crate::wire::wrapping::{is_wrapped, wrap};

/// What becomes of the result's `resultType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultType {
    /// Left out (a legacy host).
    Drop,
    /// Kept, and `"complete"` put first when there is none (a 2026-07-28 host).
    Ensure,
}

/// The `structuredContent` of `result` when the legacy form wraps it.
pub fn wrapped_structured<'a>(result: &RawValue<'a>) -> Option<RawValue<'a>> {
    result
        .get("structuredContent")
        .filter(|s| is_wrapped(s.kind() == Kind::Object))
}

/// `result` (a `CallToolResult` object) with its `structuredContent` wrapped when the rule says
/// so, and with `text_blocks` the text block that carries the same value too; `resultType` as
/// `result_type` says.
pub fn wrapped_result(
    result: &RawValue<'_>,
    result_type: ResultType,
    text_blocks: bool,
) -> Vec<u8> {
    let Some(members) = result.members() else {
        return result.raw().as_bytes().to_vec();
    };
    let structured = wrapped_structured(result);
    let mut out = Vec::with_capacity(result.raw().len() + 32);
    out.push(b'{');
    let mut first = true;
    if result_type == ResultType::Ensure && result.get("resultType").is_none() {
        out.extend_from_slice(b"\"resultType\":\"complete\"");
        first = false;
    }
    for (key, value) in members {
        if key.eq_str("resultType") && result_type == ResultType::Drop {
            continue;
        }
        if !first {
            out.push(b',');
        }
        first = false;
        out.push(b'"');
        out.extend_from_slice(key.raw().as_bytes());
        out.extend_from_slice(b"\":");
        match structured {
            Some(s) if key.eq_str("structuredContent") => {
                out.extend_from_slice(wrap(s.raw()).as_bytes());
            }
            Some(s) if text_blocks && key.eq_str("content") => {
                wrap_text_block(&mut out, &value, s.raw())
            }
            _ => out.extend_from_slice(value.raw().as_bytes()),
        }
    }
    out.push(b'}');
    out
}

/// Content blocks with the text block that carries the structured value `structured` (the
/// first `text` block whose text is that JSON) rewritten to carry `{"result": …}`.
fn wrap_text_block(out: &mut Vec<u8>, content: &RawValue<'_>, structured: &str) {
    let Some(blocks) = content.elements() else {
        out.extend_from_slice(content.raw().as_bytes());
        return;
    };
    let same = |block: &RawValue<'_>| {
        let text: Option<String> = block
            .get("text")
            .and_then(|t| t.as_str())
            .map(|t| t.chars().collect());
        let parsed = text.and_then(|t| serde_json::from_str::<Value>(&t).ok());
        parsed.is_some() && parsed == serde_json::from_str::<Value>(structured).ok()
    };
    let mut done = false;
    out.push(b'[');
    for (n, block) in blocks.enumerate() {
        if n > 0 {
            out.push(b',');
        }
        if !done && same(&block) {
            done = true;
            let text = wrap(structured);
            out.extend_from_slice(b"{\"type\":\"text\",\"text\":");
            push_json_string(out, &text);
            out.push(b'}');
        } else {
            out.extend_from_slice(block.raw().as_bytes());
        }
    }
    out.push(b']');
}
