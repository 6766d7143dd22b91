use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
struct Target {
    #[mcp(header = "region")]
    region: heapless::String<16>,
}

#[derive(McpSchema)]
struct Args {
    #[mcp(header = "Region")]
    home: heapless::String<16>,
    target: Target,
}

fn main() {}
