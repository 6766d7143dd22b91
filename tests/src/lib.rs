//! Shared helpers of the integration tests: where the read-only `shared/` folder is.

use std::path::PathBuf;

/// The project's root folder (the workspace root).
pub fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The read-only `shared/` folder beside the project (official MCP schemas, JSON Schema suite).
///
/// `EMBEDDED_MCP_SHARED` overrides the default `<root>/../shared`.
pub fn shared_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("EMBEDDED_MCP_SHARED") {
        return PathBuf::from(dir);
    }
    project_root().join("..").join("shared")
}
pub mod qemu;

/// The official MCP schemas: `<shared>/mcp-schema` (one `<version>/schema.json` each).
pub fn mcp_schema_dir() -> PathBuf {
    shared_dir().join("mcp-schema")
}

/// The pinned JSON-Schema-Test-Suite checkout: `<shared>/json-schema-test-suite`.
pub fn json_schema_suite_dir() -> PathBuf {
    shared_dir().join("json-schema-test-suite")
}

/// The hostile and malformed input corpus shared by the host and QEMU runners (issue 8).
pub mod hostile;
