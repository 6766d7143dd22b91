//! embedded-mcp on a Raspberry Pi Pico (RP2040): the chip tools of `sensor-tools` (die
//! temperature through the ADC, the on-board LED) served as MCP over USB CDC-ACM. The host sees a
//! serial port (`/dev/ttyACM0` on Linux) for `embedded-mcp bridge --serial`. Logs go out through
//! defmt-rtt (a debug probe), never on the MCP channel.
#![no_std]
#![no_main]

mod chip;
mod mcp;
mod usb_io;

use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_rp::bind_interrupts;
use embassy_rp::peripherals::USB;
use embassy_rp::usb::{Driver, InterruptHandler};
use embassy_usb::class::cdc_acm::{CdcAcmClass, State};
use embassy_usb::Builder;
use {defmt_rtt as _, panic_probe as _};

bind_interrupts!(struct Irqs {
    USBCTRL_IRQ => InterruptHandler<USB>;
});

/// USB full speed bulk packets.
const PACKET_BYTES: u16 = 64;

#[embassy_executor::main]
async fn main(_spawner: Spawner) {
    let p = embassy_rp::init(Default::default());
    let pico = chip::Pico::new(p.ADC, p.ADC_TEMP_SENSOR, p.PIN_25);

    // pid.codes' test VID/PID: fine on a desk, not for a product.
    let mut config = embassy_usb::Config::new(0x1209, 0x0001);
    config.manufacturer = Some("embedded-mcp");
    config.product = Some("rp2040-usb MCP device");
    config.serial_number = Some("rp2040-usb-1");
    config.max_power = 100;
    config.max_packet_size_0 = 64;

    let mut config_descriptor = [0u8; 256];
    let mut bos_descriptor = [0u8; 256];
    let mut control_buf = [0u8; 64];
    let mut rx_packet = [0u8; PACKET_BYTES as usize];
    let mut state = State::new();
    // Borrowed for this function only (which never returns), so the descriptor buffers below
    // can be locals of the same future instead of statics.
    let mut usb_peripheral = p.USB;
    let mut builder = Builder::new(
        Driver::new(usb_peripheral.reborrow(), Irqs),
        config,
        &mut config_descriptor,
        &mut bos_descriptor,
        &mut [],
        &mut control_buf,
    );
    let class = CdcAcmClass::new(&mut builder, &mut state, PACKET_BYTES);
    let mut usb = builder.build();

    let (tx, rx) = class.split();
    let reader = usb_io::UsbReader::new(rx.into_buffered(&mut rx_packet));
    let writer = usb_io::UsbWriter::new(tx);
    join(usb.run(), mcp::serve(pico, reader, writer)).await;
}
