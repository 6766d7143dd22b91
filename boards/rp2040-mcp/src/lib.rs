//! The board glue of embedded-mcp firmware on the RP2040 (Raspberry Pi Pico): [`serve_usb`]
//! serves an MCP server over USB CDC-ACM. The host sees a serial port (`/dev/ttyACM0` on Linux)
//! for `embedded-mcp bridge --serial`.
//!
//! - [`serve_usb`]: the USB device (descriptors, the CDC-ACM class, the USB interrupt), then MCP
//!   one JSON-RPC message per line for as long as a host is attached, and again after every
//!   re-attach;
//! - `approval` (feature `approval`): what seals a person's approvals, the key provisioned at
//!   build time (`EMBEDDED_MCP_APPROVAL_KEY`), a boot salt from the ring oscillator and the
//!   clock;
//! - [`usb_io`]: the CDC-ACM halves as `embedded_io_async::{Read, Write}` (a detached link reads
//!   as end of stream; a response that fills its last packet ends with a zero-length packet).
//!
//! Logs go out through defmt (the firmware picks the logger, e.g. `defmt-rtt`), never on the
//! MCP channel. This crate binds `USBCTRL_IRQ`: the firmware must not bind it too.
//!
//! A firmware's `main` (embassy's executor):
//!
//! ```ignore
//! #[embassy_executor::main]
//! async fn main(_spawner: embassy_executor::Spawner) {
//!     let p = embassy_rp::init(Default::default());
//!     let mut server = Server::from_tools(INFO, Tools::new(p.PIN_25))
//!         .unwrap_or_else(|_| defmt::panic!("tool definitions refused"));
//!     let mut out = [0u8; OUTPUT_LEN];
//!     rp2040_mcp::serve_usb::<_, _, 512>(p.USB, &UsbIdentity::new("my-device"), &mut server, &mut out).await
//! }
//! ```
#![no_std]

#[cfg(feature = "approval")]
pub mod approval;
pub mod usb_io;

use defmt::{info, warn};
use embassy_futures::join::join;
use embassy_rp::bind_interrupts;
use embassy_rp::peripherals::USB;
use embassy_rp::usb::{Driver, InterruptHandler};
use embassy_rp::Peri;
use embassy_usb::class::cdc_acm::{CdcAcmClass, State};
use embassy_usb::Builder;
use embedded_mcp::server::{AsyncHandler, Server};
use embedded_mcp::transport::LineReader;

use usb_io::{UsbReader, UsbWriter};

bind_interrupts!(struct Irqs {
    USBCTRL_IRQ => InterruptHandler<USB>;
});

/// USB full speed bulk packets.
const PACKET_BYTES: u16 = 64;

/// How the device names itself on the bus.
#[derive(Debug, Clone, Copy)]
pub struct UsbIdentity {
    /// Vendor ID.
    pub vendor_id: u16,
    /// Product ID.
    pub product_id: u16,
    /// The manufacturer string.
    pub manufacturer: &'static str,
    /// The product string (what the host lists).
    pub product: &'static str,
    /// The serial number string (tells two boards apart).
    pub serial_number: &'static str,
}

impl UsbIdentity {
    /// `product` under pid.codes' test IDs (VID 0x1209, PID 0x0001: fine on a desk, not for a
    /// product), serial number "1".
    pub const fn new(product: &'static str) -> Self {
        Self {
            vendor_id: 0x1209,
            product_id: 0x0001,
            manufacturer: "embedded-mcp",
            product,
            serial_number: "1",
        }
    }
}

/// Serves `server` on USB CDC-ACM for good: the device runs on the USB peripheral `usb`, and
/// while a host is attached, requests are read one line at a time (`LINE` bytes at most, LF
/// included) and each response is written from `out` (size it with
/// `embedded_mcp::server::output_len`). Await it in the firmware's embassy task.
pub async fn serve_usb<H: AsyncHandler, const N: usize, const LINE: usize>(
    usb: Peri<'static, USB>,
    identity: &UsbIdentity,
    server: &mut Server<'_, H, N>,
    out: &mut [u8],
) -> ! {
    let mut config = embassy_usb::Config::new(identity.vendor_id, identity.product_id);
    config.manufacturer = Some(identity.manufacturer);
    config.product = Some(identity.product);
    config.serial_number = Some(identity.serial_number);
    config.max_power = 100;
    config.max_packet_size_0 = 64;

    let mut config_descriptor = [0u8; 256];
    let mut bos_descriptor = [0u8; 256];
    let mut control_buf = [0u8; 64];
    let mut rx_packet = [0u8; PACKET_BYTES as usize];
    let mut state = State::new();
    // Borrowed for this function only (which never returns), so the descriptor buffers above
    // can be locals of the same future instead of statics.
    let mut usb = usb;
    let mut builder = Builder::new(
        Driver::new(usb.reborrow(), Irqs),
        config,
        &mut config_descriptor,
        &mut bos_descriptor,
        &mut [],
        &mut control_buf,
    );
    let class = CdcAcmClass::new(&mut builder, &mut state, PACKET_BYTES);
    let mut device = builder.build();

    let (tx, rx) = class.split();
    let mut reader: LineReader<UsbReader<'_>, LINE> =
        LineReader::new(UsbReader::new(rx.into_buffered(&mut rx_packet)));
    let mut writer = UsbWriter::new(tx);
    let serve = async {
        loop {
            reader.inner_mut().wait_connection().await;
            info!("USB configured: serving MCP");
            // Returns at end of stream (the USB link went away); the reader's buffer is then
            // empty.
            if server
                .serve_async(&mut reader, &mut writer, out)
                .await
                .is_err()
            {
                warn!("serve loop failed");
            }
            info!("USB link gone: waiting for the host");
        }
    };
    // The USB device's task never ends.
    let (never, ()) = join(device.run(), serve).await;
    never
}
