//! Uptime from SysTick: the 24-bit counter runs from the core clock at full reload and its
//! interrupt only counts wrap-arounds (one every 1.34 s), so an idle device wakes rarely.

use core::sync::atomic::{AtomicU32, Ordering};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::{SCB, SYST};
use cortex_m_rt::exception;

/// Core clock of QEMU's lm3s6965evb at reset (RCC SYSDIV default: 80 ns per cycle).
pub const CORE_CLOCK_HZ: u32 = 12_500_000;

/// SysTick counts RELOAD..=0, i.e. RELOAD + 1 cycles per wrap.
const RELOAD: u32 = 0x00FF_FFFF;

/// SysTick wrap-arounds since [`start`].
static WRAPS: AtomicU32 = AtomicU32::new(0);

/// Starts SysTick as the uptime counter.
pub fn start(mut syst: SYST) {
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(RELOAD);
    syst.clear_current();
    syst.enable_interrupt();
    syst.enable_counter();
}

#[exception]
fn SysTick() {
    WRAPS.fetch_add(1, Ordering::Relaxed);
}

/// Core clock cycles since [`start`].
pub fn uptime_cycles() -> u64 {
    cortex_m::interrupt::free(|_| {
        // With interrupts off the wrap count cannot change, but the counter can wrap: a pending
        // SysTick means it did. A value read after seeing it pending belongs to the next period.
        let before = SYST::get_current();
        let wrapped = SCB::is_pendst_pending();
        let after = SYST::get_current();
        let wraps = u64::from(WRAPS.load(Ordering::Relaxed));
        let (wraps, current) = if wrapped {
            (wraps + 1, after)
        } else {
            (wraps, before)
        };
        wraps * (u64::from(RELOAD) + 1) + u64::from(RELOAD - current)
    })
}

/// Milliseconds since [`start`].
pub fn uptime_ms() -> u64 {
    // 12,500 cycles per millisecond: below 2^16, so no 64-bit divide.
    const CYCLES_PER_MS: u16 = (CORE_CLOCK_HZ / 1000) as u16;
    cortex_m_glue::div::div_rem(uptime_cycles(), CYCLES_PER_MS).0
}
