//! Misused `#[tools]`: a wrong method signature, an unknown option, a bad name, and argument or
//! output types that do not derive `McpSchema` are compile errors that say what to write.

#[test]
fn misused_tools_are_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui-tools/*.rs");
}
