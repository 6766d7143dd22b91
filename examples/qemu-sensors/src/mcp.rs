//! The MCP server on UART0: [`start`] compiles the tool schemas and builds the `embedded-mcp`
//! server at boot; [`mcp_task`] serves it, one JSON-RPC message per line, forever.
//!
//! All of its memory is static (`.bss`), placed by `cortex_m::singleton!`: the compiled
//! schemas, the engine, the line buffer and the output buffer. The task itself only holds
//! references, so the deepest call chain (serve loop → engine → schema validator) starts from a
//! small task frame.

use embedded_io_async::{ErrorType, Write};
use embedded_mcp::server::{CacheScope, Clock, Config, Server};
use embedded_mcp::transport::LineReader;

use sensor_tools::checks::{self, SchemaStorage};
use sensor_tools::tools::{SERVER_INFO, TOOLS, TOOL_COUNT};

use crate::board::Lm3s6965;
use crate::uart::{self, UartRx, UartTx};
use crate::{clock, stack};

/// The shared handler on this board.
type Device = sensor_tools::device::Device<Lm3s6965>;

/// Longest request line accepted, LF included. Longer lines are skipped up to their LF and
/// answered with -32600 when their `id` can be recovered.
pub const INPUT_LINE_BYTES: usize = 512;

/// Output buffer: one response line. At least `Server::required_output_len` (checked at
/// start-up), which a `tools/list` page holding `device_info` (the largest tool) sets.
pub const OUTPUT_BYTES: usize = 1200;

/// Byte budget of a `tools/list` page (the output buffer bounds it anyway): the four tools take
/// three pages, so hosts see (and tests exercise) pagination.
pub const PAGE_BYTES: usize = OUTPUT_BYTES;

/// The engine's settings.
const CONFIG: Config = Config {
    page_bytes: PAGE_BYTES,
    ttl_ms: 300_000,
    cache_scope: CacheScope::Public,
    // Requests to this device nest at most 4 levels; 16 leaves room and bounds the parser.
    max_depth: 16,
    // At most one progress report per 50 ms on the 115200-baud line; a faster tool's last
    // report still goes out before its response.
    progress_interval_ms: 50,
    clock: Some(Clock(clock::uptime_ms)),
    ..Config::DEFAULT
};

/// The engine with this firmware's tools and handler.
type McpServer = Server<'static, Device, TOOL_COUNT>;

/// Everything the serve loop needs, all `'static`.
pub struct Served {
    server: &'static mut McpServer,
    reader: &'static mut LineReader<UartRx, INPUT_LINE_BYTES>,
    writer: CountingTx,
    out: &'static mut [u8; OUTPUT_BYTES],
}

/// Compiles the schemas, builds the server and its buffers, logs "ready". Call once, at boot;
/// stops the firmware (QEMU exits with status 1) if a definition is refused.
pub fn start(rx: UartRx, tx: UartTx) -> Served {
    let storage = cortex_m::singleton!(: SchemaStorage = SchemaStorage::new())
        .unwrap_or_else(|| fail(format_args!("mcp::start called twice")));
    let programs = match checks::compile_all(storage) {
        Ok(programs) => programs,
        Err(e) => fail(format_args!("cannot compile schemas: {e}")),
    };
    let (count, nodes, ops, text) = checks::totals(&programs);
    let device = Device::new(INPUT_LINE_BYTES, OUTPUT_BYTES);
    let server = match Server::with_programs(SERVER_INFO, &TOOLS, programs, device, CONFIG) {
        Ok(server) => server,
        Err(e) => fail(format_args!("tool definitions refused: {e}")),
    };
    let required = server.required_output_len();
    if required > OUTPUT_BYTES {
        fail(format_args!(
            "output buffer of {OUTPUT_BYTES} bytes is smaller than the {required} bytes required"
        ));
    }
    let server = cortex_m::singleton!(: McpServer = server)
        .unwrap_or_else(|| fail(format_args!("mcp::start called twice")));
    let reader = cortex_m::singleton!(
        : LineReader<UartRx, INPUT_LINE_BYTES> = LineReader::new(rx)
    )
    .unwrap_or_else(|| fail(format_args!("mcp::start called twice")));
    let out = cortex_m::singleton!(: [u8; OUTPUT_BYTES] = [0; OUTPUT_BYTES])
        .unwrap_or_else(|| fail(format_args!("mcp::start called twice")));
    log!(
        "qemu-sensors: ready, MCP on UART0: {} tools, {} schemas compiled ({} nodes, {} ops, {} text bytes), output buffer {} bytes ({} required), uptime {} ms, stack peak {} of {} bytes",
        TOOLS.len(),
        count,
        nodes,
        ops,
        text,
        OUTPUT_BYTES,
        required,
        clock::uptime_ms(),
        stack::peak_used(),
        stack::size()
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
    fail(format_args!("the serve loop ended"));
}

/// Logs `why` and ends the firmware (QEMU exits with status 1).
fn fail(why: core::fmt::Arguments<'_>) -> ! {
    panic!("{}", why)
}

/// UART0's transmit half, counting responses (one flush each) to log progress: after 1, 2, 4,
/// 8 ... responses it logs the count, the uptime, the receive pauses (back-pressure) and the
/// stack high-water mark.
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
                "qemu-sensors: {} responses, uptime {} ms, {} RX pauses, stack peak {} of {} bytes",
                self.responses,
                clock::uptime_ms(),
                uart::rx_pauses(),
                stack::peak_used(),
                stack::size()
            );
        }
        Ok(())
    }
}
