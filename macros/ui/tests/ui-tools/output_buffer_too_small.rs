// A firmware's output buffer that is smaller than the server's responses fails the build.
use embedded_mcp::server::{output_len, Config, ServerInfo};
use embedded_mcp::{tools, McpSchema};

#[derive(McpSchema, serde::Serialize)]
struct Reading {
    celsius: i16,
}

struct Board;

#[tools]
impl Board {
    /// Reads the sensor.
    #[tool]
    fn read(&mut self) -> Reading {
        Reading { celsius: 21 }
    }
}

const INFO: ServerInfo = ServerInfo::new("thermo", "1.0.0");
const OUTPUT_BYTES: usize = 256;
const _: () = assert!(
    OUTPUT_BYTES >= output_len::<Board, { Board::TOOL_COUNT }>(&INFO, &Config::DEFAULT),
    "the output buffer is too small"
);

fn main() {}
