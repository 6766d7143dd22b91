//! What every Cortex-M board library of embedded-mcp shares (`boards/qemu-lm3s6965`, the
//! micro:bit's glue in `examples/microbit`): the parts that do not depend on the chip.
//!
//! - [`stack`]: the stack's peak use (cortex-m-rt's reset handler paints the stack: this crate
//!   turns on its `paint-stack` feature);
//! - [`log!`]: one line to semihosting stderr, made of text, numbers and [`log::Hex`] addresses
//!   without `core::fmt`; it writes nothing without the `semihosting` feature;
//! - [`fault`]: the report of a panic, a hard fault or a stray interrupt, and [`fault::stop`]
//!   (QEMU exits with status 1, or the chip resets). Each board defines the handlers
//!   (`#[panic_handler]`, `#[exception]`) with its own name in the report;
//! - [`executor`]: an embassy executor that sleeps with WFI (QEMU treats WFE as a no-op), and
//!   [`executor::block_on`] for a firmware with one task;
//! - [`div`]: `u64` division by a small divisor without the general 64-bit divide.
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

/// The semihosting crate [`log!`] writes through (not an interface).
#[cfg(feature = "semihosting")]
#[doc(hidden)]
pub use cortex_m_semihosting as __semihosting;

#[macro_use]
pub mod log;
pub mod div;
pub mod executor;
pub mod fault;
pub mod stack;
