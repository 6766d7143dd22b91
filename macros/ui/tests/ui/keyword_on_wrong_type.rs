use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
struct Flag {
    #[mcp(max_length = 3)]
    on: bool,
}

fn main() {}
