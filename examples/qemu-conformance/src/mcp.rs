//! The MCP server on UART0: [`start`] compiles the tool schemas and builds the engine at boot;
//! [`mcp_task`] serves it, one JSON-RPC message per line, forever. All of its memory is static.

use embedded_mcp::protocol::LogLevel;
use embedded_mcp::server::{output_len_of, CacheScope, Config, SchemaStorage, Server};
use embedded_mcp::transport::LineReader;

use crate::fixtures::Fixtures;
use crate::tools::{SERVER_INFO, TOOLS, TOOL_COUNT};
use qemu_lm3s6965::uart::{self, UartRx, UartTx};
use qemu_lm3s6965::{clock, log, stack};

/// Longest request line accepted, LF included (the suite's largest request, a
/// `json_schema_2020_12_tool` call with its `_meta`, takes about 400 bytes).
pub const INPUT_LINE_BYTES: usize = 1024;

/// Output buffer: one response line (at least what the server needs, asserted below while
/// compiling).
pub const OUTPUT_BYTES: usize = 2048;

/// Schema storage: room for the largest schema (`json_schema_2020_12_tool`'s inputSchema) in
/// each of the 2 x `TOOL_COUNT` slots.
type Storage = SchemaStorage<TOOL_COUNT, 20, 40, 160>;

/// The engine's settings: the reference server's cache hints, and every log message sent on
/// the legacy stream (level `debug` from boot): the HTTP front answers `logging/setLevel`
/// itself, per session, and filters the device's log lines by each session's level.
const CONFIG: Config = Config {
    page_bytes: OUTPUT_BYTES,
    ttl_ms: 300_000,
    cache_scope: CacheScope::Public,
    max_depth: 16,
    log_level: Some(LogLevel::Debug),
    ..Config::DEFAULT
};

/// The output buffer every response needs, known while compiling.
const REQUIRED_OUTPUT_BYTES: usize = output_len_of(&SERVER_INFO, &TOOLS, &CONFIG);
// A buffer that is too small fails the build.
const _: () = assert!(OUTPUT_BYTES >= REQUIRED_OUTPUT_BYTES);

type McpServer = Server<'static, Fixtures, TOOL_COUNT>;

/// The compiled schemas, in `.bss` (a `const` initializer: never copied through the stack).
static STORAGE: static_cell::ConstStaticCell<Storage> =
    static_cell::ConstStaticCell::new(Storage::new());

/// Everything the serve loop needs, all `'static`.
pub struct Served {
    server: &'static mut McpServer,
    reader: &'static mut LineReader<UartRx, INPUT_LINE_BYTES>,
    writer: UartTx,
    out: &'static mut [u8; OUTPUT_BYTES],
}

/// Compiles the schemas, builds the server and its buffers, logs "ready". Call once, at boot;
/// stops the firmware (QEMU exits with status 1) if a definition is refused.
pub fn start(rx: UartRx, tx: UartTx) -> Served {
    let storage = STORAGE.take();
    let server =
        match Server::with_config(SERVER_INFO, &TOOLS, storage, Fixtures { calls: 0 }, CONFIG) {
            Ok(server) => server,
            Err(e) => fail(format_args!("tool definitions refused: {e}")),
        };
    let server = cortex_m::singleton!(: McpServer = server)
        .unwrap_or_else(|| fail(format_args!("mcp::start called twice")));
    let reader = cortex_m::singleton!(
        : LineReader<UartRx, INPUT_LINE_BYTES> = LineReader::new(rx)
    )
    .unwrap_or_else(|| fail(format_args!("mcp::start called twice")));
    let out = cortex_m::singleton!(: [u8; OUTPUT_BYTES] = [0; OUTPUT_BYTES])
        .unwrap_or_else(|| fail(format_args!("mcp::start called twice")));
    log!(
        "qemu-conformance: ready, MCP on UART0: ",
        TOOLS.len(),
        " tools, output buffer ",
        OUTPUT_BYTES,
        " bytes (",
        REQUIRED_OUTPUT_BYTES,
        " required), receive ring ",
        uart::rx_free(),
        " bytes free (",
        uart::rx_pauses(),
        " pauses), uptime ",
        clock::uptime_ms(),
        " ms, stack peak ",
        stack::peak_used(),
        " of ",
        stack::size(),
        " bytes"
    );
    Served {
        server,
        reader,
        writer: tx,
        out,
    }
}

/// The MCP server task on UART0.
#[embassy_executor::task]
pub async fn mcp_task(served: Served) {
    let Served {
        server,
        reader,
        mut writer,
        out,
    } = served;
    // UART0 never ends and never fails (its error type is `Infallible`).
    let _ = server.serve_async(reader, &mut writer, out).await;
    fail(format_args!("the serve loop ended"));
}

/// Logs `why` and ends the firmware (QEMU exits with status 1).
fn fail(why: core::fmt::Arguments<'_>) -> ! {
    panic!("{}", why)
}
