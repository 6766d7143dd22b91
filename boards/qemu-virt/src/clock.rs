//! Uptime from the CLINT's 64-bit `mtime` counter (10 MHz on QEMU's `virt`). Reading it needs
//! no interrupt, so an idle device never wakes for the clock; src/timer.rs arms `mtimecmp` only
//! while a tool sleeps.

/// `mtime` of the CLINT at `0x0200_0000` (+`0xBFF8`), low and high words.
const MTIME_LO: usize = 0x0200_BFF8;
const MTIME_HI: usize = MTIME_LO + 4;

/// `mtime` ticks per second on QEMU's `virt` machine (its device tree's `timebase-frequency`).
pub const TICKS_PER_SECOND: u64 = 10_000_000;

fn read(addr: usize) -> u32 {
    // Safety: MTIME_LO and MTIME_HI are the CLINT's readable 32-bit `mtime` halves.
    unsafe { core::ptr::read_volatile(addr as *const u32) }
}

/// `mtime` ticks since reset (a carry between the two halves is caught by reading the high word
/// twice).
pub fn ticks() -> u64 {
    loop {
        let hi = read(MTIME_HI);
        let lo = read(MTIME_LO);
        if read(MTIME_HI) == hi {
            return (u64::from(hi) << 32) | u64::from(lo);
        }
    }
}

/// Milliseconds since reset.
pub fn uptime_ms() -> u64 {
    ticks() / (TICKS_PER_SECOND / 1000)
}
