//! A derived `pattern` is compiled into the program and checked at run time. The core's
//! `pattern` feature is on here (the dev-dependency `embedded-mcp-std` turns it on); without it
//! the derive refuses the field (`macros/ui/tests/ui-pattern-off`).

use embedded_mcp::schema::McpSchema;
use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
struct Name {
    #[mcp(pattern = "^[a-z]+$")]
    #[allow(dead_code)]
    name: heapless::String<8>,
}

#[test]
fn a_derived_pattern_is_checked() {
    let program = Name::INPUT_PROGRAM;
    assert!(program.validate_bytes(br#"{"name":"abc"}"#).is_ok());
    assert!(program.validate_bytes(br#"{"name":"ABC"}"#).is_err());
    assert!(program.validate_bytes(br#"{"name":"abc1"}"#).is_err());
}
