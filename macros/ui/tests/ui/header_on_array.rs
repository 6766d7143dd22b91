use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
struct Args {
    #[mcp(header = "Zones")]
    zones: heapless::Vec<u8, 4>,
}

fn main() {}
