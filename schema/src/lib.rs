//! # embedded-mcp-schema
//!
//! The two lowest layers of [`embedded-mcp`](https://docs.rs/embedded-mcp), in a crate of their
//! own so that the derive (`embedded-mcp-macros`) can run the schema compiler on the host while
//! the core re-exports the derive. Use them through the core, as `embedded_mcp::json` and
//! `embedded_mcp::schema`; this crate's paths are the same below the root.
//!
//! - [`json`]: the wire format. A strict, bounded JSON scanner with borrowed views
//!   ([`json::Value`]), a serde serializer into caller-provided buffers ([`json::to_slice`]) and a
//!   serde deserializer with caller-provided scratch ([`json::from_slice`]).
//! - [`schema`]: a compiled, allocation-free validator for a subset of JSON Schema 2020-12
//!   ([`schema::compile`] into caller storage, [`schema::Program::validate`], postcard programs
//!   loadable from flash); the dialect is documented in the core's `DIALECT.md`.
//!
//! The crate is `#![no_std]`, needs no allocator and has no `unsafe` code. `schema` uses `json`;
//! `json` uses nothing above it.
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
pub mod schema;
