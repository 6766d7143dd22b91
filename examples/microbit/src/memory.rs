//! Flash and RAM: what the firmware uses (from cortex-m-rt's linker symbols) and what the chip
//! has (flash from the FICR, which QEMU models too; RAM from memory.x).

use nrf51_hal::pac::FICR;

unsafe extern "C" {
    /// Load address of `.data` in flash: the end of code and constants (cortex-m-rt's link.x).
    static __sidata: u32;
    /// Start and end of `.data` in RAM.
    static __sdata: u32;
    static __edata: u32;
    /// End of the statically allocated RAM (`.data`, `.bss`, `.uninit`), where the stack may end.
    static _stack_end: u32;
    /// Top of RAM (the initial stack pointer).
    static _stack_start: u32;
}

/// Where RAM starts (memory.x).
const RAM_START: usize = 0x2000_0000;

/// Bytes of flash the image takes: code, constants and the initial values of `.data`.
pub fn flash_used() -> usize {
    // Only the symbols' addresses are taken; their "values" are never read.
    let data_load = core::ptr::addr_of!(__sidata) as usize;
    let data = core::ptr::addr_of!(__edata) as usize - core::ptr::addr_of!(__sdata) as usize;
    data_load + data
}

/// Bytes of flash the chip has (FICR: page size times pages).
pub fn flash_size() -> usize {
    // Safety: the FICR is read-only factory information; reading it has no side effect.
    let ficr = unsafe { &*FICR::ptr() };
    let page = ficr.codepagesize.read().bits() as usize;
    let pages = ficr.codesize.read().bits() as usize;
    page.saturating_mul(pages)
}

/// Bytes of RAM taken by statics (`.data`, `.bss`, `.uninit`).
pub fn static_ram() -> usize {
    core::ptr::addr_of!(_stack_end) as usize - RAM_START
}

/// Bytes of RAM (memory.x), statics and stack together.
pub fn ram_size() -> usize {
    core::ptr::addr_of!(_stack_start) as usize - RAM_START
}
