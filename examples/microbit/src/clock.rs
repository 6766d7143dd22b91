//! Time since boot from TIMER0, which the nRF51 and QEMU's `microbit` both have (the RTCs, which
//! embassy-nrf's time driver needs, are not modelled by QEMU 7.2).
//!
//! TIMER0 runs free in 32-bit mode at 1 MHz (16 MHz / 2^4); compare channel 0 at the last count
//! before the wrap (`u32::MAX`, not 0: QEMU 7.2 raises a compare at 0 right at the start)
//! interrupts once per wrap (every 71.6 minutes), counting wraps into the high word. Channel 1 captures the
//! count on a read. Nothing else uses TIMER0.

use core::sync::atomic::{AtomicU32, Ordering};
use core::task::Waker;

use cortex_m::peripheral::NVIC;
use embassy_sync::waitqueue::AtomicWaker;
use nrf51_hal::pac::{interrupt, Interrupt, TIMER0};

/// Wraps of the 32-bit counter. Only the TIMER0 interrupt stores it (a load and a store: no
/// read-modify-write atomics on Cortex-M0).
static WRAPS: AtomicU32 = AtomicU32::new(0);

/// The task the alarm (channel 2) wakes.
static ALARM: AtomicWaker = AtomicWaker::new();

fn timer() -> &'static nrf51_hal::pac::timer0::RegisterBlock {
    // Safety: TIMER0 was handed to `start`, which owns it from then on; this module only writes
    // the tasks, events and CC registers it configured there.
    unsafe { &*TIMER0::ptr() }
}

/// Starts the clock at 0. Call once, at boot.
pub fn start(timer0: TIMER0) {
    timer0.tasks_stop.write(|w| unsafe { w.bits(1) });
    timer0.mode.write(|w| w.mode().timer());
    timer0.bitmode.write(|w| w.bitmode()._32bit());
    timer0.prescaler.write(|w| unsafe { w.prescaler().bits(4) });
    timer0.cc[0].write(|w| unsafe { w.bits(u32::MAX) });
    timer0.events_compare[0].write(|w| unsafe { w.bits(0) });
    timer0.intenset.write(|w| w.compare0().set());
    timer0.tasks_clear.write(|w| unsafe { w.bits(1) });
    timer0.tasks_start.write(|w| unsafe { w.bits(1) });
    // Safety: the handler below only touches TIMER0's compare event and `WRAPS`.
    unsafe { NVIC::unmask(Interrupt::TIMER0) };
}

#[interrupt]
fn TIMER0() {
    let timer = timer();
    if timer.events_compare[0].read().bits() != 0 {
        timer.events_compare[0].write(|w| unsafe { w.bits(0) });
        WRAPS.store(
            WRAPS.load(Ordering::Relaxed).wrapping_add(1),
            Ordering::Relaxed,
        );
    }
    if timer.events_compare[2].read().bits() != 0 {
        timer.events_compare[2].write(|w| unsafe { w.bits(0) });
        timer.intenclr.write(|w| w.compare2().clear());
        ALARM.wake();
    }
}

/// Wakes `waker` once, `us` microseconds from now (at least 2; at most about an hour). A later
/// call replaces the alarm (one task uses it: the UART's transmitter).
pub fn wake_after_us(us: u32, waker: &Waker) {
    ALARM.register(waker);
    critical_section::with(|_| {
        let timer = timer();
        timer.tasks_capture[2].write(|w| unsafe { w.bits(1) });
        let at = timer.cc[2].read().bits().wrapping_add(us.max(2));
        timer.cc[2].write(|w| unsafe { w.bits(at) });
        timer.events_compare[2].write(|w| unsafe { w.bits(0) });
        timer.intenset.write(|w| w.compare2().set());
    });
}

/// Microseconds since [`start`].
pub fn uptime_us() -> u64 {
    critical_section::with(|_| {
        let timer = timer();
        timer.tasks_capture[1].write(|w| unsafe { w.bits(1) });
        let low = timer.cc[1].read().bits();
        let mut high = WRAPS.load(Ordering::Relaxed);
        // A wrap whose interrupt is still pending (masked by this critical section) counts too
        // when the captured count is from after it (the event came at `u32::MAX`).
        if timer.events_compare[0].read().bits() != 0 && low < 0x8000_0000 {
            high = high.wrapping_add(1);
        }
        (u64::from(high) << 32) | u64::from(low)
    })
}

/// Milliseconds since [`start`].
pub fn uptime_ms() -> u64 {
    uptime_us() / 1000
}
