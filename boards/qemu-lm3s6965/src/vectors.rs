//! The device part of the vector table (cortex-m-rt feature `device`): IRQ 0..=19 of the
//! LM3S6965. Only UART0 (IRQ 5) and timer 0A (IRQ 19, `TIMER0A`: src/timer.rs, or
//! `DefaultHandler` through device.x in a firmware without it) are used; the other slots go to
//! `DefaultHandler`, which reports and exits.

/// One vector table entry.
#[repr(C)]
pub union Vector {
    handler: unsafe extern "C" fn(),
    handler_safe: extern "C" fn(),
}

unsafe extern "C" {
    /// cortex-m-rt's default handler (overridden in src/fault.rs).
    fn DefaultHandler();
    /// Timer 0A's handler (src/timer.rs; device.x makes it `DefaultHandler` when absent).
    fn TIMER0A();
}

/// IRQ 0 to 4 are GPIO ports A to E, IRQ 5 is UART0, IRQ 6 to 18 other peripherals (UART1 to the
/// watchdog), IRQ 19 is timer 0A.
#[unsafe(link_section = ".vector_table.interrupts")]
#[unsafe(no_mangle)]
pub static __INTERRUPTS: [Vector; 20] = [
    UNUSED, // 0: GPIO port A
    UNUSED,
    UNUSED,
    UNUSED,
    UNUSED, // 4: GPIO port E
    Vector {
        handler_safe: crate::uart::on_uart0_interrupt,
    },
    UNUSED, // 6: UART1
    UNUSED,
    UNUSED,
    UNUSED,
    UNUSED,
    UNUSED,
    UNUSED,
    UNUSED,
    UNUSED,
    UNUSED,
    UNUSED,
    UNUSED,
    UNUSED, // 18: watchdog
    Vector { handler: TIMER0A },
];

/// A slot of an interrupt this firmware never enables.
const UNUSED: Vector = Vector {
    handler: DefaultHandler,
};
