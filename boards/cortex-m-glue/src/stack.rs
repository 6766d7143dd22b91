//! Peak stack use, from stack painting.
//!
//! cortex-m-rt's `paint-stack` feature fills the whole stack (`_stack_end` up to `_stack_start`,
//! i.e. RAM above `.bss`) with [`STACK_PAINT_VALUE`] in the reset handler, before any Rust code
//! runs. The lowest word that no longer holds it marks the deepest the stack has reached.

use cortex_m_rt::STACK_PAINT_VALUE;

unsafe extern "C" {
    /// Top of the stack (initial SP), from cortex-m-rt's link.x.
    static _stack_start: u32;
    /// Lowest address the stack may grow to (end of static RAM), from link.x.
    static _stack_end: u32;
}

fn bounds() -> (usize, usize) {
    // Only the symbols' addresses are taken; their "values" are never read.
    let bottom = core::ptr::addr_of!(_stack_end) as usize;
    let top = core::ptr::addr_of!(_stack_start) as usize;
    (bottom, top)
}

/// Bytes of RAM available to the stack.
pub fn size() -> usize {
    let (bottom, top) = bounds();
    top - bottom
}

/// Deepest stack use since reset, in bytes (a word that happens to equal the paint value right
/// at the edge makes it under-count by that word).
pub fn peak_used() -> usize {
    let (bottom, top) = bounds();
    let mut addr = bottom;
    // Safety: every address in bottom..top is word-aligned RAM reserved for the stack; reading
    // it (volatile, as it is not a Rust object) has no side effect.
    while addr < top && unsafe { core::ptr::read_volatile(addr as *const u32) } == STACK_PAINT_VALUE
    {
        addr += 4;
    }
    top - addr
}
