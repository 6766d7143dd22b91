//! No code: this crate holds the compile-fail tests of `embedded-mcp-macros` (`tests/`), apart
//! from the derive's own tests, whose dev-dependencies include the host crate.
