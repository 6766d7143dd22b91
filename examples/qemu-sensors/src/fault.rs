//! Panics, hard faults and unexpected interrupts: log to stderr, then end QEMU with status 1.
//! (An endless fault loop would keep a host core at 100 %.)

use core::panic::PanicInfo;

use cortex_m_rt::{exception, ExceptionFrame};
use cortex_m_semihosting::debug;

fn exit_failure() -> ! {
    debug::exit(debug::EXIT_FAILURE);
    // Only reached without a semihosting host: sleep with interrupts off.
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(info: &PanicInfo) -> ! {
    cortex_m::interrupt::disable();
    log!("qemu-sensors: {}", info);
    exit_failure()
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    // Only the addresses, in hex: `{:?}` of the frame would link Debug formatting (about
    // 3 KB) for a message that is never expected.
    log!(
        "qemu-sensors: hard fault at pc {:#010x} (lr {:#010x})",
        frame.pc(),
        frame.lr()
    );
    exit_failure()
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    log!("qemu-sensors: unexpected interrupt or exception {}", irqn);
    exit_failure()
}
