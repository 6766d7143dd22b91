//! The one place logs go: semihosting **stderr** of the QEMU process.
//!
//! The UART is the MCP channel and, with `-serial stdio`, QEMU's stdout: nothing else may ever be
//! written there, so this firmware never uses `hprintln!` (semihosting stdout).

/// Logs one line to the host's stderr through semihosting (`heprintln!`).
///
/// Semihosting needs a debugger or QEMU: on real silicon without one, this would trap.
#[macro_export]
macro_rules! log {
    ($($arg:tt)*) => {
        $crate::__semihosting::heprintln!($($arg)*)
    };
}
