//! The sensor tools shared by the sensor firmware (`examples/qemu-sensors` on Cortex-M3,
//! `examples/qemu-riscv` on RISC-V): the tools (typed methods under `#[embedded_mcp::tools]`,
//! their schemas derived from Rust types and compiled while this crate builds), the simulated
//! sensors and the server built from them. Each
//! firmware supplies only its drivers (through [`Board`]). The real-board examples
//! (`examples/rp2040-usb`, `examples/esp32c3`) share the smaller [`chip`] tool set.
#![cfg_attr(not(test), no_std)]
// A library only for the firmware crates of this folder, not a published API: these lints of
// public library items did not apply while the modules lived in a binary (qemu-sensors) and
// would change code moved from there unchanged.
#![allow(clippy::new_without_default, clippy::len_without_is_empty)]

pub mod board;
pub mod chip;
pub mod device;
#[cfg(test)]
mod hundredths;
mod sensors;
pub mod server;
#[cfg(test)]
mod test_support;

pub use board::Board;
