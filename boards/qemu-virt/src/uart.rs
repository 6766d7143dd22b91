//! Interrupt-driven driver for the NS16550A UART of QEMU's `virt` machine (at `0x1000_0000`,
//! PLIC source 10), implementing `embedded_io_async::{Read, Write}`.
//!
//! - Receive: the machine external interrupt moves received bytes into an [`RxRing`] and wakes
//!   the reader task, which otherwise sleeps. When the ring is full the handler turns the
//!   receive interrupt off (IER) and leaves the byte in the UART; [`UartRx::read`] turns it on
//!   again once it made room. QEMU takes no byte from the host while one waits in the UART, so
//!   the host is pushed back instead of losing bytes. The interrupt is a level: turning it on
//!   with a byte waiting raises it at once.
//! - Transmit: polls THRE (QEMU sends each byte at once; on silicon this busy-waits for at most
//!   one character time per byte).
//!
//! The FIFOs stay **off**, as at reset: QEMU resets its receive state when FCR switches them, and
//! may already hold the first byte a host sent before the firmware ran. With them off QEMU
//! hands over one byte per interrupt and never loses one. Baud rate and line control are left
//! at QEMU's defaults (it ignores them); real silicon needs the divisor latch programmed.

use core::convert::Infallible;
use core::future::poll_fn;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use core::task::{ready, Poll};

use embassy_sync::waitqueue::AtomicWaker;
use embedded_io_async::{ErrorType, Read, Write};
use riscv::interrupt::Interrupt;
use rx_ring::RxRing;

use crate::plic;

/// Bytes buffered between the interrupt and the reader task (a power of two).
pub const RX_RING_SIZE: usize = 256;

/// NS16550A register offsets (byte registers) and bits used here.
mod reg {
    pub const BASE: usize = 0x1000_0000;
    /// Receive buffer (read) / transmit holding register (write).
    pub const RBR_THR: usize = 0;
    /// Interrupt enable.
    pub const IER: usize = 1;
    /// Line status.
    pub const LSR: usize = 5;

    /// IER: received data available.
    pub const IER_RDA: u8 = 1 << 0;
    /// LSR: a received byte waits in RBR.
    pub const LSR_DR: u8 = 1 << 0;
    /// LSR: the transmit holding register is empty.
    pub const LSR_THRE: u8 = 1 << 5;
    /// LSR: transmitter idle (holding and shift register empty).
    pub const LSR_TEMT: u8 = 1 << 6;
}

/// The UART's source number on the `virt` machine's PLIC.
const PLIC_SOURCE: u32 = 10;

fn read_reg(offset: usize) -> u8 {
    // Safety: BASE + offset is a byte register of this UART; reads have no side effect except on
    // RBR, which only the single reader (the interrupt handler) reads.
    unsafe { core::ptr::read_volatile((reg::BASE + offset) as *const u8) }
}

fn write_reg(offset: usize, value: u8) {
    // Safety: BASE + offset is a byte register of this UART.
    unsafe { core::ptr::write_volatile((reg::BASE + offset) as *mut u8, value) }
}

static RX_RING: RxRing<RX_RING_SIZE> = RxRing::new();
static RX_WAKER: AtomicWaker = AtomicWaker::new();
/// Set by the interrupt when it turned reception off because the ring was full.
static RX_PAUSED: AtomicBool = AtomicBool::new(false);
static TAKEN: AtomicBool = AtomicBool::new(false);
/// Times the interrupt paused reception because the ring was full.
static RX_PAUSES: AtomicU32 = AtomicU32::new(0);

/// Receiving half of the UART: `embedded_io_async::Read`. There is only one.
pub struct UartRx {
    _private: (),
}

/// Transmitting half of the UART: `embedded_io_async::Write`.
pub struct UartTx {
    _private: (),
}

