//! Panics, exceptions and unexpected interrupts: log to stderr, then end QEMU with status 1.
//! (An endless fault loop would keep a host core at 100 %.)

use core::panic::PanicInfo;

use riscv_semihosting::debug;

/// Logs "qemu-virt: `why`" and ends the firmware (QEMU exits with status 1).
pub fn fail(why: &str) -> ! {
    log!("qemu-virt: {}", why);
    exit_failure()
}

fn exit_failure() -> ! {
    debug::exit(debug::EXIT_FAILURE);
    // Only reached without a semihosting host: sleep with interrupts off.
    loop {
        riscv::asm::wfi();
    }
}

#[panic_handler]
fn panic(info: &PanicInfo) -> ! {
    riscv::interrupt::disable();
    log!("qemu-virt: {}", info);
    exit_failure()
}

/// Every exception (riscv-rt calls it for all of them: none is expected).
#[unsafe(export_name = "ExceptionHandler")]
fn exception_handler(frame: &riscv_rt::TrapFrame) -> ! {
    log!(
        "qemu-virt: exception, mcause {:#x} at mepc {:#010x} (ra {:#010x}, mtval {:#x})",
        riscv::register::mcause::read().bits(),
        riscv::register::mepc::read(),
        frame.ra,
        riscv::register::mtval::read()
    );
    exit_failure()
}

/// Every core interrupt without its own handler (only the machine external and machine timer
/// interrupts have one).
#[unsafe(export_name = "DefaultHandler")]
fn default_handler() -> ! {
    log!(
        "qemu-virt: unexpected interrupt, mcause {:#x}",
        riscv::register::mcause::read().bits()
    );
    exit_failure()
}
