//! What seals approvals and request states: a [`Key`] (provisioned, or the QEMU demo key), the
//! boot's salt and the device clock, which a board library supplies together as one
//! [`Sealing`].

/// A 256-bit key that seals approvals and request states. Never printed (no `Debug` of the
/// bytes): anyone who reads it can approve anything.
#[derive(Clone)]
pub struct Key([u8; 32]);

impl core::fmt::Debug for Key {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Key(..)")
    }
}

/// The message a real-board build that names [`Key::DEMO`] fails with.
#[cfg(not(feature = "qemu-demo-key"))]
macro_rules! demo_key_refusal {
    () => {
        "Key::DEMO is public and compiles only into QEMU builds (core feature `qemu-demo-key`, \
         which the QEMU board libraries turn on). Give a real board its own key from \
         provisioning: build with EMBEDDED_MCP_APPROVAL_KEY set to 64 hex digits and use \
         embedded_mcp::provisioned_key!() (the board library's `approval` feature does), or read \
         it from a flash page into Key::provisioned (see embedded_mcp::server::approval)"
    };
}

impl Key {
    /// The demonstration key of the QEMU board libraries, the same in every copy of the
    /// source: anyone can seal with it. It exists only with the core feature `qemu-demo-key`;
    /// a build without it that names this constant fails to compile with a message that says
    /// how to provision a real key.
    // A compile-time refusal only: the constant is evaluated where it is named, never at run
    // time.
    #[allow(clippy::panic)]
    pub const DEMO: Key = {
        #[cfg(not(feature = "qemu-demo-key"))]
        panic!(demo_key_refusal!());
        #[cfg_attr(not(feature = "qemu-demo-key"), allow(unreachable_code))]
        Key(*b"embedded-mcp QEMU demo key, open")
    };

    /// A key from provisioning: read from a flash page, a secure element, or a per-boot
    /// random key from the chip's RNG.
    pub const fn provisioned(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// A key written as 64 hex digits (either case); `None` for any other text. `const`, so a
    /// build-time variable is checked while the firmware compiles
    /// ([`provisioned_key!`](crate::provisioned_key)).
    // `const fn` has no iterators: indices below 64, checked by the length test.
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
    pub const fn from_hex(text: &str) -> Option<Self> {
        let text = text.as_bytes();
        if text.len() != 64 {
            return None;
        }
        let mut key = [0u8; 32];
        let mut i = 0;
        while i < 32 {
            let (Some(hi), Some(lo)) = (nibble(text[2 * i]), nibble(text[2 * i + 1])) else {
                return None;
            };
            key[i] = hi << 4 | lo;
            i += 1;
        }
        Some(Self(key))
    }

    pub(super) fn bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

/// The value of one hex digit.
#[allow(clippy::arithmetic_side_effects)] // Within the matched ranges: no wrap.
const fn nibble(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        b'A'..=b'F' => Some(digit - b'A' + 10),
        _ => None,
    }
}

/// The key provisioned at build time: `EMBEDDED_MCP_APPROVAL_KEY`, 64 hex digits, read while
/// the crate that names this macro compiles (cargo rebuilds it when the variable changes). A
/// build without the variable, or with another text, fails with a message saying what to set.
///
/// ```ignore
/// const KEY: embedded_mcp::server::approval::Key = embedded_mcp::provisioned_key!();
/// ```
#[macro_export]
macro_rules! provisioned_key {
    () => {{
        const KEY: $crate::server::approval::Key =
            match $crate::server::approval::Key::from_hex(::core::env!(
                "EMBEDDED_MCP_APPROVAL_KEY",
                "this board's approvals need a key from provisioning: build with \
                 EMBEDDED_MCP_APPROVAL_KEY set to 64 hex digits (for example the output of \
                 `openssl rand -hex 32`, kept out of the repository); see \
                 embedded_mcp::server::approval"
            )) {
                ::core::option::Option::Some(key) => key,
                ::core::option::Option::None => ::core::panic!(
                    "EMBEDDED_MCP_APPROVAL_KEY must be exactly 64 hex digits (a 256-bit key)"
                ),
            };
        KEY
    }};
}

/// Everything a board supplies to seal approvals: the key, this boot's salt and the device
/// clock. A board library builds it (`qemu_lm3s6965::approval::sealing()`,
/// `rp2040_mcp::approval::sealing()`); a firmware passes it to
/// `Approvals::new` and its tool author writes `confirm = …` and
/// nothing else.
#[derive(Clone, Debug)]
pub struct Sealing {
    /// The key.
    pub key: Key,
    /// A value that differs at every boot (the chip's RNG, a boot counter kept in flash, or
    /// under QEMU the host's random bytes): a state from an earlier boot never opens in this
    /// one, even when the counters meet again.
    pub boot_salt: u64,
    /// The device clock, milliseconds since boot (expiry is measured on it).
    pub clock: fn() -> u64,
}
