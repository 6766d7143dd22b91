//! The sensor tools shared by the sensor firmware (`examples/qemu-sensors` on Cortex-M3,
//! `examples/qemu-riscv` on RISC-V): the tool definitions, their compiled schemas, the simulated
//! sensors, the handler, and the receive ring of their UART drivers. Each firmware supplies only
//! its drivers (through [`Board`]); `tools::SERVER_INFO` is qemu-sensors' identity (it moved here
//! unchanged with the tools; qemu-riscv has its own). The real-board examples
//! (`examples/rp2040-usb`, `examples/esp32c3`) share the smaller [`chip`] tool set.
#![cfg_attr(not(test), no_std)]
// A library only for the firmware crates of this folder, not a published API: these lints of
// public library items did not apply while the modules lived in a binary (qemu-sensors) and
// would change code moved from there unchanged. `SchemaError` is large because the compiler's
// `CompileError` is; it only ever travels once, at boot.
#![allow(
    clippy::new_without_default,
    clippy::len_without_is_empty,
    clippy::result_large_err
)]

pub mod board;
pub mod checks;
pub mod chip;
pub mod device;
pub mod rx_ring;
pub mod sensors;
pub mod tools;

pub use board::Board;
