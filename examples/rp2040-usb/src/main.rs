//! embedded-mcp on a Raspberry Pi Pico (RP2040): the chip tools of `sensor-tools` (die
//! temperature through the ADC, the on-board LED) served as MCP over USB CDC-ACM. The host sees a
//! serial port (`/dev/ttyACM0` on Linux) for `embedded-mcp bridge --serial`. Logs go out through
//! defmt-rtt (a debug probe), never on the MCP channel.
//!
//! The USB glue (device set-up, CDC-ACM as a byte stream, re-attach) is the board library
//! `rp2040-mcp` (`boards/rp2040-mcp`).
#![no_std]
#![no_main]

mod chip;
mod mcp;

use embassy_executor::Spawner;
use {defmt_rtt as _, panic_probe as _};

#[embassy_executor::main]
async fn main(_spawner: Spawner) {
    let p = embassy_rp::init(Default::default());
    let pico = chip::Pico::new(p.ADC, p.ADC_TEMP_SENSOR, p.PIN_25);
    mcp::serve(pico, p.USB).await
}
