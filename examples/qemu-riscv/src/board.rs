//! This board's facts for the shared handler (`sensor_tools::Board`).

use core::future::Future;

use embedded_mcp::server::approval::Sealing;

use qemu_virt::{clock, stack, timer, uart};

/// QEMU's RISC-V `virt` machine.
pub struct Virt;

impl sensor_tools::Board for Virt {
    const FIRMWARE: &'static str = env!("CARGO_PKG_NAME");
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const NAME: &'static str = "riscv-virt";

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

    /// The board library's: the QEMU demo key, 64 random bits of the host per run as the boot
    /// salt, and the uptime clock (see `qemu_virt::approval`).
    fn sealing() -> Sealing {
        qemu_virt::approval::sealing()
    }

    fn sleep_ms(ms: u64) -> impl Future<Output = ()> {
        timer::sleep_ms(ms)
    }
}
