//! Constraints the dialect or the type refuses are compile errors naming the field and the
//! keyword.

#[test]
fn refused_constraints_are_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
