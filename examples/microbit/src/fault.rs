//! Panics, hard faults and unexpected interrupts. Under QEMU (`qemu` feature) they are logged to
//! stderr and end QEMU with status 1 (an endless fault loop would keep a host core at 100 %);
//! on the real board the chip resets.

use core::panic::PanicInfo;

use cortex_m_rt::{exception, ExceptionFrame};

use crate::log::Hex;

/// Logs "microbit: `why`" and stops the firmware.
pub fn fail(why: &str) -> ! {
    log!("microbit: ", why);
    stop()
}

/// Ends QEMU with status 1 (`qemu` feature), or resets the chip.
fn stop() -> ! {
    #[cfg(feature = "qemu")]
    cortex_m_semihosting::debug::exit(cortex_m_semihosting::debug::EXIT_FAILURE);
    cortex_m::peripheral::SCB::sys_reset()
}

/// Logs where the panic happened and its message when that is plain text. A message with
/// arguments is not formatted: that would link `core::fmt` for a panic the firmware never
/// expects (the engine has no reachable panic), and the location finds it.
#[panic_handler]
fn panic(info: &PanicInfo) -> ! {
    cortex_m::interrupt::disable();
    let message = info
        .message()
        .as_str()
        .unwrap_or("(message not shown: it has arguments)");
    match info.location() {
        Some(at) => log!(
            "microbit: panicked at ",
            at.file(),
            ":",
            at.line(),
            ": ",
            message
        ),
        None => log!("microbit: panicked: ", message),
    }
    stop()
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    log!(
        "microbit: hard fault at pc ",
        Hex(frame.pc()),
        " (lr ",
        Hex(frame.lr()),
        ")"
    );
    stop()
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    log!("microbit: unexpected interrupt or exception ", irqn);
    stop()
}
