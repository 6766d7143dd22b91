//! The `requestState` of an approval: a counter and an expiry in clear, sealed by HMAC-SHA-256
//! over them, the tool's name, the arguments and the boot's salt.
//!
//! The text is 57 ASCII characters: a format digit `1`, the counter (8 hex digits), the expiry
//! in device milliseconds (16 hex digits) and the first 128 bits of the MAC (32 hex digits).

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// Length of a sealed state's text.
pub(super) const STATE_LEN: usize = 57;

/// Bytes of the MAC kept in the state (128 of SHA-256's 256 bits).
const TAG_LEN: usize = 16;

/// Separates the MAC's input from any other use of the same key.
const DOMAIN: &[u8] = b"embedded-mcp approval state 1\0";

/// What a state says in clear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Sealed {
    /// The approval's number, unique per boot.
    pub(super) counter: u32,
    /// The device time (milliseconds) after which the approval is refused.
    pub(super) expiry_ms: u64,
}

/// What the MAC binds besides the clear fields.
#[derive(Debug, Clone, Copy)]
pub(super) struct Binding<'a> {
    /// The device's approval key.
    pub(super) key: &'a [u8; 32],
    /// The boot's salt (see [`Approvals::new`](super::Approvals::new)).
    pub(super) boot: u32,
    /// The tool's name.
    pub(super) tool: &'a str,
    /// The arguments object as received (checked JSON text).
    pub(super) arguments: &'a str,
}

/// The MAC of `sealed` under `binding`; `None` only if the MAC refused the key (HMAC takes
/// any key length, so never).
fn tag(binding: &Binding<'_>, sealed: Sealed) -> Option<Hmac<Sha256>> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(binding.key).ok()?;
    mac.update(DOMAIN);
    mac.update(&binding.boot.to_le_bytes());
    mac.update(&sealed.counter.to_le_bytes());
    mac.update(&sealed.expiry_ms.to_le_bytes());
    mac.update(binding.tool.as_bytes());
    mac.update(&[0]);
    update_significant(&mut mac, binding.arguments);
    Some(mac)
}

/// Feeds `json` to the MAC without the whitespace between its tokens, so a client that
/// re-serialises the same arguments with other spacing still matches (member order and the
/// text inside strings count).
pub(in crate::server) fn update_significant(mac: &mut Hmac<Sha256>, json: &str) {
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
pub(in crate::server) fn put_hex(out: &mut [u8], bytes: &[u8]) {
    for (pair, b) in out.chunks_exact_mut(2).zip(bytes) {
        if let [hi, lo] = pair {
            *hi = HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0');
            *lo = HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0');
        }
    }
}

/// The value of lowercase hex digits (at most 16); `None` for any other character.
pub(in crate::server) fn hex_value(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0u64, |acc, &d| {
        let v = match d {
            b'0'..=b'9' => d.wrapping_sub(b'0'),
            b'a'..=b'f' => d.wrapping_sub(b'a').wrapping_add(10),
            _ => return None,
        };
        Some(acc.checked_mul(16)?.wrapping_add(u64::from(v)))
    })
}

/// The state text of `sealed` under `binding`.
pub(super) fn seal(binding: &Binding<'_>, sealed: Sealed) -> Option<[u8; STATE_LEN]> {
    let digest = tag(binding, sealed)?.finalize().into_bytes();
    let mut text = [0u8; STATE_LEN];
    let (format, rest) = text.split_first_mut()?;
    *format = b'1';
    let (counter, rest) = rest.split_at_mut(8);
    let (expiry, tag_text) = rest.split_at_mut(16);
    put_hex(counter, &sealed.counter.to_be_bytes());
    put_hex(expiry, &sealed.expiry_ms.to_be_bytes());
    put_hex(tag_text, digest.get(..TAG_LEN)?);
    Some(text)
}

/// Why a state was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Broken {
    /// Not a state this format writes (length, format digit, hex).
    Malformed,
    /// The MAC does not match: forged, altered, for another tool or other arguments, or
    /// from another boot or key.
    Forged,
}

/// The clear fields of `state` (the JSON string's raw body) when its MAC matches `binding`.
/// The comparison of the MAC takes the same time wherever it differs.
pub(super) fn open(binding: &Binding<'_>, state: &str) -> Result<Sealed, Broken> {
    let bytes = state.as_bytes();
    let Some((&b'1', rest)) = bytes.split_first() else {
        return Err(Broken::Malformed);
    };
    if bytes.len() != STATE_LEN {
        return Err(Broken::Malformed);
    }
    let (counter, rest) = rest.split_at(8);
    let (expiry, tag_text) = rest.split_at(16);
    let (Some(counter), Some(expiry_ms)) = (hex_value(counter), hex_value(expiry)) else {
        return Err(Broken::Malformed);
    };
    let mut claimed = [0u8; TAG_LEN];
    for (byte, pair) in claimed.iter_mut().zip(tag_text.chunks_exact(2)) {
        *byte = pair
            .first()
            .zip(pair.get(1))
            .and_then(|(hi, lo)| hex_value(&[*hi, *lo]))
            .and_then(|v| u8::try_from(v).ok())
            .ok_or(Broken::Malformed)?;
    }
    let sealed = Sealed {
        counter: u32::try_from(counter).map_err(|_| Broken::Malformed)?,
        expiry_ms,
    };
    let mac = tag(binding, sealed).ok_or(Broken::Forged)?;
    mac.verify_truncated_left(&claimed)
        .map_err(|_| Broken::Forged)?;
    Ok(sealed)
}
