//! # embedded-mcp
//!
//! An allocation-free MCP (Model Context Protocol) tool server for microcontrollers.
//!
//! The crate is layered; each layer only uses the ones above it in this list:
//!
//! - [`json`]: the wire format. A strict, bounded JSON scanner with borrowed views
//!   ([`json::Value`]), a serde serializer into caller-provided buffers ([`json::to_slice`]) and a
//!   serde deserializer with caller-provided scratch ([`json::from_slice`]).
//!
//! The crate is `#![no_std]`, needs no allocator and has no `unsafe` code. Every bound on input
//! (nesting depth, line length, tool count) is explicit and documented where it is enforced.
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

#[cfg(test)]
extern crate std;

pub mod json;
