//! Waiting in async tools: [`sleep_ms`] completes once the uptime clock has passed a deadline.
//!
//! The board has no timer driver here (SysTick only counts its 1.34 s wrap-arounds, so an idle
//! device wakes rarely), so a sleeping task re-wakes itself at every poll: the executor keeps
//! polling instead of sleeping with WFI for as long as a tool waits (a few hundred ms per
//! `sample_temperature` call), and goes back to WFI once no tool waits. A firmware on silicon
//! would use a hardware timer (embassy-time) instead.

use core::future::poll_fn;
use core::task::Poll;

use crate::clock;

/// Completes `ms` milliseconds from now.
pub async fn sleep_ms(ms: u64) {
    let deadline = clock::uptime_ms().saturating_add(ms);
    poll_fn(|cx| {
        if clock::uptime_ms() >= deadline {
            Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await;
}
