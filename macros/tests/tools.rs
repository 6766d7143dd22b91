//! `#[tools]`: typed tools served from the derive's static programs, byte for byte on the wire
//! in both eras (2025-11-25 after `initialize`, and 2026-07-28 per request), through the async
//! serve loop and, for a toolbox of sync tools, through `handle_line`.

use embedded_mcp::protocol::LogLevel;
use embedded_mcp::server::{Annotations, Context, Server, ServerInfo, ToolError, Toolbox};
use embedded_mcp::transport::LineReader;
use embedded_mcp::{tools, McpSchema};
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

/// A count (not an object: wrapped as `{"result":…}` for 2025 peers).
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
    #[tool(scratch = 8, task = "required")]
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
fn the_macro_counts_the_tools_and_the_output_length_is_a_constant() {
    // Both usable where a constant is needed: an array length.
    const OUTPUT_LEN: usize = embedded_mcp::server::output_len::<Board, { Board::TOOL_COUNT }>(
        &ServerInfo::new("thermo", "1.0.0"),
        &embedded_mcp::server::Config::DEFAULT,
    );
    let out = [0u8; OUTPUT_LEN];
    assert_eq!(Board::TOOL_COUNT, 4);
    let server = Server::from_tools(ServerInfo::new("thermo", "1.0.0"), board()).unwrap();
    assert_eq!(out.len(), server.required_output_len());
}

const INIT25_RESULT: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false},"logging":{}},"serverInfo":{"name":"thermo","version":"1.0.0"}}}"#;

#[test]
fn tools_list_in_both_eras() {
    let (lines, _) = serve(
        board(),
        &[
            req26(1, "tools/list", "", ""),
            INIT25.to_owned(),
            req25(2, "tools/list", ""),
        ],
    );
    assert_eq!(lines.len(), 3);
    // 2026-07-28: any root type as outputSchema; titles, docs and hints beside each tool.
    assert_eq!(
        lines[0],
        r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"read_temperature","title":"Read temperature","description":"Reads one temperature sensor.","inputSchema":{"description":"Which sensor to read.","type":"object","properties":{"sensor":{"description":"Sensor index.","type":"integer","minimum":0,"maximum":3}},"required":["sensor"],"additionalProperties":false},"outputSchema":{"description":"A temperature.","type":"object","properties":{"celsius":{"type":"number","minimum":-3.4028235e38,"maximum":3.4028235e38}},"required":["celsius"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}},{"name":"device_info","description":"Model and revision.","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"description":"What the device is.","type":"object","properties":{"model":{"type":"string"},"revision":{"type":"integer","minimum":0,"maximum":10}},"required":["model","revision"]},"annotations":{"readOnlyHint":true}},{"name":"sample_count","description":"Calls that reached a tool.","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"description":"A count (not an object: wrapped as `{\"result\":…}` for 2025 peers).","type":"integer","minimum":0,"maximum":4294967295},"annotations":{"idempotentHint":true,"openWorldHint":false}},{"name":"show","description":"Shows a label; answers its length in bytes.","inputSchema":{"description":"A label to show.","type":"object","properties":{"text":{"type":"string","maxLength":16}},"required":["text"],"additionalProperties":false},"outputSchema":{"description":"A count (not an object: wrapped as `{\"result\":…}` for 2025 peers).","type":"integer","minimum":0,"maximum":4294967295},"execution":{"taskSupport":"required"}}],"ttlMs":300000,"cacheScope":"public","resultType":"complete"}}"#
    );
    assert_eq!(lines[1], INIT25_RESULT);
    // 2025-11-25: the integer outputs are listed wrapped as {"result": …}.
    assert_eq!(
        lines[2],
        r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"read_temperature","title":"Read temperature","description":"Reads one temperature sensor.","inputSchema":{"description":"Which sensor to read.","type":"object","properties":{"sensor":{"description":"Sensor index.","type":"integer","minimum":0,"maximum":3}},"required":["sensor"],"additionalProperties":false},"outputSchema":{"description":"A temperature.","type":"object","properties":{"celsius":{"type":"number","minimum":-3.4028235e38,"maximum":3.4028235e38}},"required":["celsius"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}},{"name":"device_info","description":"Model and revision.","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"description":"What the device is.","type":"object","properties":{"model":{"type":"string"},"revision":{"type":"integer","minimum":0,"maximum":10}},"required":["model","revision"]},"annotations":{"readOnlyHint":true}},{"name":"sample_count","description":"Calls that reached a tool.","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"result":{"description":"A count (not an object: wrapped as `{\"result\":…}` for 2025 peers).","type":"integer","minimum":0,"maximum":4294967295}},"required":["result"]},"annotations":{"idempotentHint":true,"openWorldHint":false}},{"name":"show","description":"Shows a label; answers its length in bytes.","inputSchema":{"description":"A label to show.","type":"object","properties":{"text":{"type":"string","maxLength":16}},"required":["text"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"result":{"description":"A count (not an object: wrapped as `{\"result\":…}` for 2025 peers).","type":"integer","minimum":0,"maximum":4294967295}},"required":["result"]},"execution":{"taskSupport":"required"}}]}}"#
    );
}

