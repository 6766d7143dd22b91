//! A `requestState` that carries a handler's own data from one round to the next, sealed by
//! HMAC-SHA-256 (on RustCrypto `sha2`'s compression function, as the approvals; tag cut to 128 bits) over the
//! data, the tool's name, the arguments (their text without the whitespace between tokens) and
//! the boot's salt.
//!
//! The text is ASCII: a format digit `2`, the data in lowercase hex (two characters a byte) and
//! the 128-bit tag in hex (32 characters).
//!
//! The seal gives integrity, not freshness or secrecy: the data is readable, and a sealed state
//! stays valid for its tool and arguments as long as the key does. Put an expiry or a
//! counter in the data when a replay matters (as [`Approvals`](super::super::approval::Approvals)
//! does, with a window of spent numbers).

use super::super::sealing::{keyed, put_hex, unhex, update_significant, Key, Mac};
use super::super::Call;
use super::request_state;

/// Most bytes of data a state carries.
pub const MAX_STATE_DATA: usize = 64;

/// Bytes of the MAC kept in the state.
const TAG_LEN: usize = 16;

/// Longest state text: the format digit, the data and the tag in hex.
pub const MAX_STATE_LEN: usize = 1 + 2 * MAX_STATE_DATA + 2 * TAG_LEN;

/// Separates this MAC's input from the approvals' (same key allowed).
const DOMAIN: &[u8] = b"embedded-mcp request state 2\0";

/// Why a state could not be sealed or was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StateError {
    /// More than [`MAX_STATE_DATA`] bytes of data to seal.
    TooLong,
    /// Not a state this format writes (not a string, length, format digit, hex).
    Malformed,
    /// The MAC does not match: altered, forged, made for another tool or other arguments, or
    /// under another key or boot.
    Forged,
}

impl core::fmt::Display for StateError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::TooLong => "request state data too long",
            Self::Malformed => "request state malformed",
            Self::Forged => "request state integrity check failed",
        })
    }
}

/// The key that seals and opens request states (see the approvals' documentation for the
/// choice of key and boot salt: the same reasoning holds).
#[derive(Clone)]
pub struct StateSeal {
    key: Key,
    boot_salt: u64,
}

impl core::fmt::Debug for StateSeal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Never the key.
        // Never the key nor the salt.
        f.debug_struct("StateSeal").finish_non_exhaustive()
    }
}

impl StateSeal {
    /// States sealed with `key` in the boot whose salt is `boot_salt` (see
    /// [`Sealing`](crate::server::approval::Sealing)).
    pub const fn new(key: Key, boot_salt: u64) -> Self {
        Self { key, boot_salt }
    }

    fn mac(&self, call: &Call<'_>, data: &[u8]) -> Option<Mac> {
        let mut mac = keyed(&self.key, DOMAIN, self.boot_salt);
        mac.update(&u32::try_from(data.len()).ok()?.to_le_bytes());
        mac.update(data);
        mac.update(call.name().as_bytes());
        mac.update(&[0]);
        update_significant(&mut mac, call.arguments().raw());
        Some(mac)
    }

    /// Seals `data` for this call's tool and arguments into `buf`: the state's text, to pass
    /// to [`input_required`](super::input_required).
    pub fn seal<'b>(
        &self,
        call: &Call<'_>,
        data: &[u8],
        buf: &'b mut [u8; MAX_STATE_LEN],
    ) -> Result<&'b str, StateError> {
        if data.len() > MAX_STATE_DATA {
            return Err(StateError::TooLong);
        }
        let tag = self.mac(call, data).ok_or(StateError::TooLong)?.finalize();
        // At most 2 * MAX_STATE_DATA (checked above): no wrap.
        let hex_len = data.len().wrapping_mul(2);
        let len = hex_len.wrapping_add(1 + 2 * TAG_LEN);
        let text = buf.get_mut(..len).ok_or(StateError::TooLong)?;
        let (format, rest) = text.split_first_mut().ok_or(StateError::TooLong)?;
        *format = b'2';
        let (data_hex, tag_hex) = rest
            .split_at_mut_checked(hex_len)
            .ok_or(StateError::TooLong)?;
        put_hex(data_hex, data);
        put_hex(tag_hex, tag.get(..TAG_LEN).unwrap_or_default());
        core::str::from_utf8(text).map_err(|_| StateError::Malformed)
    }

    /// Opens the call's `requestState` into `buf`: the data sealed with it, or `Ok(None)` when
    /// the call carries no `requestState`. The tag's comparison takes the same time wherever
    /// it differs.
    pub fn open<'b>(
        &self,
        call: &Call<'_>,
        buf: &'b mut [u8; MAX_STATE_DATA],
    ) -> Result<Option<&'b [u8]>, StateError> {
        if call.params.and_then(|p| p.get("requestState")).is_none() {
            return Ok(None);
        }
        let text = request_state(call)
            .ok_or(StateError::Malformed)?
            .raw()
            .as_bytes();
        let Some((&b'2', rest)) = text.split_first() else {
            return Err(StateError::Malformed);
        };
        let hex_len = rest
            .len()
            .checked_sub(2 * TAG_LEN)
            .filter(|n| n % 2 == 0 && *n <= 2 * MAX_STATE_DATA)
            .ok_or(StateError::Malformed)?;
        let (data_hex, tag_hex) = rest
            .split_at_checked(hex_len)
            .ok_or(StateError::Malformed)?;
        let data = buf.get_mut(..hex_len / 2).ok_or(StateError::Malformed)?;
        unhex(data, data_hex).ok_or(StateError::Malformed)?;
        let mut claimed = [0u8; TAG_LEN];
        unhex(&mut claimed, tag_hex).ok_or(StateError::Malformed)?;
        let mac = self.mac(call, data).ok_or(StateError::Forged)?;
        mac.verify_truncated_left(&claimed)
            .map_err(|_| StateError::Forged)?;
        Ok(Some(data))
    }
}
