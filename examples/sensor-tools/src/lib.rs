//! The sensor tools shared by the sensor firmware (`examples/qemu-sensors` on Cortex-M3,
//! `examples/qemu-riscv` on RISC-V): the tool definitions, their compiled schemas, the simulated
//! sensors, the handler, and the receive ring of their UART drivers. Each firmware supplies only
//! its drivers (through [`Board`]) and its `ServerInfo`.
#![no_std]

pub mod board;
pub mod checks;
pub mod device;
pub mod rx_ring;
pub mod sensors;
pub mod tools;

pub use board::Board;
