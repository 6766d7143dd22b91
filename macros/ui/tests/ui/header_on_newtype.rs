use embedded_mcp_macros::McpSchema;

#[derive(McpSchema)]
struct Region(#[mcp(header = "Region")] heapless::String<16>);

fn main() {}
