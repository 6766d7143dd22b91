//! Futures without the compiler's "`async fn` resumed after completion" panic.
//!
//! The compiler gives every `async fn` or block that can return a check that panics when its
//! future is polled again after it completed, and the optimiser cannot remove the check once
//! the future's state lives in memory between polls. So the serve loop's own async code never
//! returns: each such function writes its result into a slot its caller owns and then stays
//! pending for good ([`park!`]), and [`Until`], a hand-written future whose poll after
//! completion is harmless, turns the pair back into a future with an output ([`finish!`]).
//! `examples/panic-free` links the whole path with no panic reachable.

use core::cell::Cell;
use core::convert::Infallible;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

/// Where a never-returning function puts its result.
pub(crate) type Slot<T> = Cell<Option<T>>;

/// Ends a function that must not return: waits for good (the caller has taken its result from
/// the slot and drops the future).
macro_rules! park {
    () => {
        loop {
            ::core::future::pending::<()>().await
        }
    };
}
pub(crate) use park;

/// Awaits a never-returning future that writes its result into a slot: `finish!(slot =>
/// future_using(&slot))` declares the slot, runs the future until the slot is filled, and
/// gives the result (the future is dropped at once).
macro_rules! finish {
    ($slot:ident => $run:expr) => {{
        let $slot = ::core::cell::Cell::new(::core::option::Option::None);
        let run = ::core::pin::pin!($run);
        $crate::park::Until::new(run, &$slot).await
    }};
}
pub(crate) use finish;

/// Puts `Err(e)` into `slot` and parks, or gives the `Ok` value: `?` for a never-returning
/// function.
macro_rules! or_park {
    ($result:expr, $slot:expr) => {
        match $result {
            ::core::result::Result::Ok(v) => v,
            ::core::result::Result::Err(e) => {
                $slot.set(::core::option::Option::Some(::core::result::Result::Err(
                    ::core::convert::From::from(e),
                )));
                $crate::park::park!()
            }
        }
    };
}
pub(crate) use or_park;

/// Polls a never-returning future until it has put a value into `slot`, and gives the value.
/// Polled again after that, it polls the parked future (pending) and stays pending.
pub(crate) struct Until<'f, F, T> {
    run: Pin<&'f mut F>,
    slot: &'f Cell<Option<T>>,
}

impl<'f, F: Future<Output = Infallible>, T> Until<'f, F, T> {
    pub(crate) fn new(run: Pin<&'f mut F>, slot: &'f Cell<Option<T>>) -> Self {
        Self { run, slot }
    }
}

impl<F: Future<Output = Infallible>, T> Future for Until<'_, F, T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        // `Until` holds only references: it is `Unpin`.
        let this = self.get_mut();
        if let Some(v) = this.slot.take() {
            return Poll::Ready(v);
        }
        if let Poll::Ready(never) = this.run.as_mut().poll(cx) {
            match never {}
        }
        this.slot.take().map_or(Poll::Pending, Poll::Ready)
    }
}
