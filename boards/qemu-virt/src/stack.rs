//! Peak stack use, from stack painting.
//!
//! riscv-rt has no stack painting of its own, so [`paint`] (the first thing `main` does) fills
//! the unused part of the stack, from its bottom up to just below the current stack pointer,
//! with [`PAINT`]. The lowest word that no longer holds it marks the deepest the stack has
//! reached. What ran before `main` (riscv-rt's start-up) sits above the painted part.

/// The paint: a value a stack word rarely holds by chance.
const PAINT: u32 = 0xCCCC_CCCC;

unsafe extern "C" {
    /// Top of the stack (initial SP), from riscv-rt's link.x.
    static _stack_start: u32;
    /// Lowest address the stack may grow to (the start of the `STACK` region), from memory.x.
    static _stack_bottom: u32;
}

fn bounds() -> (usize, usize) {
    // Only the symbols' addresses are taken; their "values" are never read.
    let bottom = core::ptr::addr_of!(_stack_bottom) as usize;
    let top = core::ptr::addr_of!(_stack_start) as usize;
    (bottom, top)
}

/// Paints the stack below the caller's frame. Call once, first thing in `main`.
pub fn paint() {
    let sp: usize;
    // Safety: reads the stack pointer into a register, nothing else.
    unsafe { core::arch::asm!("mv {}, sp", out(reg) sp) };
    let (bottom, _) = bounds();
    // 64 bytes of margin below SP for this function's own callees (none, but the compiler may
    // spill).
    let end = sp.saturating_sub(64) & !3;
    let mut addr = bottom;
    while addr < end {
        // Safety: bottom..end is word-aligned stack RAM below the live frames: nothing uses it.
        unsafe { core::ptr::write_volatile(addr as *mut u32, PAINT) };
        addr += 4;
    }
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
    while addr < top && unsafe { core::ptr::read_volatile(addr as *const u32) } == PAINT {
        addr += 4;
    }
    top - addr
}
