use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
struct Count {
    n: usize,
}

fn main() {}
