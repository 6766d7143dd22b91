//! Constraints the dialect or the type refuses are compile errors naming the field and the
//! keyword.

#[test]
fn refused_constraints_are_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    // The core's `pattern` feature turns on the derive's (`embedded-mcp/pattern` enables
    // `embedded-mcp-macros/pattern`): with it a pattern compiles and runs, without it the
    // derive refuses it. This crate's dev-dependencies (`embedded-mcp-std`) turn it on; the
    // core's own compiler tells which case this build is.
    if core_has_pattern() {
        t.pass("tests/ui-pattern-on/*.rs");
    } else {
        t.compile_fail("tests/ui-pattern-off/*.rs");
    }
}

fn core_has_pattern() -> bool {
    let mut storage = embedded_mcp::schema::Storage::<4, 16, 64>::new();
    embedded_mcp::schema::compile(br#"{"pattern":"a"}"#, &mut storage).is_ok()
}
