use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
struct Target {
    #[mcp(header = "Region")]
    region: heapless::String<16>,
}

#[derive(McpSchema)]
struct Args {
    targets: heapless::Vec<Target, 2>,
}

fn main() {}
