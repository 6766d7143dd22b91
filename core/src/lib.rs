//! # embedded-mcp
//!
//! An allocation-free MCP (Model Context Protocol) tool server for microcontrollers.
//!
//! The crate is layered; each layer only uses the ones above it in this list:
//!
//! - [`json`]: the wire format. A strict, bounded JSON scanner with borrowed views
//!   ([`json::Value`]), a serde serializer into caller-provided buffers ([`json::to_slice`]) and a
//!   serde deserializer with caller-provided scratch ([`json::from_slice`]).
//! - [`result`]: the MCP `CallToolResult`. Encoders write `structuredContent` and the same JSON
//!   as a `text` block into a caller's buffer or any sink, with the era differences of the
//!   revisions ([`result::Era`]); [`result::ResultView`] is a checked borrowed view for decoding.
//! - [`protocol`]: JSON-RPC 2.0 message views, response writers and MCP version negotiation
//!   ([`protocol::Message`], [`protocol::Version`]).
//! - [`transport`]: line framing over `embedded-io` streams ([`transport::LineReader`],
//!   [`transport::LineBuffer`]): CR, blank lines, BOM, invalid UTF-8 and overlong lines handled.
//! - [`schema`]: a compiled, allocation-free validator for a subset of JSON Schema 2020-12
//!   ([`schema::compile`] into caller storage, [`schema::Program::validate`], postcard programs
//!   loadable from flash); the dialect is documented in `DIALECT.md`.
//! - [`server`]: the engine: static [`server::Tool`] definitions checked at construction,
//!   plain-Rust [`server::Handler`]s, dual-era request handling and the `serve` loops.
//!
//! The crate is `#![no_std]`, needs no allocator and has no `unsafe` code. Every bound on input
//! (nesting depth, line length, tool count) is explicit and documented where it is enforced.
//!
//! # No panics
//!
//! No input can make the crate panic: errors are values, and clippy denies `unwrap`, `expect`,
//! `panic!`, slice indexing and unchecked arithmetic outside tests (the arithmetic lint is
//! temporarily allowed in [`server`]; `SECURITY.md` says why).
//! The proof is a link: `(cd examples/panic-free && cargo build --release)` builds a Cortex-M3
//! firmware whose panic handler calls a function defined nowhere, and which runs every layer
//! (schema compiler, program loader, validator, engine, line reader) on bytes from its UART. It
//! links only if the optimiser removed every path to a panic; `examples/panic-free/locate.sh`
//! lists any path that remains (see `SECURITY.md`, "No panics", for the current status).
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects
    )
)]

#[cfg(test)]
extern crate std;

pub mod json;
pub mod protocol;
pub mod result;
pub mod schema;
pub mod server;
pub mod transport;
