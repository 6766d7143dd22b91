//! Panics, hard faults and unexpected interrupts: a log line (the report of `cortex-m-glue`),
//! then, under QEMU (`qemu` feature), QEMU exits with status 1 (an endless fault loop would keep
//! a host core at 100 %); on the real board the chip resets.

use core::panic::PanicInfo;

use cortex_m_glue::fault;
use cortex_m_rt::{exception, ExceptionFrame};

/// The name that starts each line this firmware logs about a fault.
const BOARD: &str = "microbit";

/// Logs "microbit: `why`" and stops the firmware.
pub fn fail(why: &str) -> ! {
    fault::fail(BOARD, why)
}

#[panic_handler]
fn panic(info: &PanicInfo) -> ! {
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
