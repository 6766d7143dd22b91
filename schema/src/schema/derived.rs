//! The trait `#[derive(McpSchema)]` (crate `embedded-mcp-macros`) implements: a type's JSON
//! Schemas and their compiled programs, made at build time.

use super::Program;

/// A type whose schemas were derived from its definition and its serde attributes, and
/// compiled on the host while the crate was built: the programs are static data, so using
/// them links no schema compiler and needs no storage.
pub trait McpSchema {
    /// What serde reads, as compact JSON (a tool's `inputSchema`): `additionalProperties` is
    /// `false` at the top level unless the type has `#[mcp(additional_properties)]`.
    const INPUT_SCHEMA: &'static str;
    /// [`McpSchema::INPUT_SCHEMA`], compiled.
    const INPUT_PROGRAM: Program<'static>;
    /// What serde writes, as compact JSON (a tool's `outputSchema`).
    const OUTPUT_SCHEMA: &'static str;
    /// [`McpSchema::OUTPUT_SCHEMA`], compiled.
    const OUTPUT_PROGRAM: Program<'static>;
}
