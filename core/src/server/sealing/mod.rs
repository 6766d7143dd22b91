//! What approvals and request states are sealed with (feature `approval`): the [`Key`], the
//! boot's salt and the clock a board supplies ([`Sealing`]), HMAC-SHA-256 under the key, and
//! the hex text states are written in.

mod key;
mod mac;

pub use self::key::{Key, Sealing};
pub(super) use self::mac::Mac;

/// HMAC-SHA-256 under `key`, its input started with `domain` and `salt`.
pub(super) fn keyed(key: &Key, domain: &[u8], salt: u64) -> Mac {
    let mut mac = Mac::new(key);
    mac.update(domain);
    mac.update(&salt.to_le_bytes());
    mac
}

/// Feeds `json` to the MAC without the whitespace between its tokens, so a client that
/// re-serialises the same arguments with other spacing still matches (member order and the
/// text inside strings count).
pub(super) fn update_significant(mac: &mut Mac, json: &str) {
    let mut chunk = [0u8; 32];
    let mut len = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    for &b in json.as_bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            continue;
        } else if b == b'"' {
            in_string = true;
        }
        if let Some(slot) = chunk.get_mut(len) {
            *slot = b;
            len = len.wrapping_add(1);
        }
        if len == chunk.len() {
            mac.update(&chunk);
            len = 0;
        }
    }
    mac.update(chunk.get(..len).unwrap_or_default());
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Writes `bytes` as lowercase hex into `out` (two characters a byte).
pub(super) fn put_hex(out: &mut [u8], bytes: &[u8]) {
    for (pair, b) in out.chunks_exact_mut(2).zip(bytes) {
        if let [hi, lo] = pair {
            *hi = HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0');
            *lo = HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0');
        }
    }
}

/// Decodes the lowercase hex `text` into `out` (two characters a byte); `None` when the
/// lengths differ or a character is not a digit.
pub(super) fn unhex(out: &mut [u8], text: &[u8]) -> Option<()> {
    if out.len().checked_mul(2) != Some(text.len()) {
        return None;
    }
    for (byte, pair) in out.iter_mut().zip(text.chunks_exact(2)) {
        *byte = u8::try_from(hex_value(pair)?).ok()?;
    }
    Some(())
}

/// The value of lowercase hex digits (at most 16); `None` for any other character.
pub(super) fn hex_value(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0u64, |acc, &d| {
        let v = match d {
            b'0'..=b'9' => d.wrapping_sub(b'0'),
            b'a'..=b'f' => d.wrapping_sub(b'a').wrapping_add(10),
            _ => return None,
        };
        Some(acc.checked_mul(16)?.wrapping_add(u64::from(v)))
    })
}
