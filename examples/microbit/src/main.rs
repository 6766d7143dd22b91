//! embedded-mcp firmware for the BBC micro:bit v1 (nRF51822, Cortex-M0) on nrf51-hal: the LED
//! display, the buttons, the random number generator and the die temperature served as MCP
//! tools (src/tools.rs) over UART0, the board's USB serial port. It runs on the board and on
//! QEMU's `microbit` machine (`qemu` feature: logs on semihosting stderr).
#![no_std]
#![no_main]
#![deny(unsafe_op_in_unsafe_fn)]

mod clock;
mod display;
mod fault;
mod mcp;
mod memory;
mod tools;
mod uart;

// The parts every Cortex-M board shares: the WFI executor and the stack's peak use.
use cortex_m_glue::{executor, stack};
use cortex_m_rt::entry;
use nrf51_hal::clocks::Clocks;
use nrf51_hal::gpio::{p0, Level};
use nrf51_hal::pac::Peripherals;
use nrf51_hal::rng::Rng;
use nrf51_hal::temp::Temp;
use nrf51_hal::uart::Pins;

#[entry]
fn main() -> ! {
    let p = Peripherals::take().unwrap_or_else(|| fault::fail("peripherals taken twice"));
    // The 16 MHz crystal first: the internal RC oscillator is too coarse for 115,200 baud, and
    // switching clocks under a running UART could garble a byte.
    let _clocks = Clocks::new(p.CLOCK).enable_ext_hfosc();
    let port = p0::Parts::new(p.GPIO);
    // UART0 next: the host may already be sending (QEMU holds bytes back until reception starts).
    let pins = Pins {
        txd: port.p0_24.into_push_pull_output(Level::High).degrade(),
        rxd: port.p0_25.into_floating_input().degrade(),
        cts: None,
        rts: None,
    };
    let (rx, tx) = uart::take(p.UART0, pins);
    clock::start(p.TIMER0);
    display::start(
        [
            port.p0_13.degrade(),
            port.p0_14.degrade(),
            port.p0_15.degrade(),
        ],
        [
            port.p0_04.degrade(),
            port.p0_05.degrade(),
            port.p0_06.degrade(),
            port.p0_07.degrade(),
            port.p0_08.degrade(),
            port.p0_09.degrade(),
            port.p0_10.degrade(),
            port.p0_11.degrade(),
            port.p0_12.degrade(),
        ],
        p.TIMER1,
    );
    let board = tools::Microbit::new(
        port.p0_17.into_pullup_input().degrade(),
        port.p0_26.into_pullup_input().degrade(),
        Rng::new(p.RNG),
        Temp::new(p.TEMP),
    );
    let served = mcp::start(board, rx, tx);
    executor::run(|spawner| match mcp::mcp_task(served) {
        Ok(task) => spawner.spawn(task),
        Err(_) => fault::fail("MCP task spawned twice"),
    })
}
