//! Addressing inside a program: the marker of an absent child and the unchecked step past a
//! run of ops or bytes.

/// An absent optional child.
pub(crate) const NONE: u16 = u16::MAX;

// Op and text addresses are slice lengths plus a few `u16` counts; a `usize` of at least 32
// bits keeps every such sum exact.
const _: () = assert!(usize::BITS >= 32);

/// Address `i` moved past `k` ops or bytes. Every caller stops once `i` passes the end of its
/// slice, so `i` is at most a slice length (`<= isize::MAX`) plus a few `u16` counts: this never
/// wraps, and the validator's hot loops spend no check on it.
pub(crate) const fn skip(i: usize, k: u16) -> usize {
    // A widening cast: `usize::from` is not `const`.
    i.wrapping_add(k as usize)
}
