//! Panics, hard faults and unexpected interrupts: one log line, then [`stop`]. A board library
//! defines the handlers (`#[panic_handler]`, cortex-m-rt's `#[exception]`) and calls these with
//! its name, which starts each line ("qemu-lm3s6965: hard fault at pc ...").

use core::panic::PanicInfo;

use cortex_m_rt::ExceptionFrame;

use crate::log::Hex;

/// Logs "`board`: `why`" and stops the firmware.
pub fn fail(board: &str, why: &str) -> ! {
    log!(board, ": ", why);
    stop()
}

/// Ends QEMU with status 1 (`semihosting` feature: an endless fault loop would keep a host
/// core at 100 %), or resets the chip (also when no host answered).
pub fn stop() -> ! {
    #[cfg(feature = "semihosting")]
    cortex_m_semihosting::debug::exit(cortex_m_semihosting::debug::EXIT_FAILURE);
    cortex_m::peripheral::SCB::sys_reset()
}

/// A panic handler's report: interrupts off, where the panic happened and its message when that
/// is plain text, then [`stop`]. A message with arguments is not formatted: that would link
/// `core::fmt` (about 3 KB) for a panic the firmware never expects (the engine has no reachable
/// panic), and the location finds it.
pub fn panicked(board: &str, info: &PanicInfo) -> ! {
    cortex_m::interrupt::disable();
    let message = info
        .message()
        .as_str()
        .unwrap_or("(message not shown: it has arguments)");
    match info.location() {
        Some(at) => log!(
            board,
            ": panicked at ",
            at.file(),
            ":",
            at.line(),
            ":",
            at.column(),
            ": ",
            message
        ),
        None => log!(board, ": panicked: ", message),
    }
    stop()
}

/// A `HardFault` handler's report: the faulting `pc` and `lr`, then [`stop`].
pub fn hard_fault(board: &str, frame: &ExceptionFrame) -> ! {
    log!(
        board,
        ": hard fault at pc ",
        Hex(frame.pc()),
        " (lr ",
        Hex(frame.lr()),
        ")"
    );
    stop()
}

/// A `DefaultHandler`'s report: the interrupt or exception number, then [`stop`].
pub fn stray_interrupt(board: &str, irqn: i16) -> ! {
    log!(board, ": unexpected interrupt or exception ", irqn);
    stop()
}
