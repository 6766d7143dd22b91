use embedded_mcp_macros::{tools, McpSchema};
use serde::{Deserialize, Serialize};

#[derive(McpSchema, Deserialize)]
struct Args {
    n: u8,
}

#[derive(McpSchema, Serialize)]
struct Out {
    n: u8,
}

struct Board;

#[tools]
impl Board {
    #[tool]
    fn add(&mut self, a: Args, b: Args) -> Out {
        Out { n: a.n + b.n }
    }
}

fn main() {}
