//! Panics, hard faults and unexpected interrupts: a log line (the report of `cortex-m-glue`),
//! then QEMU exits with status 1. (An endless fault loop would keep a host core at 100 %.)

use cortex_m_glue::fault;
use cortex_m_rt::{exception, ExceptionFrame};

/// The name that starts each line this board logs about a fault.
const BOARD: &str = "qemu-lm3s6965";

/// Logs "qemu-lm3s6965: `why`" and ends the firmware (QEMU exits with status 1).
pub fn fail(why: &str) -> ! {
    fault::fail(BOARD, why)
}

/// Off without the feature `panic-handler`: the firmware brings its own (examples/panic-free's
/// handler fails the link if a panic is reachable).
#[cfg(feature = "panic-handler")]
#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    fault::panicked(BOARD, info)
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    fault::hard_fault(BOARD, frame)
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    fault::stray_interrupt(BOARD, irqn)
}
