//! The MCP server on the UART: [`start`] compiles the tool schemas and builds the `embedded-mcp`
//! server at boot; [`Served::serve`] serves it, one JSON-RPC message per line, forever.
//!
//! The tools, their schemas and the handler are `sensor-tools`' (shared with qemu-sensors); this
//! module only places them in static memory (`StaticCell`), with this board's buffers, so the
//! deepest call chain (serve loop → engine → schema validator) starts from a small frame. The
//! sizes and the engine settings are those of qemu-sensors, so both answer byte for byte alike.

use embedded_io_async::{ErrorType, Write};
use embedded_mcp::server::{CacheScope, Clock, Config, Server, ServerInfo};
use embedded_mcp::transport::LineReader;
use sensor_tools::checks::{self, SchemaStorage};
use sensor_tools::tools::{TOOLS, TOOL_COUNT};
use static_cell::StaticCell;

use crate::board::Virt;
use crate::uart::{self, UartRx, UartTx};
use crate::{clock, stack};

/// Longest request line accepted, LF included. Longer lines are skipped up to their LF and
/// answered with -32600 when their `id` can be recovered.
pub const INPUT_LINE_BYTES: usize = 512;

/// Output buffer: one response line. At least `Server::required_output_len` (checked at
/// start-up).
pub const OUTPUT_BYTES: usize = 1200;

/// The engine's settings: `tools/list` pages by the output buffer, so hosts see pagination.
const CONFIG: Config = Config {
    page_bytes: OUTPUT_BYTES,
    ttl_ms: 300_000,
    cache_scope: CacheScope::Public,
    max_depth: 16,
    // At most one progress report per 50 ms on the 115200-baud line; a faster tool's last
    // report still goes out before its response.
    progress_interval_ms: 50,
    clock: Some(Clock(clock::uptime_ms)),
    ..Config::DEFAULT
};

/// Who this server is (sent by `initialize` and `server/discover`).
pub const SERVER_INFO: ServerInfo = ServerInfo::new("qemu-riscv", env!("CARGO_PKG_VERSION"))
    .title("QEMU sensor board")
    .description("Simulated sensors and an RGB LED on QEMU's RISC-V virt machine (RV32IMAC)")
    .instructions(
        "Sensor values are simulated: deterministic sequences that change on every call.",
    );

/// The shared handler on this board.
type Device = sensor_tools::device::Device<Virt>;

/// The engine with the sensor tools and their handler.
type McpServer = Server<'static, Device, TOOL_COUNT>;

static STORAGE: StaticCell<SchemaStorage> = StaticCell::new();
static SERVER: StaticCell<McpServer> = StaticCell::new();
static READER: StaticCell<LineReader<UartRx, INPUT_LINE_BYTES>> = StaticCell::new();
static OUT: StaticCell<[u8; OUTPUT_BYTES]> = StaticCell::new();

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
    let storage = STORAGE.init(SchemaStorage::new());
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
    let server = SERVER.init(server);
    let reader = READER.init(LineReader::new(rx));
    let out = OUT.init([0; OUTPUT_BYTES]);
    log!(
        "qemu-riscv: ready, MCP on the NS16550A UART: {} tools, {} schemas compiled ({} nodes, {} ops, {} text bytes), output buffer {} bytes ({} required), uptime {} ms, stack peak {} of {} bytes",
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

impl Served {
    /// Serves the UART forever (it never ends and never fails: its error type is `Infallible`).
    pub async fn serve(self) {
        let Served {
            server,
            reader,
            mut writer,
            out,
        } = self;
        let _ = server.serve_async(reader, &mut writer, out).await;
        fail(format_args!("the serve loop ended"));
    }
}

/// Logs `why` and ends the firmware (QEMU exits with status 1).
fn fail(why: core::fmt::Arguments<'_>) -> ! {
    panic!("{}", why)
}

/// The UART's transmit half, counting responses (one flush each) to log progress: after 1, 2, 4,
/// 8 ... responses it logs the count, the uptime, the receive pauses and the stack peak.
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
                "qemu-riscv: {} responses, uptime {} ms, {} RX pauses, stack peak {} of {} bytes",
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