#[test]
fn async_tool_reports_progress_and_logs() {
    let (lines, b) = serve(
        board(),
        &[req26(
            2,
            "tools/call",
            r#","progressToken":"p","io.modelcontextprotocol/logLevel":"info""#,
            r#""name":"read_temperature","arguments":{"sensor":1}"#,
        )],
    );
    assert_eq!(
        lines,
        [
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"thermo","data":"sampling"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"total":2,"message":"half"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":2,"total":2}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"celsius":-3.25},"content":[{"type":"text","text":"{\"celsius\":-3.25}"}],"resultType":"complete"}}"#,
        ]
    );
    assert_eq!(b.reached, 1);
}

#[test]
fn calls_in_both_eras() {
    let (lines, b) = serve(
        board(),
        &[
            req26(
                4,
                "tools/call",
                "",
                r#""name":"read_temperature","arguments":{"sensor":2}"#,
            ),
            req26(
                5,
                "tools/call",
                "",
                r#""name":"show","arguments":{"text":"a\u0041b"}"#,
            ),
            req26(7, "tools/call", "", r#""name":"device_info""#),
            INIT25.to_owned(),
            req25(
                8,
                "tools/call",
                r#""name":"read_temperature","arguments":{"sensor":0}"#,
            ),
            req25(10, "tools/call", r#""name":"sample_count""#),
        ],
    );
    assert_eq!(
        lines,
        [
            // Err(e) of a fallible tool: isError with e's Display.
            r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"sensor disconnected"}],"isError":true,"resultType":"complete"}}"#,
            // An escaped borrowed string, decoded into the tool's scratch.
            r#"{"jsonrpc":"2.0","id":5,"result":{"structuredContent":3,"content":[{"type":"text","text":"3"}],"resultType":"complete"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"result":{"structuredContent":{"model":"thermo-4","revision":2},"content":[{"type":"text","text":"{\"model\":\"thermo-4\",\"revision\":2}"}],"resultType":"complete"}}"#,
            INIT25_RESULT,
            r#"{"jsonrpc":"2.0","id":8,"result":{"structuredContent":{"celsius":21.5},"content":[{"type":"text","text":"{\"celsius\":21.5}"}]}}"#,
            r#"{"jsonrpc":"2.0","id":10,"result":{"structuredContent":{"result":4},"content":[{"type":"text","text":"{\"result\":4}"}]}}"#,
        ]
    );
    // The count includes the call that failed inside the tool.
    assert_eq!(b.reached, 4);
}

#[test]
fn refused_arguments_never_reach_the_tool() {
    let (lines, b) = serve(
        board(),
        &[
            req26(
                1,
                "tools/call",
                "",
                r#""name":"read_temperature","arguments":{"sensor":9}"#,
            ),
            req26(
                2,
                "tools/call",
                "",
                r#""name":"read_temperature","arguments":{"sensor":1,"unit":"K"}"#,
            ),
            req26(
                3,
                "tools/call",
                "",
                r#""name":"device_info","arguments":{"x":1}"#,
            ),
            req26(
                6,
                "tools/call",
                "",
                r#""name":"show","arguments":{"text":"\u0041\u0041\u0041\u0041\u0041\u0041\u0041\u0041\u0041"}"#,
            ),
            INIT25.to_owned(),
            req25(
                9,
                "tools/call",
                r#""name":"read_temperature","arguments":{"sensor":"0"}"#,
            ),
            req25(11, "tools/call", r#""name":"read_temperature""#),
        ],
    );
    assert_eq!(
        lines,
        [
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Invalid arguments for tool read_temperature: /sensor: 9 is greater than the maximum 3"}],"isError":true,"resultType":"complete"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Invalid arguments for tool read_temperature: (root): property \"unit\" not allowed (additionalProperties)"}],"isError":true,"resultType":"complete"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"Invalid arguments for tool device_info: (root): property \"x\" not allowed (additionalProperties)"}],"isError":true,"resultType":"complete"}}"#,
            // Valid (9 code points, at most 16) but its escapes need more than `scratch = 8`.
            r#"{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"invalid arguments: scratch buffer too small for unescaped strings at byte 8"}],"isError":true,"resultType":"complete"}}"#,
            INIT25_RESULT,
            r#"{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"Invalid arguments for tool read_temperature: /sensor: \"0\" is not of type integer"}],"isError":true}}"#,
            r#"{"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"Invalid arguments for tool read_temperature: (root): missing required property \"sensor\""}],"isError":true}}"#,
        ]
    );
    assert_eq!(b.reached, 0);
}

