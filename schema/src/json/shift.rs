//! Moving bytes inside one buffer without a panic path: `<[u8]>::copy_within` checks its
//! ranges and panics, and it is not always inlined, so its check stays in the firmware even
//! where the caller has proven the ranges. [`move_within`] checks once and reports; so does
//! [`copy_bytes`] for `copy_from_slice`, whose length check (and its formatted panic message)
//! stays in the firmware for the same reason.

use core::ops::Range;

/// Moves `buf[src]` to `buf[dest..dest + src.len()]` (the ranges may overlap, as `memmove`).
/// Returns `false`, moving nothing, when either range is not inside `buf`.
pub fn move_within(buf: &mut [u8], src: Range<usize>, dest: usize) -> bool {
    let Range { start, end } = src;
    let Some(len) = end.checked_sub(start) else {
        return false;
    };
    let Some(dest_end) = dest.checked_add(len) else {
        return false;
    };
    if end > buf.len() || dest_end > buf.len() {
        return false;
    }
    if let Some(shift) = start.checked_sub(dest) {
        buf.get_mut(dest..end)
            .is_some_and(|region| shift_left(region, shift))
    } else {
        let shift = dest.saturating_sub(start);
        buf.get_mut(start..dest_end)
            .is_some_and(|region| shift_right(region, shift))
    }
}

/// Copies `from` into `to` when both have the same length (as `copy_from_slice`, without its
/// panic); returns `false`, copying nothing, when they differ.
pub fn copy_bytes(to: &mut [u8], from: &[u8]) -> bool {
    if to.len() != from.len() {
        return false;
    }
    // The one `copy_from_slice` of the core and schema code: inlined here, right after the
    // same check, its own check folds away (and the copy stays a `memcpy`).
    to.copy_from_slice(from);
    true
}

/// Moves `region[shift..]` to the start of `region`, one chunk of `shift` bytes at a time
/// (every chunk's source and destination are disjoint, so [`copy_bytes`] does it).
fn shift_left(mut region: &mut [u8], shift: usize) -> bool {
    if shift == 0 {
        return true;
    }
    while let Some((head, tail)) = core::mem::take(&mut region).split_at_mut_checked(shift) {
        if tail.is_empty() {
            break;
        }
        let n = tail.len().min(shift);
        // Both are exactly `n` bytes long, so the copy cannot fail.
        if let (Some(to), Some(from)) = (head.get_mut(..n), tail.get(..n)) {
            copy_bytes(to, from);
        }
        region = tail;
    }
    true
}

/// Moves `region[..region.len() - shift]` to the end of `region`, one chunk of `shift` bytes
/// at a time from the back.
fn shift_right(mut region: &mut [u8], shift: usize) -> bool {
    if shift == 0 {
        return true;
    }
    loop {
        let Some(split) = region.len().checked_sub(shift) else {
            return true;
        };
        // `tail` is the last `shift` bytes: free once the data before it has moved in.
        let Some((head, tail)) = core::mem::take(&mut region).split_at_mut_checked(split) else {
            return true;
        };
        let n = head.len().min(shift);
        let from = head.get(head.len().saturating_sub(n)..).unwrap_or_default();
        if let Some(to) = tail.get_mut(shift.saturating_sub(n)..) {
            copy_bytes(to, from);
        }
        if head.len() <= shift {
            return true;
        }
        // The last `shift` bytes of `head` have moved: they are the next gap.
        region = head;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every range and destination in buffers of up to 9 bytes, against `copy_within`.
    #[test]
    fn same_as_copy_within() {
        for size in 0..10usize {
            let original: std::vec::Vec<u8> = (1..=size as u8).collect();
            for start in 0..=size + 1 {
                for end in 0..=size + 1 {
                    for dest in 0..=size + 1 {
                        let mut ours = original.clone();
                        let moved = move_within(&mut ours, start..end, dest);
                        let fits = start <= end && end <= size && dest + (end - start) <= size;
                        assert_eq!(moved, fits, "{size} {start}..{end} -> {dest}");
                        let mut expected = original.clone();
                        if fits {
                            expected.copy_within(start..end, dest);
                        }
                        assert_eq!(ours, expected, "{size} {start}..{end} -> {dest}");
                    }
                }
            }
        }
    }
}
