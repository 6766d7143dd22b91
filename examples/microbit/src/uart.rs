//! UART0 of the nRF51 (115,200 baud, 8N1, TXD on P0.24 and RXD on P0.25: the USB serial port of
//! the micro:bit's interface chip) as `embedded_io_async::{Read, Write}`, driven through
//! nrf51-hal's `Uart` and its interrupt.
//!
//! - The HAL configures the pins, baud rate and parity, and moves every byte (`ReadReady`/`Read`,
//!   `WriteReady`/`Write` of its `embedded_io` implementation). It has no interrupt API, so this
//!   module sets and clears the `RXDRDY`/`TXDRDY` interrupt enables on the register block the HAL
//!   owns; the HAL's `Uart` lives in [`UART`], shared by the tasks and the interrupt under a
//!   critical section.
//! - Receive: the UART0 interrupt moves received bytes into an [`RxRing`] and wakes the reader.
//!   When the ring is full it disables its `RXDRDY` interrupt and leaves the byte in the UART;
//!   [`UartRx::read`] enables it again once it made room. Under QEMU this pushes back on the host
//!   (QEMU takes no more input while its 6-byte FIFO is full); on the chip, a sender that keeps
//!   going overruns the FIFO, which the line reader above reports as a damaged line.
//! - Transmit: a byte goes out whenever `TXDRDY` says the last one left; otherwise the writer
//!   sleeps until the `TXDRDY` interrupt (enabled only while it waits) wakes it.
//!
//! Two QEMU 7.2 differences are handled here, each in one place: the HAL's first write
//! ([`arm_first_write`]) and a `TXDRDY` without interrupt after back-pressure ([`tx_ready`]).

use core::cell::RefCell;
use core::convert::Infallible;
use core::future::poll_fn;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use core::task::{ready, Poll};

use cortex_m::peripheral::NVIC;
use critical_section::Mutex;
use embassy_sync::waitqueue::AtomicWaker;
use embedded_io::{Read as _, ReadReady as _, Write as _, WriteReady as _};
use embedded_io_async::{ErrorType, Read, Write};
use nrf51_hal::pac::{interrupt, Interrupt, UART0};
use nrf51_hal::uart::{Baudrate, Parity, Pins, Uart};

use rx_ring::RxRing;

use crate::clock;

/// Bytes buffered between the interrupt and the reader task (a power of two).
pub const RX_RING_SIZE: usize = 256;

/// The HAL's UART0, once [`take`] configured it.
static UART: Mutex<RefCell<Option<Uart<UART0>>>> = Mutex::new(RefCell::new(None));
static RX_RING: RxRing<RX_RING_SIZE> = RxRing::new();
static RX_WAKER: AtomicWaker = AtomicWaker::new();
static TX_WAKER: AtomicWaker = AtomicWaker::new();
/// Set by the interrupt when it stopped receiving because the ring was full.
static RX_PAUSED: AtomicBool = AtomicBool::new(false);
/// Times reception paused for lack of room (only the interrupt stores it).
static RX_PAUSES: AtomicU32 = AtomicU32::new(0);

/// Receiving half of UART0: `embedded_io_async::Read`. There is only one.
pub struct UartRx {
    _private: (),
}

/// Transmitting half of UART0: `embedded_io_async::Write`.
pub struct UartTx {
    _private: (),
}

fn registers() -> &'static nrf51_hal::pac::uart0::RegisterBlock {
    // Safety: the HAL's `Uart` owns UART0; besides it, this module only writes the interrupt
    // enable registers (which the HAL never touches) and, once, `EVENTS_TXDRDY`
    // (`arm_first_write`).
    unsafe { &*UART0::ptr() }
}

/// Configures UART0 through the HAL (115,200 baud, no parity, no flow control), enables its
/// receive interrupt and returns its two halves. Takes the peripheral, so it runs once.
pub fn take(uart0: UART0, pins: Pins) -> (UartRx, UartTx) {
    let uart = Uart::new(uart0, pins, Parity::EXCLUDED, Baudrate::BAUD115200);
    arm_first_write();
    critical_section::with(|cs| UART.borrow(cs).replace(Some(uart)));
    registers().intenset.write(|w| w.rxdrdy().set());
    // Run the handler once in any case, to take what arrived during this set-up.
    NVIC::pend(Interrupt::UART0);
    // Safety: the handler and its state are ready; no critical section is held here.
    unsafe { NVIC::unmask(Interrupt::UART0) };
    (UartRx { _private: () }, UartTx { _private: () })
}

/// Makes the first write go out, on the chip and under QEMU 7.2: the one place that knows.
///
/// The HAL's `Uart::new` writes a dummy byte to `TXD` *before* it enables the UART, so that
/// `EVENTS_TXDRDY` is set and its first `write` finds the transmitter ready. QEMU's
/// `nrf51_uart` ignores `TXD` while the UART is disabled, so the event never comes and every
/// write would wait forever. Setting the event here, after `Uart::new`, says "ready" on both:
/// the transmitter is idle at this point in any case.
fn arm_first_write() {
    registers().events_txdrdy.write(|w| unsafe { w.bits(1) });
}

