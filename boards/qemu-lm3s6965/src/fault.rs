//! Panics, hard faults and unexpected interrupts: log to stderr, then end QEMU with status 1.
//! (An endless fault loop would keep a host core at 100 %.)

use core::panic::PanicInfo;

use cortex_m_rt::{exception, ExceptionFrame};
use cortex_m_semihosting::debug;

use crate::log::Hex;

/// Logs "qemu-lm3s6965: `why`" and ends the firmware (QEMU exits with status 1).
pub fn fail(why: &str) -> ! {
    log!("qemu-lm3s6965: ", why);
    exit_failure()
}

fn exit_failure() -> ! {
    debug::exit(debug::EXIT_FAILURE);
    // Only reached without a semihosting host: sleep with interrupts off.
    loop {
        cortex_m::asm::wfi();
    }
}

/// Logs where the panic happened and its message when that is plain text. A message with
/// arguments is not formatted: that would link `core::fmt` (about 3 KB) for a panic the firmware
/// never expects (the engine has no reachable panic), and the location finds it.
#[panic_handler]
fn panic(info: &PanicInfo) -> ! {
    cortex_m::interrupt::disable();
    let message = info
        .message()
        .as_str()
        .unwrap_or("(message not shown: it has arguments)");
    match info.location() {
        Some(at) => log!(
            "qemu-lm3s6965: panicked at ",
            at.file(),
            ":",
            at.line(),
            ":",
            at.column(),
            ": ",
            message
        ),
        None => log!("qemu-lm3s6965: panicked: ", message),
    }
    exit_failure()
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    log!(
        "qemu-lm3s6965: hard fault at pc ",
        Hex(frame.pc()),
        " (lr ",
        Hex(frame.lr()),
        ")"
    );
    exit_failure()
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    log!("qemu-lm3s6965: unexpected interrupt or exception ", irqn);
    exit_failure()
}
