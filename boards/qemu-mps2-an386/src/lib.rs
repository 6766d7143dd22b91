//! The board glue of embedded-mcp firmware under QEMU's `mps2-an386` (Arm MPS2 with AN386,
//! Cortex-M4F, `thumbv7em-none-eabihf`): what a firmware needs besides its tools.
//!
//! - [`uart`]: UART0, an Arm CMSDK APB UART, as blocking `embedded_io::{Read, Write}` that
//!   sleep with WFI until a byte arrives (for `Server::serve`, no executor);
//! - [`fault`]: panics, hard faults and unexpected interrupts log to QEMU's stderr and end QEMU
//!   with status 1; `fail(why)`;
//! - the linker set-up: this crate's build script puts `memory.x` where cortex-m-rt's `link.x`
//!   finds it.
//!
//! A firmware crate adds `.cargo/config.toml` (the target, QEMU as the runner and `-Tlink.x`,
//! as in `examples/m4f-smoke`) and its tools:
//!
//! ```ignore
//! #[cortex_m_rt::entry]
//! fn main() -> ! {
//!     let (rx, mut tx) = qemu_mps2_an386::start();
//!     let mut reader: LineReader<_, 512> = LineReader::new(rx);
//!     let _ = server.serve(&mut reader, &mut tx, &mut out);
//!     qemu_mps2_an386::fault::fail(format_args!("the serve loop ended"))
//! }
//! ```
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod fault;
pub mod uart;

/// Takes UART0 (TX, RX and its receive interrupt) and returns its halves. Call once.
pub fn start() -> (uart::UartRx, uart::UartTx) {
    uart::take()
}
