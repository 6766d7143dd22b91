//! The MCP task: compiles the tool schemas, builds the `embedded-mcp` server and serves it over
//! UART0, one JSON-RPC message per line, forever.
//!
//! All of its memory is the task's own (embassy keeps the task in a `static`, so it shows in
//! `.bss`): the line buffer, the output buffer, the compiled schemas and the engine.

use embedded_io_async::{ErrorType, Write};
use embedded_mcp::server::{CacheScope, Config, Server};
use embedded_mcp::transport::LineReader;

use crate::checks::{self, SchemaStorage};
use crate::device::Device;
use crate::tools::{SERVER_INFO, TOOLS};
use crate::uart::{UartRx, UartTx};
use crate::{clock, stack};

/// Longest request line accepted, LF included. Longer lines are skipped up to their LF and
/// answered with -32600 when their `id` can be recovered.
pub const INPUT_LINE_BYTES: usize = 512;

/// Output buffer: one response line. At least `Server::required_output_len` (checked at
/// start-up), which a `tools/list` page holding `device_info` (the largest tool) sets.
pub const OUTPUT_BYTES: usize = 1200;

/// Byte budget of a `tools/list` page: small enough that the four tools take two pages, so
/// hosts see (and tests exercise) pagination.
pub const PAGE_BYTES: usize = OUTPUT_BYTES;

/// The engine's settings.
const CONFIG: Config = Config {
    page_bytes: PAGE_BYTES,
    ttl_ms: 300_000,
    cache_scope: CacheScope::Public,
    // Requests to this device nest at most 4 levels; 16 leaves room and bounds the parser.
    max_depth: 16,
};

/// The MCP server task on UART0.
#[embassy_executor::task]
pub async fn mcp_task(rx: UartRx, tx: UartTx) {
    let mut storage = SchemaStorage::new();
    let programs = match checks::compile_all(&mut storage) {
        Ok(programs) => programs,
        Err(e) => fail(format_args!("cannot compile schemas: {e}")),
    };
    let (count, nodes, ops, text) = checks::totals(&programs);
    let device = Device::new(INPUT_LINE_BYTES, OUTPUT_BYTES);
    let mut server = match Server::with_programs(SERVER_INFO, &TOOLS, programs, device, CONFIG) {
        Ok(server) => server,
        Err(e) => fail(format_args!("tool definitions refused: {e}")),
    };
    let required = server.required_output_len();
    if required > OUTPUT_BYTES {
        fail(format_args!(
            "output buffer of {OUTPUT_BYTES} bytes is smaller than the {required} bytes required"
        ));
    }
    log!(
        "qemu-sensors: ready, MCP on UART0: {} tools, {} schemas compiled ({} nodes, {} ops, {} text bytes), output {} of {} bytes needed, uptime {} ms, stack peak {} of {} bytes",
        TOOLS.len(),
        count,
        nodes,
        ops,
        text,
        required,
        OUTPUT_BYTES,
        clock::uptime_ms(),
        stack::peak_used(),
        stack::size()
    );
    let mut reader: LineReader<UartRx, INPUT_LINE_BYTES> = LineReader::new(rx);
    let mut writer = CountingTx { tx, responses: 0 };
    let mut out = [0u8; OUTPUT_BYTES];
    // UART0 never ends and never fails (its error type is `Infallible`).
    let _ = server.serve_async(&mut reader, &mut writer, &mut out).await;
    fail(format_args!("the serve loop ended"));
}

/// Logs `why` and ends the firmware (QEMU exits with status 1).
fn fail(why: core::fmt::Arguments<'_>) -> ! {
    panic!("{}", why)
}

/// UART0's transmit half, counting responses (one flush each) to log progress: after 1, 2, 4,
/// 8 ... responses it logs the count, the uptime and the stack high-water mark.
struct CountingTx {
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
                "qemu-sensors: {} responses, uptime {} ms, stack peak {} of {} bytes",
                self.responses,
                clock::uptime_ms(),
                stack::peak_used(),
                stack::size()
            );
        }
        Ok(())
    }
}
