//! The device part of the vector table (cortex-m-rt feature `device`): IRQ 0..=5 of the LM3S6965.
//! Only UART0 is used; the other slots go to `DefaultHandler`, which reports and exits.

/// One vector table entry.
#[repr(C)]
pub union Vector {
    handler: unsafe extern "C" fn(),
    handler_safe: extern "C" fn(),
}

unsafe extern "C" {
    /// cortex-m-rt's default handler (overridden in src/fault.rs).
    fn DefaultHandler();
}

/// IRQ 0 to 4 are GPIO ports A to E, IRQ 5 is UART0.
#[unsafe(link_section = ".vector_table.interrupts")]
#[unsafe(no_mangle)]
pub static __INTERRUPTS: [Vector; 6] = [
    Vector {
        handler: DefaultHandler,
    },
    Vector {
        handler: DefaultHandler,
    },
    Vector {
        handler: DefaultHandler,
    },
    Vector {
        handler: DefaultHandler,
    },
    Vector {
        handler: DefaultHandler,
    },
    Vector {
        handler_safe: crate::uart::on_uart0_interrupt,
    },
];
