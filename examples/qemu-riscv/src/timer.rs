//! Waiting in async tools: [`sleep_ms`] completes once the CLINT's `mtime` has passed a deadline.
//!
//! No timer interrupt is armed (`mtimecmp` stays unused, so an idle device never wakes for the
//! clock): a sleeping task re-wakes itself at every poll, so embassy's executor keeps polling
//! instead of sleeping with WFI for as long as a tool waits (a few hundred ms per
//! `sample_temperature` call), and goes back to WFI once no tool waits. The loop is bounded by
//! the deadline; a firmware on silicon would arm `mtimecmp` (or use embassy-time) instead.

use core::future::poll_fn;
use core::task::Poll;

use crate::clock;

/// Completes `ms` milliseconds from now.
pub async fn sleep_ms(ms: u64) {
    let deadline = clock::ticks().saturating_add(ms.saturating_mul(clock::TICKS_PER_SECOND / 1000));
    poll_fn(|cx| {
        if clock::ticks() >= deadline {
            Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await;
}
