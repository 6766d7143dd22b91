//! Interrupt-driven driver for UART0 of QEMU's `lm3s6965evb` board (an ARM PL011 at
//! `0x4000_C000`, interrupt IRQ 5), implementing `embedded_io_async::{Read, Write}`.
//!
//! - Receive: the UART0 interrupt moves received bytes into [`RxRing`] and wakes the reader
//!   task, which otherwise sleeps. When the ring is full the interrupt masks itself and leaves the
//!   byte in the UART; [`UartRx::read`] unmasks it once it made room. Under QEMU that pushes back
//!   on the host instead of losing bytes (on silicon the UART would overrun).
//! - Transmit: polls the TX-full flag (QEMU never sets it; on silicon a full FIFO busy-waits for
//!   at most one character time per byte).
//!
//! The FIFOs stay **off** (character mode, one byte per interrupt). QEMU 7.2 has already taken
//! the first byte a host sent before boot (an MCP client writes `initialize` at once), and
//! switching the FIFOs on resets its receive state: that byte was always lost, and rescuing it by
//! reading it first still lost or duplicated a byte in 2 of 150 boots under CPU load. Character
//! mode costs throughput under QEMU (100 round trips of 200 bytes: 0.5-1.2 s instead of
//! 0.27-0.45 s on a loaded machine) but loses nothing. On silicon, turn the FIFOs on (LCRH `0x70`) before the line can carry data.
//!
//! Only what QEMU needs is programmed: real silicon would also need clock gating (RCGC1) and
//! GPIO alternate functions for PA0/PA1.

use core::convert::Infallible;
use core::future::poll_fn;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use core::task::{ready, Poll};

use cortex_m::peripheral::NVIC;
use embassy_sync::waitqueue::AtomicWaker;
use embedded_io_async::{ErrorType, Read, Write};

use rx_ring::RxRing;

/// Bytes buffered between the interrupt and the reader task (a power of two).
pub const RX_RING_SIZE: usize = 256;

use crate::pl011 as reg;

/// NVIC number of the UART0 interrupt on the LM3S6965.
#[derive(Clone, Copy)]
struct Uart0Irq;

// Safety: 5 is UART0's interrupt number on this chip, and src/vectors.rs puts
// `on_uart0_interrupt` at that slot.
unsafe impl cortex_m::interrupt::InterruptNumber for Uart0Irq {
    fn number(self) -> u16 {
        5
    }
}

fn read_reg(offset: usize) -> u32 {
    // Safety: BASE + offset is a 32-bit UART0 register of this board; reads have no side effect
    // except on DR, which only the single reader (ISR) reads.
    unsafe { core::ptr::read_volatile((reg::BASE + offset) as *const u32) }
}

fn write_reg(offset: usize, value: u32) {
    // Safety: BASE + offset is a 32-bit UART0 register of this board.
    unsafe { core::ptr::write_volatile((reg::BASE + offset) as *mut u32, value) }
}

static RX_RING: RxRing<RX_RING_SIZE> = RxRing::new();
static RX_WAKER: AtomicWaker = AtomicWaker::new();
/// Set by the interrupt when it masked itself because the ring was full.
static RX_PAUSED: AtomicBool = AtomicBool::new(false);
static TAKEN: AtomicBool = AtomicBool::new(false);
/// Times the interrupt paused reception because the ring was full.
static RX_PAUSES: AtomicU32 = AtomicU32::new(0);

/// UART0, enabled and interrupt-driven. Get it once with [`Uart0::take`], then
/// [`split`](Uart0::split) it or use it whole (it implements `Read` and `Write` too).
pub struct Uart0 {
    rx: UartRx,
    tx: UartTx,
}

/// Receiving half of UART0: `embedded_io_async::Read`. There is only one.
pub struct UartRx {
    _private: (),
}

/// Transmitting half of UART0: `embedded_io_async::Write`.
pub struct UartTx {
    _private: (),
}

