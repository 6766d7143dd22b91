//! A thread-mode embassy executor that sleeps with WFI.
//!
//! embassy-executor's own Cortex-M executor (feature `executor-thread`) sleeps with WFE, which
//! QEMU 7.2 treats as a no-op: an idle device would keep a host core at 100 %. This one marks
//! pending work in a flag from `__pender` and sleeps with WFI until the next interrupt.
//! [`block_on`] runs one future the same way, for a firmware without tasks.

use core::future::Future;
use core::pin::pin;
use core::sync::atomic::{AtomicBool, Ordering};
use core::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};

use embassy_executor::{raw, Spawner};

/// Set when a task was woken and the executor must poll again.
static WORK_PENDING: AtomicBool = AtomicBool::new(false);

/// Called by embassy (from tasks or interrupts) when a task was woken.
#[unsafe(export_name = "__pender")]
fn pender(_context: *mut ()) {
    WORK_PENDING.store(true, Ordering::Release);
}

/// Runs `future` to completion on the calling stack, sleeping with WFI while it waits: its
/// waker sets the same flag as `__pender`, so a wake-up from an interrupt or from the future
/// itself is never missed.
pub fn block_on<F: Future>(future: F) -> F::Output {
    // Safety: the vtable's functions ignore the data pointer (null) and are thread-safe.
    let waker = unsafe { Waker::from_raw(RawWaker::new(core::ptr::null(), &VTABLE)) };
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        WORK_PENDING.store(false, Ordering::Relaxed);
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        sleep_unless_pending();
    }
}

/// The waker of [`block_on`]: waking sets [`WORK_PENDING`].
static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake, forget);

fn clone(_: *const ()) -> RawWaker {
    RawWaker::new(core::ptr::null(), &VTABLE)
}

fn wake(_: *const ()) {
    WORK_PENDING.store(true, Ordering::Release);
}

fn forget(_: *const ()) {}

/// Sleeps with WFI unless work is pending. Interrupts are off between the check and WFI, so a
/// wake-up from an interrupt cannot slip in between them; WFI still returns on a pending
/// (masked) interrupt, which then runs.
fn sleep_unless_pending() {
    cortex_m::interrupt::free(|_| {
        if !WORK_PENDING.load(Ordering::Acquire) {
            cortex_m::asm::wfi();
        }
    });
}

/// Runs the executor forever; `init` spawns the first tasks. Call once.
pub fn run(init: impl FnOnce(Spawner)) -> ! {
    let executor: &'static raw::Executor =
        cortex_m::singleton!(: raw::Executor = raw::Executor::new(core::ptr::null_mut()))
            .unwrap_or_else(|| crate::fault::fail("cortex-m-glue", "executor::run called twice"));
    init(executor.spawner());
    loop {
        WORK_PENDING.store(false, Ordering::Relaxed);
        // Safety: `poll` is only ever called here, never re-entrantly.
        unsafe { executor.poll() };
        sleep_unless_pending();
    }
}
