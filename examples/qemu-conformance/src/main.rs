//! embedded-mcp firmware for QEMU's `lm3s6965evb` (Cortex-M3) that serves the fixture tools of
//! the official MCP conformance suite (`@modelcontextprotocol/conformance`) over UART0, named and
//! shaped as the suite's reference "everything server" defines them (src/tools.rs). Logs go to
//! semihosting stderr.
//!
//! The platform (interrupt-driven UART0, SysTick clock, WFI executor, interrupt table, fault
//! handlers, stack paint, linker set-up) is the board library `qemu-lm3s6965`, which
//! `examples/qemu-sensors` uses too.
#![no_std]
#![no_main]

mod asks;
mod fixtures;
mod mcp;
mod tasks;
mod tools;

use cortex_m_rt::entry;
use qemu_lm3s6965::executor;

#[entry]
fn main() -> ! {
    // First of all: the host may already be sending (see qemu-lm3s6965's uart.rs).
    let (rx, tx) = qemu_lm3s6965::start();
    let served = mcp::start(rx, tx);
    executor::run(|spawner| {
        spawner.spawn(mcp::mcp_task(served).expect("MCP task spawned once"));
    })
}
