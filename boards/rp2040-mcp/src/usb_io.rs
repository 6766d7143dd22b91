//! The CDC-ACM class halves as the byte streams the MCP engine serves (`embedded_io_async`).
//!
//! - [`UsbReader`]: embassy-usb's `BufferedReceiver`, with a detached or reset USB link read as
//!   end of stream, so the serve loop returns (and the line buffer is cleared) instead of failing.
//! - [`UsbWriter`]: packets of at most the endpoint's size; `flush` (after every response) ends
//!   a response that filled its last packet with a zero-length packet, without which the host's
//!   CDC-ACM driver holds the response back until more data comes. While no host listens,
//!   output is dropped.

use core::convert::Infallible;

use embassy_rp::usb::Driver;
use embassy_usb::class::cdc_acm::{BufferedReceiver, Sender};
use embassy_usb::driver::EndpointError;
use embedded_io_async::{ErrorType, Read, Write};

use embassy_rp::peripherals::USB;

/// The RP2040's USB driver.
pub type Usb<'d> = Driver<'d, USB>;

/// Receiving half: `embedded_io_async::Read`, end of stream when the link goes away.
pub struct UsbReader<'d> {
    rx: BufferedReceiver<'d, Usb<'d>>,
}

impl<'d> UsbReader<'d> {
    /// Reads through `rx`.
    pub fn new(rx: BufferedReceiver<'d, Usb<'d>>) -> Self {
        Self { rx }
    }

    /// Waits until the host has configured the interface.
    pub async fn wait_connection(&mut self) {
        self.rx.wait_connection().await;
    }
}

impl ErrorType for UsbReader<'_> {
    type Error = Infallible;
}

impl Read for UsbReader<'_> {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        // The only error is "not connected": reported as end of stream.
        Ok(self.rx.read(buf).await.unwrap_or(0))
    }
}

/// Transmitting half: `embedded_io_async::Write` in USB packets.
pub struct UsbWriter<'d> {
    tx: Sender<'d, Usb<'d>>,
    /// The last packet sent was full-size (a zero-length packet must end the transfer).
    open_transfer: bool,
}

impl<'d> UsbWriter<'d> {
    /// Writes through `tx`.
    pub fn new(tx: Sender<'d, Usb<'d>>) -> Self {
        Self {
            tx,
            open_transfer: false,
        }
    }
}

impl ErrorType for UsbWriter<'_> {
    type Error = Infallible;
}

impl Write for UsbWriter<'_> {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        if buf.is_empty() {
            return Ok(0);
        }
        let size = usize::from(self.tx.max_packet_size());
        let packet = buf.get(..size).unwrap_or(buf);
        match self.tx.write_packet(packet).await {
            Ok(()) => self.open_transfer = packet.len() == size,
            // No host (detached or reset): the answer has no reader; drop it.
            Err(EndpointError::Disabled | EndpointError::BufferOverflow) => {
                self.open_transfer = false
            }
        }
        Ok(packet.len())
    }

    async fn flush(&mut self) -> Result<(), Infallible> {
        if core::mem::take(&mut self.open_transfer) {
            let _ = self.tx.write_packet(&[]).await;
        }
        Ok(())
    }
}
