//! The MCP server on the UART: [`start`] builds the `embedded-mcp` server of the shared sensor
//! tools at boot; [`Served::serve`] serves it, one JSON-RPC message per line, forever.
//!
//! The tools, their schemas (the derive's static programs: nothing is compiled at boot), the
//! buffer sizes and the engine settings are `sensor_tools::server`'s (shared with qemu-sensors,
//! so both answer byte for byte alike); this module only places the server in static memory
//! (`StaticCell`) with this board's buffers, so the deepest call chain (serve loop → engine →
//! schema validator) starts from a small frame.

use embedded_io_async::{ErrorType, Write};
use embedded_mcp::server::ServerInfo;
use embedded_mcp::transport::LineReader;
use sensor_tools::device::Device;
use sensor_tools::server::{self, SensorServer, INPUT_LINE_BYTES, OUTPUT_BYTES};
use static_cell::StaticCell;

use qemu_virt::uart::{self, UartRx, UartTx};
use qemu_virt::{clock, log, stack};

use crate::board::Virt;

/// Who this server is (sent by `initialize` and `server/discover`).
pub const SERVER_INFO: ServerInfo = ServerInfo::new("qemu-riscv", env!("CARGO_PKG_VERSION"))
    .title("QEMU sensor board")
    .description("Simulated sensors and an RGB LED on QEMU's RISC-V virt machine (RV32IMAC)")
    .instructions(
        "Sensor values are simulated: deterministic sequences that change on every call.",
    );

/// The output buffer every response needs, known while compiling.
const REQUIRED_OUTPUT_BYTES: usize = server::output_len::<Virt>(&SERVER_INFO);
// A buffer that is too small fails the build.
const _: () = assert!(OUTPUT_BYTES >= REQUIRED_OUTPUT_BYTES);

/// The engine with the sensor tools on this board.
type McpServer = SensorServer<Virt>;

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

/// Builds the server and its buffers, logs "ready". Call once, at boot; stops the firmware
/// (QEMU exits with status 1) if a definition is refused.
pub fn start(rx: UartRx, tx: UartTx) -> Served {
    let server = match server::server::<Virt>(SERVER_INFO) {
        Ok(server) => server,
        Err(e) => fail(format_args!("{e}")),
    };
    let server = SERVER.init(server);
    let reader = READER.init(LineReader::new(rx));
    let out = OUT.init([0; OUTPUT_BYTES]);
    log!(
        "qemu-riscv: ready, MCP on the NS16550A UART: {} tools (schemas compiled at build time), output buffer {} bytes ({} required), uptime {} ms, stack peak {} of {} bytes",
        Device::<Virt>::TOOL_COUNT,
        OUTPUT_BYTES,
        REQUIRED_OUTPUT_BYTES,
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
