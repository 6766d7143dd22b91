//! `#[tools]`: typed tools served from the derive's static programs, byte for byte on the wire
//! in both eras (2025-11-25 after `initialize`, and 2026-07-28 per request), through the async
//! serve loop and, for a toolbox of sync tools, through `handle_line`.

use embedded_mcp::protocol::LogLevel;
use embedded_mcp::server::{Annotations, Context, Server, ServerInfo, ToolError, Toolbox};
use embedded_mcp::transport::LineReader;
use embedded_mcp_macros::{tools, McpSchema};
use serde::{Deserialize, Serialize};

/// Which sensor to read.
#[derive(McpSchema, Deserialize)]
struct ReadArgs {
    /// Sensor index.
    #[mcp(maximum = 3)]
    sensor: u8,
}

/// A temperature.
#[derive(McpSchema, Serialize)]
struct Reading {
    celsius: f32,
}

/// What the device is.
#[derive(McpSchema, Serialize)]
struct DeviceInfo {
    model: &'static str,
    #[mcp(maximum = 10)]
    revision: u8,
}

/// Samples taken so far (an integer, not an object: wrapped as `{"result":…}` for 2025 peers).
#[derive(McpSchema, Serialize)]
struct Count(u32);

/// A label to show.
#[derive(McpSchema, Deserialize)]
struct LabelArgs<'a> {
    #[mcp(max_length = 16)]
    text: &'a str,
}

/// Board state: what the tools read and what they count.
struct Board {
    temps: [f32; 4],
    /// Calls that reached a tool's body.
    reached: u32,
    /// `device_info` reports this revision (11 breaks its output schema).
    revision: u8,
}

#[tools]
impl Board {
    /// Reads one temperature sensor.
    #[tool(title = "Read temperature", annotations = Annotations::SENSOR)]
    async fn read_temperature(
        &mut self,
        args: ReadArgs,
        cx: &mut Context<'_>,
    ) -> Result<Reading, ToolError> {
        self.reached += 1;
        cx.log(LogLevel::Info, Some("thermo"), "sampling").await;
        cx.progress(1, Some(2), Some("half")).await;
        cx.progress(2, Some(2), None).await;
        let celsius = *self
            .temps
            .get(usize::from(args.sensor))
            .ok_or(ToolError::Message("no such sensor"))?;
        if celsius.is_nan() {
            return Err(ToolError::Message("sensor disconnected"));
        }
        Ok(Reading { celsius })
    }

    /// Model and revision.
    #[tool(read_only)]
    fn device_info(&mut self) -> DeviceInfo {
        self.reached += 1;
        DeviceInfo {
            model: "thermo-4",
            revision: self.revision,
        }
    }

    /// Calls that reached a tool.
    #[tool(name = "sample_count", idempotent, open_world = false)]
    fn count(&self) -> Count {
        Count(self.reached)
    }

    /// Shows a label; answers its length in bytes.
    #[tool(scratch = 8)]
    fn show(&mut self, args: LabelArgs<'_>) -> Count {
        self.reached += 1;
        Count(args.text.len() as u32)
    }
}

fn board() -> Board {
    Board {
        temps: [21.5, -3.25, f32::NAN, 40.0],
        reached: 0,
        revision: 2,
    }
}

const META26: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#;

/// A 2026-07-28 request: `meta` adds members to `_meta`.
fn req26(id: u32, method: &str, meta: &str, params: &str) -> String {
    let sep = if params.is_empty() { "" } else { "," };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{META26}{meta}}}{sep}{params}}}}}"#
    )
}

fn req25(id: u32, method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}}}}}"#)
}

const INIT25: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// Polls a future whose I/O never waits (in-memory streams).
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// Serves `lines` with `serve_async`; the lines written, and the board.
fn serve(board: Board, lines: &[String]) -> (Vec<String>, Board) {
    let mut server = Server::from_tools(ServerInfo::new("thermo", "1.0.0"), board).unwrap();
    let input = lines.join("\n") + "\n";
    let mut reader = LineReader::<_, 1024>::new(input.as_bytes());
    let mut written = vec![0u8; 1 << 16];
    let mut out = vec![0u8; 4096];
    let mut sink: &mut [u8] = &mut written;
    block_on(server.serve_async(&mut reader, &mut sink, &mut out)).unwrap();
    let len = (1 << 16) - sink.len();
    let text = String::from_utf8(written[..len].to_vec()).unwrap();
    let lines = text.lines().map(str::to_owned).collect();
    let board = std::mem::replace(server.handler(), board_empty());
    (lines, board)
}

fn board_empty() -> Board {
    Board {
        temps: [0.0; 4],
        reached: 0,
        revision: 0,
    }
}

#[test]
fn definitions_come_from_the_derive() {
    let tools = <Board as Toolbox<4>>::TOOLS;
    assert_eq!(
        tools[0].input_schema,
        <ReadArgs as embedded_mcp::schema::McpSchema>::INPUT_SCHEMA
    );
    assert_eq!(
        tools[1].input_schema,
        embedded_mcp::server::typed::NO_ARGUMENTS_SCHEMA
    );
    assert_eq!(tools[2].name, "sample_count");
    assert_eq!(tools[0].description, Some("Reads one temperature sensor."));
}

#[test]
fn print_all() {
    let (lines, _) = serve(
        board(),
        &[
            req26(1, "tools/list", "", ""),
            req26(
                2,
                "tools/call",
                r#","progressToken":"p","io.modelcontextprotocol/logLevel":"info""#,
                r#""name":"read_temperature","arguments":{"sensor":1}"#,
            ),
            INIT25.to_owned(),
            req25(3, "tools/list", ""),
            req25(4, "tools/call", r#""name":"sample_count""#),
        ],
    );
    for l in lines {
        println!("{l}");
    }
}
