use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
struct Step {
    #[mcp(multiple_of = 0)]
    step: f32,
}

fn main() {}
