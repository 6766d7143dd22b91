//! `tools/list`: tool entries, byte-budgeted pages and opaque cursors.

use crate::json::{write_compact, write_string, write_u64, EncodeError, JsonStr, Sink};
use crate::protocol::Version;

use super::tool::{Annotations, Icon};
use super::Tool;

fn member_str<S: Sink + ?Sized>(sink: &mut S, key: &[u8], value: &str) -> Result<(), EncodeError> {
    sink.put(key)?;
    write_string(sink, value)
}

fn write_annotations<S: Sink + ?Sized>(sink: &mut S, a: &Annotations) -> Result<(), EncodeError> {
    sink.put(b",\"annotations\":{")?;
    let mut first = true;
    let mut sep = |sink: &mut S| -> Result<(), EncodeError> {
        if !core::mem::replace(&mut first, false) {
            sink.put_byte(b',')?;
        }
        Ok(())
    };
    if let Some(title) = a.title {
        sep(sink)?;
        member_str(sink, b"\"title\":", title)?;
    }
    let hints: [(&[u8], Option<bool>); 4] = [
        (b"\"readOnlyHint\":", a.read_only),
        (b"\"destructiveHint\":", a.destructive),
        (b"\"idempotentHint\":", a.idempotent),
        (b"\"openWorldHint\":", a.open_world),
    ];
    for (key, hint) in hints {
        if let Some(hint) = hint {
            sep(sink)?;
            sink.put(key)?;
            sink.put(if hint { b"true" } else { b"false" })?;
        }
    }
    sink.put_byte(b'}')
}

/// Writes `,"icons":[...]` (nothing for an empty list).
pub(crate) fn write_icons<S: Sink + ?Sized>(
    sink: &mut S,
    icons: &[Icon],
) -> Result<(), EncodeError> {
    if icons.is_empty() {
        return Ok(());
    }
    sink.put(b",\"icons\":[")?;
    for (i, icon) in icons.iter().enumerate() {
        if i > 0 {
            sink.put_byte(b',')?;
        }
        member_str(sink, b"{\"src\":", icon.src)?;
        if let Some(m) = icon.mime_type {
            member_str(sink, b",\"mimeType\":", m)?;
        }
        if !icon.sizes.is_empty() {
            sink.put(b",\"sizes\":[")?;
            for (j, size) in icon.sizes.iter().enumerate() {
                if j > 0 {
                    sink.put_byte(b',')?;
                }
                write_string(sink, size)?;
            }
            sink.put_byte(b']')?;
        }
        if let Some(theme) = icon.theme {
            member_str(sink, b",\"theme\":", theme.as_str())?;
        }
        sink.put_byte(b'}')?;
    }
    sink.put_byte(b']')
}

/// Writes one tool object as `version` shows it. `object_output` says whether the output
/// schema's root is an object (else legacy peers get it wrapped).
pub(crate) fn write_tool<S: Sink + ?Sized>(
    sink: &mut S,
    tool: &Tool,
    version: Version,
    object_output: bool,
) -> Result<(), EncodeError> {
    member_str(sink, b"{\"name\":", tool.name)?;
    if let Some(title) = tool.title {
        member_str(sink, b",\"title\":", title)?;
    }
    if let Some(description) = tool.description {
        member_str(sink, b",\"description\":", description)?;
    }
    sink.put(b",\"inputSchema\":")?;
    write_compact(sink, tool.input_schema.as_bytes())?;
    if let Some(output) = tool.output_schema {
        sink.put(b",\"outputSchema\":")?;
        if version.is_legacy() && !object_output {
            sink.put(b"{\"type\":\"object\",\"properties\":{\"result\":")?;
            write_compact(sink, output.as_bytes())?;
            sink.put(b"},\"required\":[\"result\"]}")?;
        } else {
            write_compact(sink, output.as_bytes())?;
        }
    }
    if !tool.annotations.is_empty() {
        write_annotations(sink, &tool.annotations)?;
    }
    if version.has_icons() {
        write_icons(sink, tool.icons)?;
    }
    if let Some(meta) = tool.meta {
        sink.put(b",\"_meta\":")?;
        write_compact(sink, meta.as_bytes())?;
    }
    sink.put_byte(b'}')
}