/// Free bytes in the receive ring right now (for `device_info`).
pub fn rx_free() -> usize {
    RX_RING_SIZE - RX_RING.len().min(RX_RING_SIZE)
}

/// How many times reception paused because the ring was full (and resumed once the reader
/// made room).
pub fn rx_pauses() -> u32 {
    RX_PAUSES.load(Ordering::Relaxed)
}

#[interrupt]
fn UART0() {
    critical_section::with(|cs| {
        let mut uart = UART.borrow_ref_mut(cs);
        let Some(uart) = uart.as_mut() else { return };
        let regs = registers();
        while uart.read_ready() == Ok(true) {
            if RX_RING.is_full() {
                // Leave the byte in the UART; `UartRx::read` enables the interrupt again.
                regs.intenclr.write(|w| w.rxdrdy().clear());
                RX_PAUSED.store(true, Ordering::Release);
                RX_PAUSES.store(rx_pauses().wrapping_add(1), Ordering::Relaxed);
                break;
            }
            let mut byte = [0u8];
            if let Ok(1) = uart.read(&mut byte) {
                // Safety: this interrupt is the ring's only producer; it has room (above).
                unsafe { RX_RING.push(byte[0]) };
            }
        }
        // The writer waits for TXDRDY (its interrupt is enabled only then): wake it once, and
        // disable the interrupt, which the still-set event would otherwise raise again.
        if regs.intenset.read().txdrdy().is_enabled() && uart.write_ready() == Ok(true) {
            regs.intenclr.write(|w| w.txdrdy().clear());
            TX_WAKER.wake();
        }
    });
    RX_WAKER.wake();
}

/// Enables the receive interrupt again if the handler stopped it for lack of room.
fn resume_rx_if_paused() {
    if RX_PAUSED.load(Ordering::Acquire) {
        RX_PAUSED.store(false, Ordering::Relaxed);
        registers().intenset.write(|w| w.rxdrdy().set());
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
            // Safety: `UartRx` is made once (`take`), so this is the ring's only consumer.
            let n = ready!(unsafe { RX_RING.poll_pop_into(buf, register) });
            resume_rx_if_paused();
            Poll::Ready(Ok(n))
        })
        .await
    }
}

/// How long the writer sleeps at most before it looks at `TXDRDY` again ([`tx_ready`]).
const TX_RECHECK_US: u32 = 1000;

/// Waits until the transmitter took the last byte (`TXDRDY`), sleeping on its interrupt.
///
/// Under QEMU 7.2 the interrupt alone can hang the link: when the host does not take a byte at
/// once (its socket or pipe is full: one-byte writes fill a unix socket's buffer long before
/// its byte count says so), `nrf51_uart` keeps the byte and later sets `TXDRDY` from its
/// chardev watch *without* updating its interrupt line, so the writer would sleep until the next
/// received byte, and the host waits for the rest of the line first. The writer therefore also
/// sets an alarm ([`clock::wake_after_us`], TIMER0) and looks again after [`TX_RECHECK_US`]. On
/// the chip the interrupt comes first (a character takes 87 µs); the alarm then only costs a
/// spurious wake-up.
async fn tx_ready() {
    poll_fn(|cx| {
        critical_section::with(|cs| {
            let mut uart = UART.borrow_ref_mut(cs);
            match uart.as_mut().map(|uart| uart.write_ready()) {
                Some(Ok(true)) | None => Poll::Ready(()),
                Some(Ok(false)) => {
                    TX_WAKER.register(cx.waker());
                    registers().intenset.write(|w| w.txdrdy().set());
                    clock::wake_after_us(TX_RECHECK_US, cx.waker());
                    Poll::Pending
                }
            }
        })
    })
    .await
}

impl ErrorType for UartTx {
    type Error = Infallible;
}

impl Write for UartTx {
    /// Waits until the transmitter is ready, then hands it bytes while it takes them at once
    /// (under QEMU: all of `buf`; on the chip: one per 87 µs character time). Returns how many.
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        if buf.is_empty() {
            return Ok(0);
        }
        tx_ready().await;
        Ok(critical_section::with(|cs| {
            let mut uart = UART.borrow_ref_mut(cs);
            let Some(uart) = uart.as_mut() else {
                return 0;
            };
            let mut written = 0;
            for byte in buf.chunks(1) {
                if uart.write_ready() != Ok(true) {
                    break;
                }
                // The HAL clears TXDRDY and writes TXD; it does not wait, as TXDRDY was set.
                if uart.write(byte) != Ok(1) {
                    break;
                }
                written += 1;
            }
            written
        }))
    }

    /// Waits until the last byte left the transmit register.
    async fn flush(&mut self) -> Result<(), Infallible> {
        tx_ready().await;
        Ok(())
    }
}
