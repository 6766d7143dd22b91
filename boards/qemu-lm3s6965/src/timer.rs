//! Waiting in async tools: [`sleep_ms`] sleeps until a one-shot interrupt of general-purpose
//! timer 0 (GPTM0 at `0x4003_0000`, IRQ 19).
//!
//! SysTick stays the uptime clock (src/clock.rs): it runs at full reload and is never restarted,
//! since restarting it for a nearer deadline would lose the cycles between reading and reloading
//! it. Timer 0A, in 32-bit one-shot mode from the same core clock, is the alarm only (QEMU cannot
//! read its count back). A sleeping future arms it for its deadline, or keeps an earlier one
//! already armed, and registers its waker. The interrupt clears itself and wakes every
//! registered waker; a future whose deadline has not come yet arms again (so does one whose
//! deadline lay beyond the 32-bit count, 343 s). Between interrupts the executor sleeps with WFI
//! (src/executor.rs), so a tool that waits costs the host no CPU.
//!
//! Only what QEMU needs is programmed: silicon would also need the timer's clock gate (RCGC1).

use core::cell::RefCell;
use core::future::poll_fn;
use core::task::Poll;

use cortex_m::peripheral::NVIC;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::waitqueue::MultiWakerRegistration;

use crate::clock;

/// GPTM0 register offsets and bits used here.
mod reg {
    pub const BASE: usize = 0x4003_0000;
    /// Configuration: 0 = one 32-bit timer.
    pub const CFG: usize = 0x00;
    /// Timer A mode.
    pub const TAMR: usize = 0x04;
    /// Control: bit 0 enables timer A.
    pub const CTL: usize = 0x0C;
    /// Interrupt mask.
    pub const IMR: usize = 0x18;
    /// Interrupt clear.
    pub const ICR: usize = 0x24;
    /// Timer A interval load: the count of the next shot.
    pub const TAILR: usize = 0x28;

    /// CFG: 32-bit timer.
    pub const CFG_32_BIT: u32 = 0;
    /// TAMR: one-shot.
    pub const TAMR_ONE_SHOT: u32 = 0x1;
    /// CTL: timer A enabled (QEMU starts counting from TAILR when this bit goes from 0 to 1).
    pub const CTL_TAEN: u32 = 1 << 0;
    /// IMR/ICR: timer A time-out.
    pub const INT_TATO: u32 = 1 << 0;
}

/// NVIC number of the timer 0A interrupt on the LM3S6965.
#[derive(Clone, Copy)]
struct Timer0aIrq;

// Safety: 19 is timer 0A's interrupt number on this chip, and src/vectors.rs puts `TIMER0A`
// (the handler below) at that slot.
unsafe impl cortex_m::interrupt::InterruptNumber for Timer0aIrq {
    fn number(self) -> u16 {
        19
    }
}

fn write_reg(offset: usize, value: u32) {
    // Safety: BASE + offset is a 32-bit GPTM0 register of this board.
    unsafe { core::ptr::write_volatile((reg::BASE + offset) as *mut u32, value) }
}

/// Sleepers that can wait at once before a registration wakes them all (they then register
/// again): more than the tasks this firmware runs.
const SLEEPERS: usize = 4;

/// The armed deadline (core clock cycles of [`clock::uptime_cycles`]) and the wakers waiting
/// for it (all zero bytes when none is armed, so the static lives in `.bss`).
struct Alarm {
    deadline: Option<u64>,
    wakers: MultiWakerRegistration<SLEEPERS>,
}

static ALARM: Mutex<CriticalSectionRawMutex, RefCell<Alarm>> = Mutex::new(RefCell::new(Alarm {
    deadline: None,
    wakers: MultiWakerRegistration::new(),
}));

/// Starts a shot of `cycles` core clock cycles (at least 1, at most `u32::MAX`), replacing one
/// in flight. Call with interrupts off.
fn shoot(cycles: u64) {
    let count = u32::try_from(cycles).unwrap_or(u32::MAX).max(1);
    write_reg(reg::CTL, 0);
    write_reg(reg::TAILR, count);
    write_reg(reg::CTL, reg::CTL_TAEN);
}

/// Configures timer 0A (32-bit, one-shot, stopped), enables its time-out interrupt and IRQ 19 in
/// the NVIC. Call once at boot, after [`clock::start`].
pub fn start() {
    write_reg(reg::CTL, 0);
    write_reg(reg::CFG, reg::CFG_32_BIT);
    write_reg(reg::TAMR, reg::TAMR_ONE_SHOT);
    write_reg(reg::ICR, reg::INT_TATO);
    write_reg(reg::IMR, reg::INT_TATO);
    // Safety: the handler below and its state (ALARM) are ready; nothing is armed yet.
    unsafe { NVIC::unmask(Timer0aIrq) };
}

/// Completes `ms` milliseconds from now.
pub async fn sleep_ms(ms: u64) {
    let deadline = clock::uptime_cycles()
        .saturating_add(ms.saturating_mul(u64::from(clock::CORE_CLOCK_HZ / 1000)));
    poll_fn(|cx| {
        ALARM.lock(|alarm| {
            let now = clock::uptime_cycles();
            if now >= deadline {
                return Poll::Ready(());
            }
            // Never borrowed twice: every borrow is inside this critical section and none nests.
            // (`borrow_mut` would link a panic message formatted with `core::fmt`.)
            let Ok(mut alarm) = alarm.try_borrow_mut() else {
                return Poll::Pending;
            };
            alarm.wakers.register(cx.waker());
            if alarm.deadline.is_none_or(|armed| deadline < armed) {
                alarm.deadline = Some(deadline);
                shoot(deadline - now);
            }
            Poll::Pending
        })
    })
    .await;
}

/// The timer 0A interrupt (slot 19 of src/vectors.rs): the armed shot has ended. The sleepers
/// check their deadlines when polled; the next one due arms again.
#[unsafe(export_name = "TIMER0A")]
extern "C" fn on_timer0a_interrupt() {
    ALARM.lock(|alarm| {
        write_reg(reg::ICR, reg::INT_TATO);
        if let Ok(mut alarm) = alarm.try_borrow_mut() {
            alarm.deadline = None;
            alarm.wakers.wake();
        }
    });
}