/// Enables the UART's receive interrupt, its PLIC source and machine external interrupts, and
/// returns its two halves. Returns `None` after the first call.
///
/// A byte that arrived before stays in the UART and raises the interrupt at once.
pub fn take() -> Option<(UartRx, UartTx)> {
    if TAKEN.swap(true, Ordering::AcqRel) {
        return None;
    }
    // The PLIC first: QEMU 7.2's PLIC does not re-evaluate its output when priority or enable
    // change, only when a source changes; the IER write below makes the UART raise its line
    // (a byte may already wait), which it then forwards. In the other order a byte that arrived
    // before boot was never announced (measured: the firmware slept forever).
    plic::enable(PLIC_SOURCE);
    write_reg(reg::IER, reg::IER_RDA);
    // Safety: the handler and its state (RX_RING, RX_WAKER) are ready, and no critical section is
    // held here.
    unsafe {
        riscv::register::mie::set_mext();
        riscv::interrupt::enable();
    }
    Some((UartRx { _private: () }, UartTx { _private: () }))
}

/// Free bytes in the receive ring right now (for diagnostics).
pub fn rx_free() -> usize {
    RX_RING_SIZE - RX_RING.len().min(RX_RING_SIZE)
}

/// How many times reception was paused because the ring was full (and resumed once the reader
/// made room).
pub fn rx_pauses() -> u32 {
    RX_PAUSES.load(Ordering::Relaxed)
}

/// The machine external interrupt: the UART is its only source.
#[riscv_rt::core_interrupt(Interrupt::MachineExternal)]
fn machine_external() {
    loop {
        let source = plic::claim();
        if source == 0 {
            break;
        }
        if source == PLIC_SOURCE {
            drain_rx();
        }
        plic::complete(source);
    }
}

fn drain_rx() {
    while read_reg(reg::LSR) & reg::LSR_DR != 0 {
        if RX_RING.is_full() {
            // Leave the byte in the UART (QEMU then takes no more from the host); `UartRx::read`
            // turns the interrupt on again once it made room.
            write_reg(reg::IER, 0);
            RX_PAUSED.store(true, Ordering::Release);
            RX_PAUSES.fetch_add(1, Ordering::Relaxed);
            break;
        }
        let byte = read_reg(reg::RBR_THR);
        // Safety: this interrupt is the ring's only producer. It has room (checked above).
        unsafe { RX_RING.push(byte) };
    }
    RX_WAKER.wake();
}

/// Turns the receive interrupt on again if the handler paused it for lack of room.
fn resume_rx_if_paused() {
    if RX_PAUSED.load(Ordering::Acquire) {
        riscv::interrupt::free(|| {
            RX_PAUSED.store(false, Ordering::Relaxed);
            write_reg(reg::IER, reg::IER_RDA);
        });
    }
}

impl ErrorType for UartRx {
    type Error = Infallible;
}

impl Read for UartRx {
    /// Waits (sleeping) until at least one byte was received, then returns what is buffered.
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        if buf.is_empty() {
            return Ok(0);
        }
        poll_fn(|cx| {
            let register = || RX_WAKER.register(cx.waker());
            // Safety: `UartRx` is a singleton (`take`), so this is the ring's only consumer.
            let n = ready!(unsafe { RX_RING.poll_pop_into(buf, register) });
            resume_rx_if_paused();
            Poll::Ready(Ok(n))
        })
        .await
    }
}

impl ErrorType for UartTx {
    type Error = Infallible;
}

impl Write for UartTx {
    /// Writes bytes as THRE allows; returns how many (at least one for a non-empty `buf`).
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        let mut written = 0;
        for &byte in buf {
            if read_reg(reg::LSR) & reg::LSR_THRE == 0 {
                if written > 0 {
                    break;
                }
                while read_reg(reg::LSR) & reg::LSR_THRE == 0 {
                    core::hint::spin_loop();
                }
            }
            write_reg(reg::RBR_THR, byte);
            written += 1;
        }
        Ok(written)
    }

    /// Waits until the UART has sent everything.
    async fn flush(&mut self) -> Result<(), Infallible> {
        while read_reg(reg::LSR) & reg::LSR_TEMT == 0 {
            core::hint::spin_loop();
        }
        Ok(())
    }
}
