//! embedded-mcp firmware for QEMU's `lm3s6965evb` (Cortex-M3): simulated sensors and an LED
//! served as MCP tools over UART0 (src/mcp.rs); logs go to semihosting stderr.
#![no_std]
#![no_main]
#![deny(unsafe_op_in_unsafe_fn)]

#[macro_use]
mod log;
mod board;
mod clock;
mod div;
mod executor;
mod fault;
mod mcp;
mod stack;
mod timer;
mod uart;
mod vectors;

use cortex_m_rt::entry;

#[entry]
fn main() -> ! {
    // First of all: the host may already be sending (see src/uart.rs on QEMU's receive path).
    let uart = uart::Uart0::take().unwrap_or_else(|| fault::fail("UART0 taken twice"));
    let core = cortex_m::Peripherals::take()
        .unwrap_or_else(|| fault::fail("core peripherals taken twice"));
    clock::start(core.SYST);
    // The sleep alarm (src/timer.rs), stopped until a tool waits.
    timer::start();
    let (rx, tx) = uart.split();
    // Builds the server (its schemas are static programs); logs "qemu-sensors: ready".
    let served = mcp::start(rx, tx);
    executor::run(|spawner| match mcp::mcp_task(served) {
        Ok(task) => spawner.spawn(task),
        Err(_) => fault::fail("MCP task spawned twice"),
    })
}
