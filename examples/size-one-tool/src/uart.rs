//! A blocking UART driver (polling), as `embedded_io::Read` and `Write`.
//!
//! On Cortex-M it is the lm3s6965's PL011 UART0 (data at `0x4000_C000`, flags at `+0x18`), so
//! the thumbv6m and thumbv7m builds run under QEMU's `lm3s6965evb`; on RISC-V a 16550 at
//! `0x1000_0000` (data at `+0`, line status at `+5`). Register access is volatile, so the
//! compiler keeps every path of the engine that input could reach.

use core::convert::Infallible;

#[cfg(target_arch = "arm")]
mod regs {
    const DATA: *mut u32 = 0x4000_C000 as *mut u32;
    const FLAGS: *const u32 = 0x4000_C018 as *const u32;

    pub fn rx_ready() -> bool {
        // SAFETY: the flag register of this memory map; reading it has no side effect.
        unsafe { FLAGS.read_volatile() & (1 << 4) == 0 }
    }
    pub fn tx_ready() -> bool {
        // SAFETY: as above.
        unsafe { FLAGS.read_volatile() & (1 << 5) == 0 }
    }
    pub fn read() -> u8 {
        // SAFETY: the data register; reading it takes the received byte (low 8 bits).
        unsafe { DATA.read_volatile() as u8 }
    }
    pub fn write(byte: u8) {
        // SAFETY: the data register; writing it sends the byte.
        unsafe { DATA.write_volatile(u32::from(byte)) }
    }
}

#[cfg(target_arch = "riscv32")]
mod regs {
    const DATA: *mut u8 = 0x1000_0000 as *mut u8;
    const LINE_STATUS: *const u8 = 0x1000_0005 as *const u8;

    pub fn rx_ready() -> bool {
        // SAFETY: the line status register of this memory map; reading it has no side effect.
        unsafe { LINE_STATUS.read_volatile() & 1 != 0 }
    }
    pub fn tx_ready() -> bool {
        // SAFETY: as above.
        unsafe { LINE_STATUS.read_volatile() & (1 << 5) != 0 }
    }
    pub fn read() -> u8 {
        // SAFETY: the receive buffer register; reading it takes the byte.
        unsafe { DATA.read_volatile() }
    }
    pub fn write(byte: u8) {
        // SAFETY: the transmit holding register; writing it sends the byte.
        unsafe { DATA.write_volatile(byte) }
    }
}

/// The UART (both directions).
pub struct Uart;

impl embedded_io::ErrorType for Uart {
    type Error = Infallible;
}

impl embedded_io::Read for Uart {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        let Some(first) = buf.first_mut() else {
            return Ok(0);
        };
        while !regs::rx_ready() {}
        *first = regs::read();
        Ok(1)
    }
}

impl embedded_io::Write for Uart {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        for &byte in buf {
            while !regs::tx_ready() {}
            regs::write(byte);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> Result<(), Infallible> {
        Ok(())
    }
}
