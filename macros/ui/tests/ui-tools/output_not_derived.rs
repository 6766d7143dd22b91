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

/// Not derived: serde only.
#[derive(Serialize)]
struct Plain {
    n: u8,
}

#[tools]
impl Board {
    #[tool]
    fn get(&mut self, args: Args) -> Result<Plain, &'static str> {
        Ok(Plain { n: args.n })
    }
}

fn main() {}
