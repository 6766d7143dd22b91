//! What the derive and `#[tools]` refuse is a compile error that names the field, the keyword or
//! the misused item, and says what to write (trybuild compares each case's `.stderr`):
//! - `ui/`: constraints the dialect or the type refuses;
//! - `ui-tools/`: a wrong method signature, an unknown option, a bad name, argument or output
//!   types that do not derive `McpSchema`, an output buffer too small for the tools;
//! - `ui-approval/`: a real-board build that names the QEMU demo key, or provisions its key
//!   from a build-time variable that is not set (each message says what to do);
//! - `ui-pattern-off/`: a `pattern` without the core's `pattern` feature (this crate's own
//!   `pattern` feature, off unless asked for; with it the case compiles, and
//!   `embedded-mcp-macros`' tests check a derived pattern at run time).

#[test]
fn misused_derives_and_tools_are_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.compile_fail("tests/ui-tools/*.rs");
    if std::env::var_os("EMBEDDED_MCP_APPROVAL_KEY").is_none() {
        t.compile_fail("tests/ui-approval/*.rs");
    }
    if !cfg!(feature = "pattern") {
        t.compile_fail("tests/ui-pattern-off/*.rs");
    }
}
