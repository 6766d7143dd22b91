//! embedded-mcp firmware for QEMU's `lm3s6965evb` (Cortex-M3): simulated sensors and an LED
//! served as MCP tools over UART0 (src/mcp.rs); logs go to semihosting stderr. The board glue
//! (UART, clock, timer, executor, faults, linker set-up) is the library `qemu-lm3s6965`.
#![no_std]
#![no_main]

mod board;
mod mcp;

use cortex_m_rt::entry;
use qemu_lm3s6965::{executor, fault};

#[entry]
fn main() -> ! {
    // First of all: the host may already be sending (see qemu-lm3s6965's uart.rs).
    let (rx, tx) = qemu_lm3s6965::start();
    // Builds the server (its schemas are static programs); logs "qemu-sensors: ready".
    let served = mcp::start(rx, tx);
    executor::run(|spawner| match mcp::mcp_task(served) {
        Ok(task) => spawner.spawn(task),
        Err(_) => fault::fail("MCP task spawned twice"),
    })
}
