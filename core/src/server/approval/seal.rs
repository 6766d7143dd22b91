//! The `requestState` of an approval: the boot's id, a counter and an expiry in clear, sealed
//! by HMAC-SHA-256 over them, the tool's name, the arguments and the boot's salt.
//!
//! The text is 65 ASCII characters: a format digit `3`, the boot's id (8 hex digits), the
//! counter (8), the expiry in device milliseconds (16) and the first 128 bits of the MAC (32).
//! The boot's id is 32 bits of a MAC of the salt: it tells a state of another boot apart
//! without showing the salt, which the tag binds whole.

use super::super::sealing::{hex_value, keyed, put_hex, unhex, update_significant, Key, Mac};

/// Length of a sealed state's text.
pub(super) const STATE_LEN: usize = 65;

/// Bytes of the MAC kept in the state (128 of SHA-256's 256 bits).
const TAG_LEN: usize = 16;

/// Separates the MAC's input from any other use of the same key.
const DOMAIN: &[u8] = b"embedded-mcp approval state 3\0";

/// Separates the boot id's MAC.
const BOOT_DOMAIN: &[u8] = b"embedded-mcp boot id\0";

/// What a state says in clear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Sealed {
    /// The boot that issued it ([`boot_id`]).
    pub(super) boot: u32,
    /// The approval's number, unique per boot.
    pub(super) counter: u32,
    /// The device time (milliseconds) after which the approval is refused.
    pub(super) expiry_ms: u64,
}

/// What the MAC binds besides the clear fields.
#[derive(Debug, Clone, Copy)]
pub(super) struct Binding<'a> {
    /// The device's approval key.
    pub(super) key: &'a Key,
    /// The boot's salt.
    pub(super) salt: u64,
    /// The tool's name.
    pub(super) tool: &'a str,
    /// The arguments object as received (checked JSON text).
    pub(super) arguments: &'a str,
}

/// The boot's public id: 32 bits of a MAC of its salt.
pub(super) fn boot_id(key: &Key, salt: u64) -> u32 {
    let digest = keyed(key, BOOT_DOMAIN, salt).finalize();
    let mut id = [0u8; 4];
    id.iter_mut().zip(digest.iter()).for_each(|(i, d)| *i = *d);
    u32::from_le_bytes(id)
}

/// The MAC of `sealed` under `binding`.
fn tag(binding: &Binding<'_>, sealed: Sealed) -> Mac {
    let mut mac = keyed(binding.key, DOMAIN, binding.salt);
    mac.update(&sealed.counter.to_le_bytes());
    mac.update(&sealed.expiry_ms.to_le_bytes());
    mac.update(binding.tool.as_bytes());
    mac.update(&[0]);
    update_significant(&mut mac, binding.arguments);
    mac
}

/// The state text of `sealed` under `binding`.
pub(super) fn seal(binding: &Binding<'_>, sealed: Sealed) -> [u8; STATE_LEN] {
    let digest = tag(binding, sealed).finalize();
    let mut text = [b'3'; STATE_LEN];
    if let Some((_, rest)) = text.split_first_mut() {
        let (boot, rest) = rest.split_at_mut(8);
        let (counter, rest) = rest.split_at_mut(8);
        let (expiry, tag_text) = rest.split_at_mut(16);
        put_hex(boot, &sealed.boot.to_be_bytes());
        put_hex(counter, &sealed.counter.to_be_bytes());
        put_hex(expiry, &sealed.expiry_ms.to_be_bytes());
        put_hex(tag_text, &digest);
    }
    text
}

/// Why a state was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Broken {
    /// Not a state this format writes (length, format digit, hex).
    Malformed,
    /// Issued in another boot (or by another device): its boot id is not this boot's.
    OtherBoot,
    /// The MAC does not match: forged, altered, for another tool or other arguments.
    Forged,
}

/// The clear fields of `state` (the JSON string's raw body) when it was issued in boot
/// `boot` and its MAC matches `binding`. The comparison of the MAC takes the same time
/// wherever it differs.
pub(super) fn open(binding: &Binding<'_>, boot: u32, state: &str) -> Result<Sealed, Broken> {
    let bytes = state.as_bytes();
    let Some((&b'3', rest)) = bytes.split_first() else {
        return Err(Broken::Malformed);
    };
    if bytes.len() != STATE_LEN {
        return Err(Broken::Malformed);
    }
    let (boot_text, rest) = rest.split_at(8);
    let (counter, rest) = rest.split_at(8);
    let (expiry, tag_text) = rest.split_at(16);
    let mut claimed = [0u8; TAG_LEN];
    let (Some(state_boot), Some(counter), Some(expiry_ms), Some(())) = (
        hex_value(boot_text),
        hex_value(counter),
        hex_value(expiry),
        unhex(&mut claimed, tag_text),
    ) else {
        return Err(Broken::Malformed);
    };
    if state_boot != u64::from(boot) {
        return Err(Broken::OtherBoot);
    }
    let sealed = Sealed {
        boot,
        counter: u32::try_from(counter).map_err(|_| Broken::Malformed)?,
        expiry_ms,
    };
    tag(binding, sealed)
        .verify_truncated_left(&claimed)
        .map_err(|_| Broken::Forged)?;
    Ok(sealed)
}
