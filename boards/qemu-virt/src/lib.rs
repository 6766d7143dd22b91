//! The board glue of embedded-mcp firmware under QEMU's RISC-V `virt` machine (`-bios none`,
//! machine mode, RV32IMAC): what a firmware needs besides its tools.
//!
//! - [`uart`]: the NS16550A as `embedded_io_async::{Read, Write}`, interrupt-driven receive
//!   (through the PLIC) with back-pressure;
//! - `approval` (feature `approval`): the demo key, a per-run boot salt from the host and the
//!   clock that seal a person's approvals;
//! - [`clock`]: uptime from the machine timer; [`timer`]: `sleep_ms` for async tools;
//! - [`fault`]: panics, exceptions and stray interrupts log and end QEMU with status 1;
//!   [`stack`]: the stack's peak use; [`log!`]: lines to semihosting stderr (the UART is the
//!   MCP channel and QEMU's stdout);
//! - the linker set-up: this crate's build script puts `memory.x` where riscv-rt's `link.x`
//!   finds it.
//!
//! The executor is embassy's own RISC-V thread executor (`platform-riscv32`,
//! `executor-thread`: it sleeps with WFI), started by `#[embassy_executor::main]` in the
//! firmware. A firmware crate adds `.cargo/config.toml` (the target, QEMU as the runner and
//! `-Tlink.x`, as in `examples/qemu-riscv`) and its tools:
//!
//! ```ignore
//! #[embassy_executor::main]
//! async fn main(_spawner: embassy_executor::Spawner) {
//!     let (rx, tx) = qemu_virt::start();
//!     let mut server = Server::from_tools(INFO, Tools)
//!         .unwrap_or_else(|_| qemu_virt::fault::fail("tool definitions refused"));
//!     let mut reader: LineReader<_, 512> = LineReader::new(rx);
//!     let mut out = [0u8; OUTPUT_LEN];
//!     qemu_virt::serve(&mut server, &mut reader, tx, &mut out).await
//! }
//! ```
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

/// The semihosting crate [`log!`] writes through (not an interface).
#[doc(hidden)]
pub use riscv_semihosting as __semihosting;

#[macro_use]
pub mod log;
#[cfg(feature = "approval")]
pub mod approval;
pub mod clock;
pub mod fault;
mod plic;
pub mod stack;
pub mod timer;
pub mod uart;

use embedded_mcp::server::{AsyncHandler, Server};
use embedded_mcp::transport::LineReader;

use uart::{UartRx, UartTx};

/// Brings the board up and returns the UART's halves: paints the stack (for [`stack`]'s peak),
/// disarms the machine timer before the UART turns interrupts on, then takes the UART. Call
/// once, first thing in `main`; a second call ends the firmware.
pub fn start() -> (UartRx, UartTx) {
    stack::paint();
    timer::start();
    match uart::take() {
        Some(halves) => halves,
        None => fault::fail("the UART is taken twice"),
    }
}

/// Serves `server` on the UART for good: one JSON-RPC message per line, `out` holding each
/// response (size it with `embedded_mcp::server::output_len`). Await it in the firmware's
/// embassy task (the executor sleeps with WFI between interrupts).
pub async fn serve<H: AsyncHandler, const N: usize, const LINE: usize>(
    server: &mut Server<'_, H, N>,
    reader: &mut LineReader<UartRx, LINE>,
    mut tx: UartTx,
    out: &mut [u8],
) -> ! {
    // The UART never ends and never fails (its error type is `Infallible`).
    let _ = server.serve_async(reader, &mut tx, out).await;
    fault::fail("the serve loop ended")
}
