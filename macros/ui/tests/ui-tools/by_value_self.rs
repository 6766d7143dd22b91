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
    fn take(self, args: Args) -> Out {
        Out { n: args.n }
    }
}

fn main() {}
