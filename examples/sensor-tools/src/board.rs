//! What a firmware supplies to the shared handler: its identity, its diagnostics, its timer and
//! the key that seals approvals.

use core::future::Future;

use embedded_mcp::server::approval::Sealing;

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
    /// What seals `set_relay`'s approvals: the key from provisioning, a salt that differs at
    /// every boot and the clock, as the board library supplies them (for example
    /// `qemu_lm3s6965::approval::sealing()`; see `embedded_mcp::server::approval`).
    fn sealing() -> Sealing;
    /// Completes `ms` milliseconds from now (`sample_temperature`'s interval).
    fn sleep_ms(ms: u64) -> impl Future<Output = ()>;
}
