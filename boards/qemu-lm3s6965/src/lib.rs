//! The board glue of embedded-mcp firmware under QEMU's `lm3s6965evb` (an LM3S6965,
//! Cortex-M3): what a firmware needs besides its tools.
//!
//! - [`uart`]: UART0 (a PL011) as `embedded_io_async::{Read, Write}`, interrupt-driven receive
//!   with back-pressure (nothing is lost under QEMU); or [`polled`]: UART0 polled, as blocking
//!   `embedded_io::{Read, Write}`, for a firmware without interrupts;
//! - `approval` (feature `approval`): the demo key, a per-run boot salt from the host and the
//!   clock that seal a person's approvals;
//! - [`clock`]: uptime from SysTick; [`timer`]: `sleep_ms` for async tools, on timer 0A;
//! - [`executor`]: an embassy executor that sleeps with WFI (QEMU treats WFE as a no-op), and
//!   [`executor::block_on`] for a firmware with one task;
//! - [`vectors`]: the interrupt table; [`fault`]: panics (feature `panic-handler`, on by
//!   default), hard faults and stray interrupts log and end QEMU with status 1; [`stack`]: the stack's peak use (the reset handler paints it);
//! - [`log!`]: lines to semihosting stderr (UART0 is the MCP channel and QEMU's stdout);
//! - [`executor`], [`stack`] and [`log!`] are those of `cortex-m-glue` (`../cortex-m-glue`),
//!   which every Cortex-M board library shares;
//! - the linker set-up: this crate's build script puts `memory.x` and `device.x` where
//!   cortex-m-rt's `link.x` finds them.
//!
//! A firmware crate adds only `.cargo/config.toml` (the target, QEMU as the runner, and
//! `-Tlink.x`; see the README) and its tools:
//!
//! ```ignore
//! #[cortex_m_rt::entry]
//! fn main() -> ! {
//!     let (rx, tx) = qemu_lm3s6965::start();
//!     let mut server = Server::from_tools(INFO, Tools)
//!         .unwrap_or_else(|_| qemu_lm3s6965::fault::fail("tool definitions refused"));
//!     let mut reader: LineReader<_, 512> = LineReader::new(rx);
//!     let mut out = [0u8; OUTPUT_LEN];
//!     qemu_lm3s6965::serve(&mut server, &mut reader, tx, &mut out)
//! }
//! ```
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

pub use cortex_m_glue::{executor, log, stack};

#[cfg(feature = "approval")]
pub mod approval;
pub mod clock;
pub mod fault;
mod pl011;
pub mod polled;
pub mod timer;
pub mod uart;
pub mod vectors;

use embedded_mcp::server::{AsyncHandler, Server};
use embedded_mcp::transport::LineReader;

use uart::{UartRx, UartTx};

/// Brings the board up and returns UART0's halves: UART0 first (the host may already be
/// sending, see [`uart`]), then SysTick as the uptime clock and timer 0A as the (stopped) sleep
/// alarm. Call once, first thing in `main`; a second call ends the firmware.
pub fn start() -> (UartRx, UartTx) {
    let uart = uart::Uart0::take().unwrap_or_else(|| fault::fail("UART0 taken twice"));
    let core = cortex_m::Peripherals::take()
        .unwrap_or_else(|| fault::fail("core peripherals taken twice"));
    clock::start(core.SYST);
    timer::start();
    uart.split()
}

/// Serves `server` on UART0 for good: one JSON-RPC message per line, `out` holding each
/// response (size it with `embedded_mcp::server::output_len`). Runs on `main`'s stack with
/// [`executor::block_on`], sleeping with WFI between interrupts.
pub fn serve<H: AsyncHandler, const N: usize, const LINE: usize>(
    server: &mut Server<'_, H, N>,
    reader: &mut LineReader<UartRx, LINE>,
    mut tx: UartTx,
    out: &mut [u8],
) -> ! {
    // UART0 never ends and never fails (its error type is `Infallible`).
    let _ = executor::block_on(server.serve_async(reader, &mut tx, out));
    fault::fail("the serve loop ended")
}
