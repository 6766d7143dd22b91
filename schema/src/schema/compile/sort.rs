//! Sorting without an allocator: an in-place heapsort (O(n log n) comparisons on any input)
//! and the duplicate-key check of `properties`-like objects built on it.

use super::state::{Compiler, Halt};
use super::text::scratch_str;
use crate::schema::program::Scratch;
use core::cmp::Ordering;

/// Sorts `v` by `order` in place: heapsort, O(n log n) comparisons in the worst case, constant
/// stack, no allocation (and much less code than `sort_unstable_by`).
pub(crate) fn heap_sort<T>(v: &mut [T], order: impl Fn(&T, &T) -> Ordering) {
    // Moves the element at `node` down the max-heap `heap` to its place.
    // Past `usize::MAX` there is no child either (only a zero-sized `T` gets that long).
    let sift_down = |heap: &mut [T], mut node: usize| {
        while let Some(left) = node.checked_mul(2).and_then(|n| n.checked_add(1)) {
            let right = left.saturating_add(1);
            let mut child = left;
            if let (Some(l), Some(r)) = (heap.get(left), heap.get(right)) {
                if order(l, r) == Ordering::Less {
                    child = right;
                }
            }
            match (heap.get(node), heap.get(child)) {
                (Some(parent), Some(c)) if order(parent, c) == Ordering::Less => {
                    swap_checked(heap, node, child);
                    node = child;
                }
                _ => break,
            }
        }
    };
    for node in (0..v.len() / 2).rev() {
        sift_down(v, node);
    }
    for end in (1..v.len()).rev() {
        swap_checked(v, 0, end);
        if let Some(heap) = v.get_mut(..end) {
            sift_down(heap, 0);
        }
    }
}

/// Swaps `v[a]` and `v[b]` (`a < b`); does nothing when `b` is out of range. Unlike
/// `<[T]>::swap`, no bounds check that panics is left for the optimiser to prove away.
fn swap_checked<T>(v: &mut [T], a: usize, b: usize) {
    if let Some((head, tail)) = v.split_at_mut_checked(b) {
        if let (Some(x), Some(y)) = (head.get_mut(a), tail.first_mut()) {
            core::mem::swap(x, y);
        }
    }
}

impl<'s> Compiler<'s, '_, '_> {
    /// True when two of `members` have the same name once decoded (`"a"` and `"\u0061"` too).
    ///
    /// O(n log n) without allocation: the names' places in the document go into the scratch of
    /// the free nodes (the caller checked there is one per member; a slot is overwritten when
    /// `child` takes its node, and nothing reads a free slot), are sorted there by decoded name
    /// with a heapsort (constant stack) and compared with their neighbours. The program is not
    /// touched. Comparing every pair instead took 0.48 s for 4 095 names (release build).
    pub(super) fn has_duplicate_keys(
        &mut self,
        members: crate::json::Members<'s>,
    ) -> Result<bool, Halt> {
        let doc = self.doc;
        let free = self.scratch.get_mut(self.n_nodes..).unwrap_or_default();
        let mut n = 0;
        for (key, _) in members {
            let body = key.raw();
            // Keys are slices of the document, whose length fits a `u32` (checked up front).
            let start = (body.as_ptr() as usize).wrapping_sub(doc.as_ptr() as usize);
            let slot = free.get_mut(n).ok_or(Halt::TooManyNodes)?;
            *slot = Scratch {
                start: u32::try_from(start).map_err(|_| Halt::Internal)?,
                len: u32::try_from(body.len()).map_err(|_| Halt::Internal)?,
                mark: u32::from(key.has_escapes()),
            };
            n = n.wrapping_add(1); // `free.get_mut(n)` was `Some`
        }
        let names = free.get_mut(..n).unwrap_or_default();
        let order = |a: &Scratch, b: &Scratch| {
            let (a, b) = (scratch_str(doc, a), scratch_str(doc, b));
            match (a.as_plain(), b.as_plain()) {
                // UTF-8 byte order is code point order: the same order as the decoded chars.
                (Some(a), Some(b)) => a.cmp(b),
                _ => a.chars().cmp(b.chars()),
            }
        };
        heap_sort(names, order);
        Ok(names
            .windows(2)
            .any(|pair| matches!(pair, [a, b] if order(a, b) == Ordering::Equal)))
    }
}
