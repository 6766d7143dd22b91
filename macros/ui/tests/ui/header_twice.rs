use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
struct Args {
    #[mcp(header = "Region")]
    region: heapless::String<16>,
    #[mcp(header = "REGION")]
    zone: u8,
}

fn main() {}
