//! A thread-mode embassy executor that sleeps with WFI.
//!
//! embassy-executor's own Cortex-M executor (feature `executor-thread`) sleeps with WFE, which
//! QEMU 7.2 treats as a no-op: an idle device would keep a host core at 100 %. This one marks
//! pending work in a flag from `__pender` and sleeps with WFI until the next interrupt.

use core::sync::atomic::{AtomicBool, Ordering};

use embassy_executor::{raw, Spawner};

/// Set when a task was woken and the executor must poll again.
static WORK_PENDING: AtomicBool = AtomicBool::new(false);

/// Called by embassy (from tasks or interrupts) when a task was woken.
#[unsafe(export_name = "__pender")]
fn pender(_context: *mut ()) {
    WORK_PENDING.store(true, Ordering::Release);
}

/// Runs the executor forever; `init` spawns the first tasks. Call once.
pub fn run(init: impl FnOnce(Spawner)) -> ! {
    let executor: &'static raw::Executor =
        cortex_m::singleton!(: raw::Executor = raw::Executor::new(core::ptr::null_mut()))
            .unwrap_or_else(|| crate::fault::fail("executor::run called twice"));
    init(executor.spawner());
    loop {
        WORK_PENDING.store(false, Ordering::Relaxed);
        // Safety: `poll` is only ever called here, never re-entrantly.
        unsafe { executor.poll() };
        // Interrupts off between the check and WFI, so a wake-up from an interrupt cannot slip in
        // between them; WFI still returns on a pending (masked) interrupt, which then runs.
        cortex_m::interrupt::free(|_| {
            if !WORK_PENDING.load(Ordering::Acquire) {
                cortex_m::asm::wfi();
            }
        });
    }
}
