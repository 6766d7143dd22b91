//! UART0 of QEMU's `lm3s6965evb` (an ARM PL011 at `0x4000_C000`), polled, as blocking
//! `embedded_io::{Read, Write}`: the other way to drive UART0 than [`crate::uart`] (use one or
//! the other), for a firmware with no interrupts and no executor, such as
//! `examples/panic-free`.
//!
//! Every received byte comes from a volatile read of the data register, so the optimiser knows
//! nothing about the input: no path of the caller can be folded away on constant data. Byte
//! `0x04` (EOT) ends the stream: `read` returns 0 from then on, which ends the serve loop.

use core::convert::Infallible;

use embedded_io::{ErrorType, Read, Write};

use crate::pl011 as reg;

/// The byte that ends the input stream (ASCII EOT).
pub const END_OF_STREAM: u8 = 0x04;

fn read_reg(offset: usize) -> u32 {
    // Safety: BASE + offset is a 32-bit UART0 register of this board.
    unsafe { core::ptr::read_volatile((reg::BASE + offset) as *const u32) }
}

fn write_reg(offset: usize, value: u32) {
    // Safety: BASE + offset is a 32-bit UART0 register of this board.
    unsafe { core::ptr::write_volatile((reg::BASE + offset) as *mut u32, value) }
}

fn rx_empty() -> bool {
    read_reg(reg::FR) & reg::FR_RXFE != 0
}

/// Enables UART0 (115200 8N1, FIFOs on; QEMU ignores the baud rate, receive interrupts stay
/// off) and returns its halves. Instead of [`crate::start`], not with it.
pub fn init() -> (UartRx, UartTx) {
    write_reg(reg::CR, 0);
    // 12.5 MHz / (16 * 115200) = 6.78: IBRD 6, FBRD round(0.78 * 64) = 50. Set before LCRH.
    write_reg(reg::IBRD, 6);
    write_reg(reg::FBRD, 50);
    write_reg(reg::LCRH, reg::LCRH_8N1_FIFO);
    write_reg(reg::CR, reg::CR_ENABLE_TX_RX);
    (UartRx { ended: false }, UartTx { _private: () })
}

/// Receiving half of UART0.
pub struct UartRx {
    ended: bool,
}

/// Transmitting half of UART0.
pub struct UartTx {
    _private: (),
}

impl UartRx {
    /// Starts a new stream after [`END_OF_STREAM`] ended the last: the bytes after it are read
    /// again (a firmware that serves in phases, such as `examples/panic-free`).
    pub fn reopen(&mut self) {
        self.ended = false;
    }
}

impl ErrorType for UartRx {
    type Error = Infallible;
}

impl Read for UartRx {
    /// Waits for one byte, then takes what else is already there (up to `buf.len()`).
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        let mut filled = 0;
        for slot in buf.iter_mut() {
            if self.ended || (filled > 0 && rx_empty()) {
                break;
            }
            while rx_empty() {
                core::hint::spin_loop();
            }
            // Bits 8..11 are error flags, dropped: the line reader handles damaged frames.
            let byte = read_reg(reg::DR) as u8;
            if byte == END_OF_STREAM {
                self.ended = true;
                break;
            }
            *slot = byte;
            filled += 1;
        }
        Ok(filled)
    }
}

impl ErrorType for UartTx {
    type Error = Infallible;
}

impl Write for UartTx {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        for &byte in buf {
            while read_reg(reg::FR) & reg::FR_TXFF != 0 {
                core::hint::spin_loop();
            }
            write_reg(reg::DR, u32::from(byte));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> Result<(), Infallible> {
        while read_reg(reg::FR) & reg::FR_BUSY != 0 {
            core::hint::spin_loop();
        }
        Ok(())
    }
}

impl core::fmt::Write for UartTx {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let _ = Write::write(self, s.as_bytes());
        Ok(())
    }
}
