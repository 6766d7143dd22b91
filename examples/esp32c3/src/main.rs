//! embedded-mcp on an ESP32-C3 (esp-hal 1.2, `riscv32imc-unknown-none-elf`, stable Rust): the
//! chip tools of `sensor-tools` (die temperature, an LED) served as MCP over the built-in
//! USB-Serial-JTAG. The host sees a serial port (`/dev/ttyACM0` on Linux) for
//! `embedded-mcp bridge --serial`. There are no logs: the USB port is the MCP channel.
#![no_std]
#![no_main]

mod chip;
mod mcp;

use embassy_executor::Executor;
use esp_hal::gpio::{Level, Output, OutputConfig};
use esp_hal::tsens::{self, TemperatureSensor};
use esp_hal::usb::usb_serial_jtag::UsbSerialJtag;
use static_cell::StaticCell;

// The application descriptor the second-stage bootloader checks (espflash adds the bootloader).
esp_bootloader_esp_idf::esp_app_desc!();

/// Any panic resets the chip: the host's bridge reconnects (and replays the handshake).
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    esp_hal::system::software_reset()
}

static EXECUTOR: StaticCell<Executor> = StaticCell::new();

#[esp_hal::main]
fn main() -> ! {
    let peripherals = esp_hal::init(esp_hal::Config::default());
    let Ok(sensor) = TemperatureSensor::new(peripherals.TSENS, tsens::Config::default()) else {
        panic!("temperature sensor")
    };
    let led = Output::new(peripherals.GPIO7, Level::Low, OutputConfig::default());
    let chip = chip::Esp32c3::new(sensor, led);
    let usb = UsbSerialJtag::new(peripherals.USB_DEVICE).into_async();
    // embassy's RISC-V thread executor: polls, then sleeps with WFI until an interrupt.
    EXECUTOR.init(Executor::new()).run(|spawner| {
        spawner.spawn(mcp::serve(chip, usb).expect("the MCP task is spawned once"));
    })
}
