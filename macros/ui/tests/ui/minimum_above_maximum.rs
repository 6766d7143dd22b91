use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
struct Level {
    #[mcp(minimum = 5, maximum = 3)]
    level: u8,
}

fn main() {}
