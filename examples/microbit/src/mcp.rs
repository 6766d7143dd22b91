//! The MCP server on UART0: [`start`] builds the `embedded-mcp` server of the micro:bit's tools
//! (their schemas are the derive's static programs: nothing is compiled at boot); [`mcp_task`]
//! serves it, one JSON-RPC message per line, forever.
//!
//! Its memory is static (`.bss`, placed by `cortex_m::singleton!`): the engine, the line buffer
//! and the output buffer, so the serve loop's deep call chain starts from a small task frame.

use cortex_m_glue::log;
use embedded_io_async::{ErrorType, Write};
use embedded_mcp::server::{CacheScope, Clock, Config, Server, ServerInfo};
use embedded_mcp::transport::LineReader;

use crate::fault::fail;
use crate::tools::{Microbit, TOOL_COUNT};
use crate::uart::{self, UartRx, UartTx};
use crate::{clock, stack};

/// Longest request line accepted, LF included. Longer lines are skipped up to their LF and
/// answered with -32600 when their `id` can be recovered.
pub const INPUT_LINE_BYTES: usize = 512;

/// Output buffer: one response line; at least `Server::required_output_len` (checked at boot).
pub const OUTPUT_BYTES: usize = 1536;

/// Who this server is (sent by `initialize` and `server/discover`).
pub const SERVER_INFO: ServerInfo = ServerInfo::new("microbit", env!("CARGO_PKG_VERSION"))
    .title("BBC micro:bit")
    .description("The 5x5 LED display, buttons A and B, the random number generator and the die temperature of a BBC micro:bit v1 (nRF51822, Cortex-M0)");

/// The engine's settings.
const CONFIG: Config = Config {
    // `tools/list` pages by the output buffer.
    page_bytes: OUTPUT_BYTES,
    ttl_ms: 300_000,
    cache_scope: CacheScope::Public,
    // Requests to this device nest at most 4 levels; 16 leaves room and bounds the parser.
    max_depth: 16,
    clock: Some(Clock(clock::uptime_ms)),
    ..Config::DEFAULT
};

/// The engine with the micro:bit's tools.
type McpServer = Server<'static, Microbit, TOOL_COUNT>;

/// Everything the serve loop needs, all `'static`.
pub struct Served {
    server: &'static mut McpServer,
    reader: &'static mut LineReader<UartRx, INPUT_LINE_BYTES>,
    writer: CountingTx,
    out: &'static mut [u8; OUTPUT_BYTES],
}

/// Builds the server and its buffers and logs "ready". Call once, at boot; stops the firmware
/// if a definition or the output buffer is refused.
pub fn start(tools: Microbit, rx: UartRx, tx: UartTx) -> Served {
    let Ok(server) = Server::from_tools_with_config(SERVER_INFO, tools, CONFIG) else {
        fail("tool definitions refused")
    };
    let required = server.required_output_len();
    if required > OUTPUT_BYTES {
        log!("microbit: ", required, " output bytes required");
        fail("output buffer too small")
    }
    let server =
        cortex_m::singleton!(: McpServer = server).unwrap_or_else(|| fail("mcp::start twice"));
    let reader = cortex_m::singleton!(
        : LineReader<UartRx, INPUT_LINE_BYTES> = LineReader::new(rx)
    )
    .unwrap_or_else(|| fail("mcp::start twice"));
    let out = cortex_m::singleton!(: [u8; OUTPUT_BYTES] = [0; OUTPUT_BYTES])
        .unwrap_or_else(|| fail("mcp::start twice"));
    log!(
        "microbit: ready, MCP on UART0: ",
        TOOL_COUNT,
        " tools, output buffer ",
        OUTPUT_BYTES,
        " bytes (",
        required,
        " required), stack peak ",
        stack::peak_used(),
        " of ",
        stack::size(),
        " bytes"
    );
    Served {
        server,
        reader,
        writer: CountingTx { tx, responses: 0 },
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
    fail("the serve loop ended");
}

/// UART0's transmit half, counting responses (one flush each) to log progress: after 1, 2, 4,
/// 8 ... responses it logs the count, the receive pauses (back-pressure) and the stack peak.
pub struct CountingTx {
    tx: UartTx,
    responses: u32,
}

impl ErrorType for CountingTx {
    type Error = <UartTx as ErrorType>::Error;
}

impl Write for CountingTx {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        self.tx.write(buf).await
    }

    async fn flush(&mut self) -> Result<(), Self::Error> {
        self.tx.flush().await?;
        self.responses = self.responses.wrapping_add(1);
        if self.responses.is_power_of_two() {
            log!(
                "microbit: ",
                self.responses,
                " responses, ",
                uart::rx_pauses(),
                " RX pauses, stack peak ",
                stack::peak_used(),
                " of ",
                stack::size(),
                " bytes"
            );
        }
        Ok(())
    }
}
