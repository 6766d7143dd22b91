use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
enum Command {
    Stop,
    Go(u8),
}

fn main() {}
