//! embedded-mcp firmware for QEMU's `lm3s6965evb` (Cortex-M3) that serves the fixture tools of
//! the official MCP conformance suite (`@modelcontextprotocol/conformance`) over UART0, named and
//! shaped as the suite's reference "everything server" defines them (src/tools.rs). Logs go to
//! semihosting stderr.
//!
//! The platform (interrupt-driven UART0, SysTick clock, WFI executor, interrupt table, fault
//! handlers, stack paint) is the one of `examples/qemu-sensors`, compiled from its files: the
//! same board needs the same code, kept in one place.
#![no_std]
#![no_main]
#![deny(unsafe_op_in_unsafe_fn)]

#[macro_use]
#[path = "../../qemu-sensors/src/log.rs"]
mod log;
#[path = "../../qemu-sensors/src/clock.rs"]
mod clock;
#[path = "../../qemu-sensors/src/div.rs"]
mod div;
#[path = "../../qemu-sensors/src/executor.rs"]
mod executor;
#[path = "../../qemu-sensors/src/fault.rs"]
mod fault;
mod fixtures;
mod mcp;
#[path = "../../qemu-sensors/src/stack.rs"]
mod stack;
mod tools;
#[path = "../../qemu-sensors/src/uart.rs"]
mod uart;
#[path = "../../qemu-sensors/src/vectors.rs"]
mod vectors;

use cortex_m_rt::entry;

#[entry]
fn main() -> ! {
    // First of all: the host may already be sending (see qemu-sensors' uart.rs).
    let uart = uart::Uart0::take().expect("UART0 is taken once");
    let core = cortex_m::Peripherals::take().expect("core peripherals are taken once");
    clock::start(core.SYST);
    let (rx, tx) = uart.split();
    let served = mcp::start(rx, tx);
    executor::run(|spawner| {
        spawner.spawn(mcp::mcp_task(served).expect("MCP task spawned once"));
    })
}