impl Uart0 {
    /// Enables UART0 (115200 8N1, RX and TX; QEMU ignores the baud rate), its receive interrupt
    /// and IRQ 5 in the NVIC. Returns `None` after the first call.
    ///
    /// A byte that arrived before is kept and read by the first interrupt.
    pub fn take() -> Option<Self> {
        if TAKEN.swap(true, Ordering::AcqRel) {
            return None;
        }
        write_reg(reg::CR, 0);
        // 12.5 MHz / (16 * 115200) = 6.78: IBRD 6, FBRD round(0.78 * 64) = 50. Set before LCRH.
        write_reg(reg::IBRD, 6);
        write_reg(reg::FBRD, 50);
        write_reg(reg::LCRH, reg::LCRH_8N1);
        // Not INT_RX: QEMU raises it only when a byte arrives in an empty UART, so clearing it
        // while a byte waits would silence reception for good.
        write_reg(reg::ICR, reg::INT_ALL & !reg::INT_RX);
        write_reg(reg::IM, reg::INT_RX);
        write_reg(reg::CR, reg::CR_ENABLE_TX_RX);
        // Run the handler once in any case, to drain what arrived during this set-up.
        NVIC::pend(Uart0Irq);
        // Safety: the handler and its state (RX_RING, RX_WAKER) are ready; unmasking cannot
        // break a critical section because no code holds one here.
        unsafe { NVIC::unmask(Uart0Irq) };
        Some(Self {
            rx: UartRx { _private: () },
            tx: UartTx { _private: () },
        })
    }

    /// Splits into the receiving and the transmitting half (e.g. for an engine's
    /// `serve(reader, writer)`).
    pub fn split(self) -> (UartRx, UartTx) {
        (self.rx, self.tx)
    }
}

/// Free bytes in the receive ring right now (for diagnostics).
pub fn rx_free() -> usize {
    RX_RING_SIZE - RX_RING.len().min(RX_RING_SIZE)
}

/// How many times reception was paused because the ring was full (and resumed once the reader
/// made room): the back-pressure that keeps a fast sender from losing bytes.
pub fn rx_pauses() -> u32 {
    RX_PAUSES.load(Ordering::Relaxed)
}

/// The UART0 interrupt handler (IRQ 5, installed by src/vectors.rs).
pub extern "C" fn on_uart0_interrupt() {
    while read_reg(reg::FR) & reg::FR_RXFE == 0 {
        if RX_RING.is_full() {
            // Leave the byte in the UART (QEMU then stops taking more from the host);
            // `UartRx::read` unmasks once it made room. Never clear INT_RX via ICR here: QEMU
            // would not raise it again for the byte still waiting.
            write_reg(reg::IM, read_reg(reg::IM) & !reg::INT_RX);
            RX_PAUSED.store(true, Ordering::Release);
            RX_PAUSES.fetch_add(1, Ordering::Relaxed);
            break;
        }
        // Bits 8..11 are error flags (framing, parity, break, overrun): dropped here, the line
        // reader above detects damaged frames.
        let byte = read_reg(reg::DR) as u8;
        // Safety: this interrupt is the ring's only producer. It has room (checked above).
        unsafe { RX_RING.push(byte) };
    }
    RX_WAKER.wake();
}

/// Re-enables the receive interrupt if the handler paused them for lack of room.
fn resume_rx_if_paused() {
    if RX_PAUSED.load(Ordering::Acquire) {
        cortex_m::interrupt::free(|_| {
            RX_PAUSED.store(false, Ordering::Relaxed);
            write_reg(reg::IM, read_reg(reg::IM) | reg::INT_RX);
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
            // Safety: `UartRx` is a singleton (Uart0::take), so this is the ring's only consumer.
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
    /// Queues bytes into the TX FIFO; returns how many fit (at least one for a non-empty `buf`).
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        let mut written = 0;
        for &byte in buf {
            if read_reg(reg::FR) & reg::FR_TXFF != 0 {
                if written > 0 {
                    break;
                }
                while read_reg(reg::FR) & reg::FR_TXFF != 0 {
                    core::hint::spin_loop();
                }
            }
            write_reg(reg::DR, u32::from(byte));
            written += 1;
        }
        Ok(written)
    }

    /// Waits until the UART has sent everything.
    async fn flush(&mut self) -> Result<(), Infallible> {
        while read_reg(reg::FR) & reg::FR_BUSY != 0 {
            core::hint::spin_loop();
        }
        Ok(())
    }
}

impl ErrorType for Uart0 {
    type Error = Infallible;
}

impl Read for Uart0 {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        self.rx.read(buf).await
    }
}

impl Write for Uart0 {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        self.tx.write(buf).await
    }

    async fn flush(&mut self) -> Result<(), Infallible> {
        self.tx.flush().await
    }
}
