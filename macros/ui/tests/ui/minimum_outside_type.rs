use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
struct Level {
    #[mcp(minimum = -1)]
    level: u8,
}

fn main() {}
