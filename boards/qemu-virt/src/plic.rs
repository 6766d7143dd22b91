//! The PLIC of QEMU's `virt` machine (at `0x0C00_0000`), as far as one interrupt source routed
//! to hart 0's machine mode needs it.

const BASE: usize = 0x0C00_0000;
/// Priority of source `n`: `BASE + 4 * n`.
const PRIORITY: usize = BASE;
/// Enable bits of context 0 (hart 0, machine mode).
const ENABLE_CONTEXT0: usize = BASE + 0x2000;
/// Priority threshold of context 0.
const THRESHOLD_CONTEXT0: usize = BASE + 0x20_0000;
/// Claim (read) and complete (write) of context 0.
const CLAIM_CONTEXT0: usize = BASE + 0x20_0004;

fn write(addr: usize, value: u32) {
    // Safety: every address used here is a 32-bit PLIC register of this machine.
    unsafe { core::ptr::write_volatile(addr as *mut u32, value) }
}

fn read(addr: usize) -> u32 {
    // Safety: as above; only the claim register has a side effect (it claims the interrupt).
    unsafe { core::ptr::read_volatile(addr as *const u32) }
}

/// Routes source `source` (1..32) to hart 0's machine mode at priority 1.
pub fn enable(source: u32) {
    write(PRIORITY + 4 * source as usize, 1);
    write(THRESHOLD_CONTEXT0, 0);
    write(ENABLE_CONTEXT0, read(ENABLE_CONTEXT0) | (1 << source));
}

/// Claims the highest pending source (0: none).
pub fn claim() -> u32 {
    read(CLAIM_CONTEXT0)
}

/// Tells the PLIC the handler of `source` is done (a level source still asserted fires again).
pub fn complete(source: u32) {
    write(CLAIM_CONTEXT0, source);
}
