//! Host side of embedded-mcp.
//!
//! - [`full`]: full JSON Schema 2020-12 validation with the MCP rules (never fetches a network `$ref`).
//! - [`mcp_schema`]: validation of whole MCP messages against the official schema of a revision.
//! - [`cli`]: the `embedded-mcp` command-line front end.

pub mod cli;
pub mod full;
pub mod mcp_schema;
