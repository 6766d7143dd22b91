//! UART0's PL011 register offsets and bits, shared by the interrupt-driven [`crate::uart`]
//! and the polled [`crate::polled`] drivers.

pub const BASE: usize = 0x4000_C000;
pub const DR: usize = 0x00;
pub const FR: usize = 0x18;
pub const IBRD: usize = 0x24;
pub const FBRD: usize = 0x28;
pub const LCRH: usize = 0x2C;
pub const CR: usize = 0x30;
pub const IM: usize = 0x38;
pub const ICR: usize = 0x44;

/// FR: receive FIFO empty.
pub const FR_RXFE: u32 = 1 << 4;
/// FR: transmit FIFO full.
pub const FR_TXFF: u32 = 1 << 5;
/// FR: UART busy sending.
pub const FR_BUSY: u32 = 1 << 3;
/// LCRH: 8 data bits, no parity, 1 stop bit, FIFOs off (the interrupt-driven UART: see
/// its module docs).
pub const LCRH_8N1: u32 = 0x60;
/// LCRH: 8 data bits, no parity, 1 stop bit, FIFOs on (the polled UART).
pub const LCRH_8N1_FIFO: u32 = 0x70;
/// CR: UART, TX and RX enabled.
pub const CR_ENABLE_TX_RX: u32 = 0x301;
/// IM/ICR: receive interrupt.
pub const INT_RX: u32 = 1 << 4;
/// All interrupt bits of ICR.
pub const INT_ALL: u32 = 0x7FF;
