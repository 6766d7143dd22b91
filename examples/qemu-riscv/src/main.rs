//! embedded-mcp firmware for QEMU's RISC-V `virt` machine (`-bios none`, machine mode): the
//! sensor tools of `sensor-tools` served over the NS16550A UART (src/mcp.rs); logs go to
//! semihosting stderr.
#![no_std]
#![no_main]
#![deny(unsafe_op_in_unsafe_fn)]

#[macro_use]
mod log;
mod board;
mod clock;
mod fault;
mod mcp;
mod plic;
mod stack;
mod timer;
mod uart;

use embassy_executor::Spawner;

// embassy's RISC-V thread executor (`executor-thread`): polls, then sleeps with WFI in a
// critical section until an interrupt is pending.
#[embassy_executor::main]
async fn main(_spawner: Spawner) {
    // Before anything else runs deep: the peak-stack figure starts here.
    stack::paint();
    // The machine timer (src/timer.rs) is disarmed before the UART turns interrupts on.
    timer::start();
    let (rx, tx) = uart::take().expect("the UART is taken once");
    // Builds the server (its schemas are static programs); logs "qemu-riscv: ready".
    mcp::start(rx, tx).serve().await
}
