//! What a firmware supplies to the shared handler: its identity, its diagnostics, its timer and
//! the key that seals approvals.

use core::future::Future;

/// The board-specific facts `device_info` reports.
pub trait Board {
    /// The firmware's crate name (`device_info.firmware`).
    const FIRMWARE: &'static str;
    /// The firmware's version (`device_info.version`).
    const VERSION: &'static str;
    /// The board or QEMU machine (`device_info.board`).
    const NAME: &'static str;

    /// Milliseconds since boot.
    fn uptime_ms() -> u64;
    /// Free bytes in the MCP link's receive buffer right now.
    fn rx_free() -> usize;
    /// Deepest stack use since reset, in bytes.
    fn stack_peak() -> usize;
    /// Bytes of RAM reserved for the stack.
    fn stack_size() -> usize;
    /// The key sealing `set_relay`'s approvals and this boot's salt (see
    /// `embedded_mcp::server::approval`): a per-boot random key where the chip has an RNG
    /// (the salt may then be 0), or a provisioned key with a salt that differs at every boot.
    fn approval_key() -> ([u8; 32], u32);
    /// Completes `ms` milliseconds from now (`sample_temperature`'s interval).
    fn sleep_ms(ms: u64) -> impl Future<Output = ()>;
}
