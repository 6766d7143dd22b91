use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
struct Args {
    #[mcp(header = "Ratio")]
    ratio: f32,
}

fn main() {}
