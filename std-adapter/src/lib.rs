//! Host side of embedded-mcp.
//!
//! - [`full`]: full JSON Schema 2020-12 validation with the MCP rules (never fetches a network `$ref`).
//! - [`mcp_schema`]: validation of whole MCP messages against the official schema of a revision.
//! - [`cli`]: the `embedded-mcp` command-line front end.
//! - [`codegen`]: typed TypeScript, Python and Rust functions from a device's tools.
//! - [`device`]: links to a device (serial, unix socket, TCP, QEMU, child process) and a small client.
//! - [`bridge`]: the MCP stdio server that forwards to a device, checking results on the way.

pub mod bridge;
pub mod cli;
pub mod codegen;
pub mod device;
pub mod full;
pub mod log;
pub mod mcp_schema;
pub mod scaffold;
pub mod wire;
