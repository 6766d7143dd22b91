//! This board's facts for the shared handler (`sensor_tools::Board`).

use core::future::Future;

use qemu_lm3s6965::{clock, stack, timer, uart};

/// QEMU's `lm3s6965evb`.
pub struct Lm3s6965;

impl sensor_tools::Board for Lm3s6965 {
    const FIRMWARE: &'static str = env!("CARGO_PKG_NAME");
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const NAME: &'static str = "lm3s6965evb";

    fn uptime_ms() -> u64 {
        clock::uptime_ms()
    }

    fn rx_free() -> usize {
        uart::rx_free()
    }

    fn stack_peak() -> usize {
        stack::peak_used()
    }

    fn stack_size() -> usize {
        stack::size()
    }

    /// A provisioned demonstration key, the same in every copy of this firmware, and salt 0:
    /// QEMU's machine has no RNG and no storage for a boot counter. So anyone with the source
    /// can seal approvals, and a state stays valid across a reboot until it expires (the
    /// counter restarts). A real board takes a per-boot random key from its RNG (see
    /// `embedded_mcp::server::approval`).
    fn approval_key() -> ([u8; 32], u32) {
        (*b"embedded-mcp QEMU demo key, open", 0)
    }

    fn sleep_ms(ms: u64) -> impl Future<Output = ()> {
        timer::sleep_ms(ms)
    }
}
