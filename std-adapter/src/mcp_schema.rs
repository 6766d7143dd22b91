//! Validation of MCP messages against the official schema of a revision.
