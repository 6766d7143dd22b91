use embedded_mcp_macros::McpSchema;

#[derive(McpSchema, serde::Deserialize)]
struct Inner {
    x: u8,
}

#[derive(McpSchema, serde::Deserialize)]
struct Outer {
    #[serde(flatten)]
    inner: Inner,
}

fn main() {}
