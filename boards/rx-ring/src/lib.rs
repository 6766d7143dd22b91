//! A lock-free single-producer single-consumer byte ring: a UART's receive interrupt pushes, the
//! reader task pops. Used by the board libraries `qemu-lm3s6965` and `qemu-virt` and by
//! `examples/microbit`.
#![no_std]

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicUsize, Ordering};
use core::task::Poll;

/// Byte ring of `N` bytes (`N` a power of two) for one producer and one consumer context.
///
/// `head` and `tail` run freely (wrapping) and are masked on access, so all `N` slots are usable.
pub struct RxRing<const N: usize> {
    buf: UnsafeCell<[u8; N]>,
    /// Count of bytes ever pushed; stored only by the producer.
    head: AtomicUsize,
    /// Count of bytes ever popped; stored only by the consumer.
    tail: AtomicUsize,
}

// Safety: the producer only writes the slot at `head` before publishing it (Release on `head`),
// the consumer only reads slots below `head` (Acquire) and frees them by publishing `tail`
// (Release), which the producer reads with Acquire before reusing a slot. The `unsafe` push and
// pop make callers promise there is one producer and one consumer.
unsafe impl<const N: usize> Sync for RxRing<N> {}

impl<const N: usize> RxRing<N> {
    const MASK: usize = {
        assert!(N.is_power_of_two(), "RxRing size must be a power of two");
        N - 1
    };

    /// An empty ring.
    pub const fn new() -> Self {
        Self {
            buf: UnsafeCell::new([0; N]),
            head: AtomicUsize::new(0),
            tail: AtomicUsize::new(0),
        }
    }

    /// Bytes waiting to be popped (a snapshot: the producer may add more at any time).
    pub fn len(&self) -> usize {
        let head = self.head.load(Ordering::Acquire);
        let tail = self.tail.load(Ordering::Acquire);
        head.wrapping_sub(tail)
    }

    /// Whether no byte is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when no slot is free (the producer must not push).
    pub fn is_full(&self) -> bool {
        let head = self.head.load(Ordering::Relaxed);
        let tail = self.tail.load(Ordering::Acquire);
        head.wrapping_sub(tail) == N
    }

    /// Appends `byte`; returns false (and drops nothing) when the ring is full.
    ///
    /// # Safety
    /// Only one context (here: the UART0 interrupt) may ever call `push`.
    pub unsafe fn push(&self, byte: u8) -> bool {
        let head = self.head.load(Ordering::Relaxed);
        let tail = self.tail.load(Ordering::Acquire);
        if head.wrapping_sub(tail) == N {
            return false;
        }
        // Safety: slot `head` is outside the consumer's readable range until `head` is published.
        unsafe { (*self.buf.get())[head & Self::MASK] = byte };
        self.head.store(head.wrapping_add(1), Ordering::Release);
        true
    }

    /// Moves up to `out.len()` bytes out of the ring; returns how many (0 when empty).
    ///
    /// # Safety
    /// Only one context (here: the single `UartRx`) may ever call `pop_into`.
    pub unsafe fn pop_into(&self, out: &mut [u8]) -> usize {
        let tail = self.tail.load(Ordering::Relaxed);
        let head = self.head.load(Ordering::Acquire);
        let n = head.wrapping_sub(tail).min(out.len());
        for (i, slot) in out.iter_mut().take(n).enumerate() {
            // Safety: slots in tail..head were published by the producer and it will not touch
            // them again until `tail` moves past them.
            *slot = unsafe { (*self.buf.get())[tail.wrapping_add(i) & Self::MASK] };
        }
        self.tail.store(tail.wrapping_add(n), Ordering::Release);
        n
    }

    /// The reader task's poll: moves waiting bytes into `out` (`Ready` with how many); when none
    /// wait, calls `register` (which stores the task's waker where the producer wakes it) and
    /// looks once more, as a byte may have arrived in between, before answering `Pending`.
    ///
    /// # Safety
    /// As for [`pop_into`](Self::pop_into): one consumer context only.
    pub unsafe fn poll_pop_into(&self, out: &mut [u8], register: impl FnOnce()) -> Poll<usize> {
        // Safety: the caller is the only consumer.
        let mut n = unsafe { self.pop_into(out) };
        if n == 0 {
            register();
            // Safety: as above.
            n = unsafe { self.pop_into(out) };
        }
        if n == 0 {
            Poll::Pending
        } else {
            Poll::Ready(n)
        }
    }
}

impl<const N: usize> Default for RxRing<N> {
    fn default() -> Self {
        Self::new()
    }
}
