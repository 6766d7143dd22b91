use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
struct Name {
    #[mcp(pattern = "^[a-z]+$")]
    name: heapless::String<8>,
}

fn main() {}