#[test]
fn output_failing_its_schema_is_an_error() {
    let mut b = board();
    b.revision = 11;
    let (lines, b) = serve(
        b,
        &[
            req26(1, "tools/call", "", r#""name":"device_info""#),
            INIT25.to_owned(),
            req25(2, "tools/call", r#""name":"device_info""#),
        ],
    );
    assert_eq!(
        lines,
        [
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Tool device_info produced output that violates its outputSchema: /revision: 11 is greater than the maximum 10"}],"isError":true,"resultType":"complete"}}"#,
            INIT25_RESULT,
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Tool device_info produced output that violates its outputSchema: /revision: 11 is greater than the maximum 10"}],"isError":true}}"#,
        ]
    );
    // The function ran; its output was not sent.
    assert_eq!(b.reached, 2);
}

/// A brightness to set.
#[derive(McpSchema, Deserialize)]
struct Level {
    #[mcp(maximum = 100)]
    percent: u8,
}

/// The lamp's state.
#[derive(McpSchema, Serialize)]
struct LampState {
    percent: u8,
}

/// A toolbox of sync tools only: a plain `Handler`, served by `handle_line`.
struct Lamp {
    percent: u8,
}

#[tools]
impl Lamp {
    /// Sets the brightness.
    #[tool(annotations = Annotations::SETTER)]
    fn set(&mut self, args: Level) -> Result<LampState, &'static str> {
        if args.percent == 13 {
            return Err("unlucky level");
        }
        self.percent = args.percent;
        Ok(LampState {
            percent: self.percent,
        })
    }
}

#[test]
fn sync_toolbox_is_a_handler() {
    fn is_handler<H: embedded_mcp::server::Handler>(_: &H) {}
    let mut server = Server::from_tools(ServerInfo::new("lamp", "1"), Lamp { percent: 0 }).unwrap();
    is_handler(server.handler());
    let mut out = [0u8; 1024];
    let mut call = |line: String| {
        let n = server.handle_line(line.as_bytes(), &mut out).unwrap();
        String::from_utf8(out[..n].to_vec()).unwrap()
    };
    assert_eq!(
        call(req26(1, "tools/call", "", r#""name":"set","arguments":{"percent":40}"#)),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"structuredContent\":{\"percent\":40},\"content\":[{\"type\":\"text\",\"text\":\"{\\\"percent\\\":40}\"}],\"resultType\":\"complete\"}}\n"
    );
    assert_eq!(
        call(req26(2, "tools/call", "", r#""name":"set","arguments":{"percent":13}"#)),
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"unlucky level\"}],\"isError\":true,\"resultType\":\"complete\"}}\n"
    );
    assert_eq!(
        call(req26(3, "tools/call", "", r#""name":"set","arguments":{"percent":101}"#)),
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Invalid arguments for tool set: /percent: 101 is greater than the maximum 100\"}],\"isError\":true,\"resultType\":\"complete\"}}\n"
    );
    assert_eq!(server.handler().percent, 40);
}

/// A tool that waits for its call's cancellation.
struct Waiter {
    started: u32,
    resumed: u32,
}

#[tools]
impl Waiter {
    /// Waits until the host cancels the call.
    #[tool]
    async fn wait(&mut self, cx: &mut Context<'_>) -> Count {
        self.started += 1;
        cx.cancelled().await;
        self.resumed += 1;
        Count(self.resumed)
    }
}

#[test]
fn a_cancelled_typed_tool_is_never_answered() {
    let mut server = Server::from_tools(
        ServerInfo::new("waiter", "1.0.0"),
        Waiter {
            started: 0,
            resumed: 0,
        },
    )
    .unwrap();
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}"#;
    let input = [
        req26(1, "tools/call", "", r#""name":"wait""#),
        cancel.to_owned(),
        req26(2, "tools/list", "", ""),
    ]
    .join("\n")
        + "\n";
    let mut reader = LineReader::<_, 1024>::new(input.as_bytes());
    let mut written = vec![0u8; 1 << 14];
    let mut out = vec![0u8; 4096];
    let mut sink: &mut [u8] = &mut written;
    // Bounded: a cancel that did not reach the tool would leave it waiting for ever.
    use std::future::Future as _;
    {
        let mut serving = std::pin::pin!(server.serve_async(&mut reader, &mut sink, &mut out));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        (0..10_000)
            .position(|_| serving.as_mut().poll(&mut cx).is_ready())
            .expect("the serve loop never ended: the cancel did not reach the waiting tool");
    }
    let len = (1 << 14) - sink.len();
    let text = String::from_utf8(written[..len].to_vec()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Only the listing is answered: nothing at all for the cancelled call.
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with(r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"wait""#),
        "{}",
        lines[0]
    );
    let waiter = server.handler();
    assert_eq!(waiter.started, 1, "the tool ran until it waited");
    assert!(waiter.resumed <= 1);
}