/// Length of an encoded cursor: 4 hex digits of index, 8 of tag.
pub(crate) const CURSOR_LEN: usize = 12;

const HEX: &[u8; 16] = b"0123456789abcdef";

/// FNV-1a, 32 bits.
pub(crate) fn fnv1a(mut hash: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// FNV-1a offset basis.
pub(crate) const FNV_START: u32 = 0x811c_9dc5;

/// The salt of a tool list: a hash of its names, so a cursor from another tool list (another
/// firmware) is refused.
pub(crate) fn salt(tools: &[Tool]) -> u32 {
    let mut h = FNV_START;
    for t in tools {
        h = fnv1a(h, t.name.as_bytes());
        h = fnv1a(h, &[0]);
    }
    h
}

fn tag(salt: u32, index: u16) -> u32 {
    fnv1a(fnv1a(FNV_START, &salt.to_le_bytes()), &index.to_le_bytes())
}

/// The cursor that resumes the listing at tool `index`: `iiiitttttttt` in lowercase hex.
pub(crate) fn encode_cursor(salt: u32, index: u16) -> [u8; CURSOR_LEN] {
    let mut out = [0u8; CURSOR_LEN];
    let value = (u64::from(index) << 32) | u64::from(tag(salt, index));
    for (i, slot) in out.iter_mut().enumerate() {
        let shift = 4 * (CURSOR_LEN - 1 - i);
        *slot = HEX
            .get(usize::try_from((value >> shift) & 0xf).unwrap_or(0))
            .copied()
            .unwrap_or(b'0');
    }
    out
}

/// The tool index a cursor resumes at, if the cursor is one this tool list issued.
pub(crate) fn decode_cursor(salt: u32, count: usize, cursor: JsonStr<'_>) -> Option<usize> {
    let text = cursor.as_plain()?.as_bytes();
    if text.len() != CURSOR_LEN {
        return None;
    }
    let mut value = 0u64;
    for &c in text {
        let digit = HEX.iter().position(|&h| h == c)?;
        value = (value << 4) | u64::try_from(digit).ok()?;
    }
    let index = u16::try_from(value >> 32).ok()?;
    let ok = u64::from(tag(salt, index)) == value & 0xffff_ffff;
    let index = usize::from(index);
    (ok && index > 0 && index < count).then_some(index)
}

/// Writes `n` in decimal.
pub(crate) fn write_usize<S: Sink + ?Sized>(sink: &mut S, n: usize) -> Result<(), EncodeError> {
    write_u64(sink, u64::try_from(n).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Value;

    #[test]
    fn cursors_round_trip_and_refuse_strangers() {
        let tools = [
            Tool::new("a", "{}"),
            Tool::new("b", "{}"),
            Tool::new("c", "{}"),
        ];
        let s = salt(&tools);
        let c = encode_cursor(s, 2);
        let quoted = std::format!("\"{}\"", core::str::from_utf8(&c).unwrap());
        let v = Value::parse(quoted.as_bytes()).unwrap();
        assert_eq!(decode_cursor(s, 3, v.as_str().unwrap()), Some(2));
        // Another tool list, an index out of range, garbage: refused.
        assert_eq!(decode_cursor(s ^ 1, 3, v.as_str().unwrap()), None);
        assert_eq!(decode_cursor(s, 2, v.as_str().unwrap()), None);
        for bad in [
            "\"\"",
            "\"000200000000\"",
            "\"zzzzzzzzzzzz\"",
            "\"next-page-cursor\"",
        ] {
            let v = Value::parse(bad.as_bytes()).unwrap();
            assert_eq!(decode_cursor(s, 3, v.as_str().unwrap()), None, "{bad}");
        }
    }
}
