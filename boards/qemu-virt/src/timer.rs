//! Waiting in async tools: [`sleep_ms`] sleeps until the CLINT's machine timer interrupt.
//!
//! A sleeping future arms `mtimecmp` (CLINT `+0x4000`) for its deadline, or keeps an earlier
//! one already armed, and registers its waker. The machine timer interrupt disarms the compare
//! register (the interrupt is a level: `mtime >= mtimecmp`) and wakes every registered waker; a
//! future whose deadline has not come yet arms again. Between interrupts embassy's executor
//! sleeps with WFI, so a tool that waits costs the host no CPU.

use core::cell::RefCell;
use core::future::poll_fn;
use core::task::Poll;

use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::waitqueue::MultiWakerRegistration;
use riscv::interrupt::Interrupt;

use crate::clock;

/// `mtimecmp` of hart 0 (CLINT at `0x0200_0000`, `+0x4000`), low and high words.
const MTIMECMP_LO: usize = 0x0200_4000;
const MTIMECMP_HI: usize = MTIMECMP_LO + 4;

/// Sleepers that can wait at once before a registration wakes them all (they then register
/// again): more than the tasks this firmware runs.
const SLEEPERS: usize = 4;

/// The armed deadline and the wakers waiting for it (all zero bytes when none is armed, so the
/// static lives in `.bss`).
struct Alarm {
    deadline: Option<u64>,
    wakers: MultiWakerRegistration<SLEEPERS>,
}

static ALARM: Mutex<CriticalSectionRawMutex, RefCell<Alarm>> = Mutex::new(RefCell::new(Alarm {
    deadline: None,
    wakers: MultiWakerRegistration::new(),
}));

fn write(addr: usize, value: u32) {
    // Safety: MTIMECMP_LO and MTIMECMP_HI are the CLINT's writable 32-bit `mtimecmp` halves.
    unsafe { core::ptr::write_volatile(addr as *mut u32, value) }
}

/// Sets `mtimecmp` without passing through a value below both the old and the new one (which
/// would fire early): the low word goes to its maximum first. Call with interrupts off.
fn set_compare(value: u64) {
    write(MTIMECMP_LO, u32::MAX);
    write(MTIMECMP_HI, (value >> 32) as u32);
    write(MTIMECMP_LO, value as u32);
}

/// Disarms the compare register and enables the machine timer interrupt. Call once at boot,
/// before interrupts are enabled (`mtimecmp` is 0 at reset: armed, the interrupt would fire at
/// once).
pub fn start() {
    set_compare(u64::MAX);
    // Safety: the handler below and its state (ALARM) are ready; nothing is armed yet.
    unsafe { riscv::register::mie::set_mtimer() };
}

/// Completes `ms` milliseconds from now.
pub async fn sleep_ms(ms: u64) {
    let deadline = clock::ticks().saturating_add(ms.saturating_mul(clock::TICKS_PER_SECOND / 1000));
    poll_fn(|cx| {
        if clock::ticks() >= deadline {
            return Poll::Ready(());
        }
        ALARM.lock(|alarm| {
            let mut alarm = alarm.borrow_mut();
            alarm.wakers.register(cx.waker());
            if alarm.deadline.is_none_or(|armed| deadline < armed) {
                alarm.deadline = Some(deadline);
                set_compare(deadline);
            }
        });
        // A deadline that passed while arming fires the interrupt (`mtime >= mtimecmp`) as soon
        // as the critical section ends, and the interrupt wakes this task.
        Poll::Pending
    })
    .await;
}

/// The machine timer interrupt: the armed deadline has come.
#[riscv_rt::core_interrupt(Interrupt::MachineTimer)]
fn machine_timer() {
    ALARM.lock(|alarm| {
        let mut alarm = alarm.borrow_mut();
        alarm.deadline = None;
        set_compare(u64::MAX);
        alarm.wakers.wake();
    });
}
