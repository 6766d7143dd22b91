//! `tools/list` cursors: opaque, 12 lowercase hex digits holding the index to resume at and a
//! 32-bit FNV-1a tag of that index salted with a hash of all tool names, so a cursor that this
//! tool list did not issue is refused.

use crate::json::JsonStr;

use super::Tool;

/// Length of an encoded cursor: 4 hex digits of index, 8 of tag.
pub(super) const CURSOR_LEN: usize = 12;

const HEX: &[u8; 16] = b"0123456789abcdef";

/// FNV-1a, 32 bits.
pub(super) fn fnv1a(mut hash: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// FNV-1a offset basis.
pub(super) const FNV_START: u32 = 0x811c_9dc5;

/// The salt of a tool list: a hash of its names, so a cursor from another tool list (another
/// firmware) is refused.
pub(super) fn salt(tools: &[Tool]) -> u32 {
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
pub(super) fn encode_cursor(salt: u32, index: u16) -> [u8; CURSOR_LEN] {
    let mut out = [0u8; CURSOR_LEN];
    if let Some((head, tail)) = out.split_first_chunk_mut::<4>() {
        hex_into(head, u32::from(index));
        hex_into(tail, tag(salt, index));
    }
    out
}

/// Writes the low `dst.len()` hex digits of `value` into `dst`, most significant first.
fn hex_into(dst: &mut [u8], mut value: u32) {
    for slot in dst.iter_mut().rev() {
        // `value & 0xf` is below 16: the cast cannot truncate.
        *slot = HEX.get((value & 0xf) as usize).copied().unwrap_or(b'0');
        value >>= 4;
    }
}

/// The tool index a cursor resumes at, if the cursor is one this tool list issued.
pub(super) fn decode_cursor(salt: u32, count: usize, cursor: JsonStr<'_>) -> Option<usize> {
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
