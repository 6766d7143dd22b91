//! Panics, hard faults and unexpected interrupts: a line on QEMU's stderr (semihosting), then
//! QEMU exits with status 1. (An endless fault loop would keep a host core at 100 %.)

use core::panic::PanicInfo;

use cortex_m_rt::{exception, ExceptionFrame};
use cortex_m_semihosting::{debug, heprintln};

/// Logs "qemu-mps2-an386: `why`" and ends the firmware (QEMU exits with status 1).
pub fn fail(why: core::fmt::Arguments<'_>) -> ! {
    heprintln!("qemu-mps2-an386: {}", why);
    exit_failure()
}

fn exit_failure() -> ! {
    debug::exit(debug::EXIT_FAILURE);
    // Only reached without a semihosting host: sleep.
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(info: &PanicInfo) -> ! {
    cortex_m::interrupt::disable();
    heprintln!("qemu-mps2-an386: {}", info);
    exit_failure()
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    heprintln!("qemu-mps2-an386: hard fault at pc {:#010x}", frame.pc());
    exit_failure()
}

/// Every interrupt: UART0's receive interrupt is acknowledged (it only ends WFI); any other
/// is unexpected.
#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    if irqn == crate::uart::RX_IRQ {
        crate::uart::on_rx_interrupt();
    } else {
        heprintln!(
            "qemu-mps2-an386: unexpected interrupt or exception {}",
            irqn
        );
        exit_failure()
    }
}
