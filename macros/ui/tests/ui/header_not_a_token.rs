use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
struct Args {
    #[mcp(header = "Data Center")]
    region: heapless::String<16>,
}

fn main() {}
