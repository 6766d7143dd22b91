//! The names both the bridge and the device client use on the wire: method names ([`method`])
//! and `_meta` keys ([`meta`]), and the bounds both keep. Below both, so neither reaches into the other for them.

pub mod meta;
pub mod method;
pub mod wrapping;

/// Bound on `tools/list` pages followed (a device repeating a cursor cannot loop us forever).
pub const MAX_PAGES: usize = 64;

/// Default bound on one line (1 MiB): far above any message a microcontroller sends.
pub const DEFAULT_MAX_LINE: usize = 1 << 20;
