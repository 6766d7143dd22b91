//! embedded-mcp firmware for QEMU's RISC-V `virt` machine (`-bios none`, machine mode): the
//! sensor tools of `sensor-tools` served over the NS16550A UART (src/mcp.rs); logs go to
//! semihosting stderr.
//!
//! The board glue (UART, PLIC, machine timer, faults, stack, log, linker set-up) is the library
//! `qemu-virt` (`boards/qemu-virt`).
#![no_std]
#![no_main]

mod board;
mod mcp;

use embassy_executor::Spawner;

// embassy's RISC-V thread executor (`executor-thread`): polls, then sleeps with WFI in a
// critical section until an interrupt is pending.
#[embassy_executor::main]
async fn main(_spawner: Spawner) {
    // Paints the stack (the peak-stack figure starts here), disarms the machine timer, then
    // takes the UART.
    let (rx, tx) = qemu_virt::start();
    // Builds the server (its schemas are static programs); logs "qemu-riscv: ready".
    mcp::start(rx, tx).serve().await
}
