//! Shared helpers of the integration tests: where the vendored test vectors are.

use std::path::PathBuf;

/// The project's root folder (the workspace root).
pub fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The vendored official vectors: `tests/vectors` (MCP schemas and examples, JSON Schema suite).
///
/// See `tests/vectors/README.md` for their upstream commits and licences.
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("vectors")
}
pub mod child_log;
pub mod codegen_misuse;
pub mod nginx;
pub mod qemu;

/// The official MCP schemas: `tests/vectors/mcp-schema` (one `<version>/schema.json` each).
pub fn mcp_schema_dir() -> PathBuf {
    vectors_dir().join("mcp-schema")
}

/// The pinned JSON-Schema-Test-Suite: `tests/vectors/json-schema-test-suite`.
pub fn json_schema_suite_dir() -> PathBuf {
    vectors_dir().join("json-schema-test-suite")
}

/// The hostile and malformed input corpus shared by the host and QEMU runners (issue 8).
pub mod hostile;

/// The Rust examples of the workspace's README.md, compiled as doc tests of this crate, so the
/// README's firmware section cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;
