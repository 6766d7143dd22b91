use embedded_mcp::schema::McpSchema;
use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
struct Name {
    #[mcp(pattern = "^[a-z]+$")]
    name: heapless::String<8>,
}

fn main() {
    let program = Name::INPUT_PROGRAM;
    assert!(program.validate_bytes(br#"{"name":"abc"}"#).is_ok());
    assert!(program.validate_bytes(br#"{"name":"ABC"}"#).is_err());
}
