//! UART0 of QEMU's `mps2-an386`: an Arm CMSDK APB UART at `0x4000_4000`, with blocking
//! `embedded_io::{Read, Write}`.
//!
//! Receive reads the data register while the RX-full flag is set; when nothing is there it
//! sleeps with WFI until the UART's RX interrupt (IRQ 0) fires, so an idle board does not keep a
//! host core busy. The flag is checked with interrupts masked and WFI still wakes on the pending
//! interrupt, so a byte arriving between the check and the sleep cannot be missed. The
//! interrupt handler only acknowledges the interrupt ([`on_rx_interrupt`]). Transmit polls the
//! TX-full flag.
//!
//! The CMSDK UART holds one received byte; QEMU stops taking bytes from the host while it is
//! full, so nothing is lost however long a request takes (on silicon at speed, a receive
//! interrupt would have to drain it into a ring, as examples/qemu-sensors does).

use core::convert::Infallible;

use cortex_m::peripheral::NVIC;

/// CMSDK UART registers and bits used here.
mod reg {
    pub const BASE: usize = 0x4000_4000;
    pub const DATA: usize = 0x00;
    pub const STATE: usize = 0x04;
    pub const CTRL: usize = 0x08;
    pub const INTCLEAR: usize = 0x0C;
    pub const BAUDDIV: usize = 0x10;

    /// STATE: transmit buffer full.
    pub const STATE_TX_FULL: u32 = 1 << 0;
    /// STATE: receive buffer full.
    pub const STATE_RX_FULL: u32 = 1 << 1;
    /// CTRL: TX enable, RX enable, RX interrupt enable.
    pub const CTRL_TX_RX_RXINT: u32 = (1 << 0) | (1 << 1) | (1 << 3);
    /// INTCLEAR: the RX interrupt.
    pub const INT_RX: u32 = 1 << 1;
}

/// NVIC number of UART0's receive interrupt on the MPS2 (AN385/AN386).
#[derive(Clone, Copy)]
struct Uart0RxIrq;

/// `DefaultHandler` number of UART0's receive interrupt.
pub const RX_IRQ: i16 = 0;

// Safety: 0 is UART0's RX interrupt on QEMU's mps2-an386; cortex-m-rt's default interrupt table
// routes it to `DefaultHandler`, which calls `on_rx_interrupt`.
unsafe impl cortex_m::interrupt::InterruptNumber for Uart0RxIrq {
    fn number(self) -> u16 {
        RX_IRQ as u16
    }
}

fn read_reg(offset: usize) -> u32 {
    // Safety: BASE + offset is a 32-bit register of UART0.
    unsafe { core::ptr::read_volatile((reg::BASE + offset) as *const u32) }
}

fn write_reg(offset: usize, value: u32) {
    // Safety: BASE + offset is a 32-bit register of UART0.
    unsafe { core::ptr::write_volatile((reg::BASE + offset) as *mut u32, value) }
}

/// Receiving half of UART0 (`embedded_io::Read`).
pub struct UartRx {
    _private: (),
}

/// Transmitting half of UART0 (`embedded_io::Write`).
pub struct UartTx {
    _private: (),
}

/// Enables UART0 (TX, RX, RX interrupt; QEMU ignores the baud divider, which must be at least
/// 16) and its interrupt in the NVIC. Call once.
pub fn take() -> (UartRx, UartTx) {
    // 25 MHz / 115200 = 217.
    write_reg(reg::BAUDDIV, 217);
    write_reg(reg::CTRL, reg::CTRL_TX_RX_RXINT);
    // Safety: the handler only acknowledges the interrupt; no critical section is running.
    unsafe { NVIC::unmask(Uart0RxIrq) };
    (UartRx { _private: () }, UartTx { _private: () })
}

/// Acknowledges UART0's RX interrupt (its only job is to end WFI).
pub fn on_rx_interrupt() {
    write_reg(reg::INTCLEAR, reg::INT_RX);
}

impl embedded_io::ErrorType for UartRx {
    type Error = Infallible;
}

impl embedded_io::Read for UartRx {
    /// Blocks (sleeping) until at least one byte was received.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            let mut n = 0;
            for slot in buf.iter_mut() {
                if read_reg(reg::STATE) & reg::STATE_RX_FULL == 0 {
                    break;
                }
                *slot = read_reg(reg::DATA) as u8;
                n += 1;
            }
            if n > 0 {
                return Ok(n);
            }
            cortex_m::interrupt::free(|_| {
                if read_reg(reg::STATE) & reg::STATE_RX_FULL == 0 {
                    cortex_m::asm::wfi();
                }
            });
        }
    }
}

impl embedded_io::ErrorType for UartTx {
    type Error = Infallible;
}

impl embedded_io::Write for UartTx {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        for &byte in buf {
            while read_reg(reg::STATE) & reg::STATE_TX_FULL != 0 {
                core::hint::spin_loop();
            }
            write_reg(reg::DATA, u32::from(byte));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> Result<(), Infallible> {
        Ok(())
    }
}
