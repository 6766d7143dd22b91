//! The smallest runtime that makes this a real firmware: the reset entry (Cortex-M vector
//! table, or RISC-V `_start` setting the stack pointer), RAM set-up (`.bss` zeroed, `.data`
//! copied from flash), and a panic handler that halts. No crate: every target gets the same
//! few hundred bytes, so the table compares the engine, not runtimes.

use core::ptr::{addr_of, addr_of_mut};

extern "C" {
    static mut __sbss: u32;
    static mut __ebss: u32;
    static mut __sdata: u32;
    static mut __edata: u32;
    static __sidata: u32;
}

/// Zeroes `.bss` and copies `.data`, then runs the firmware.
///
/// # Safety
/// Called once, first, by the reset entry, before anything reads a static.
unsafe fn start() -> ! {
    let mut p = addr_of_mut!(__sbss);
    while p < addr_of_mut!(__ebss) {
        p.write_volatile(0);
        p = p.add(1);
    }
    let mut p = addr_of_mut!(__sdata);
    let mut from = addr_of!(__sidata);
    while p < addr_of_mut!(__edata) {
        p.write_volatile(from.read());
        p = p.add(1);
        from = from.add(1);
    }
    crate::main()
}

#[cfg(target_arch = "arm")]
mod entry {
    /// The reset vector (the word after the initial stack pointer, which link/arm.x places).
    #[link_section = ".vector_table.reset"]
    #[no_mangle]
    static RESET: unsafe extern "C" fn() -> ! = reset;

    /// NMI, HardFault and the other system exceptions: halt.
    #[link_section = ".vector_table.exceptions"]
    #[no_mangle]
    static EXCEPTIONS: [unsafe extern "C" fn() -> !; 14] = [halt; 14];

    #[no_mangle]
    unsafe extern "C" fn reset() -> ! {
        super::start()
    }

    unsafe extern "C" fn halt() -> ! {
        loop {}
    }
}

#[cfg(target_arch = "riscv32")]
mod entry {
    core::arch::global_asm!(
        ".section .text.start, \"ax\"",
        ".global _start",
        "_start:",
        "la sp, _stack_top",
        "j {start}",
        start = sym start_rust,
    );

    unsafe extern "C" fn start_rust() -> ! {
        super::start()
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}
