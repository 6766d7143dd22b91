//! The MCP server on UART0: [`start`] builds the `embedded-mcp` server of the shared sensor
//! tools (`sensor_tools::server`: buffer sizes, settings, and the schemas as the derive's static
//! programs, so nothing is compiled at boot) at boot; [`mcp_task`] serves it, one JSON-RPC
//! message per line, forever.
//!
//! All of its memory is static (`.bss`), placed by `cortex_m::singleton!`: the engine, the line
//! buffer and the output buffer. The task itself only holds references, so the deepest call
//! chain (serve loop → engine → schema validator) starts from a small task frame.

use embedded_io_async::{ErrorType, Write};
use embedded_mcp::server::ServerInfo;
use embedded_mcp::transport::LineReader;
use sensor_tools::device::Device;
use sensor_tools::server::{self, SensorServer, INPUT_LINE_BYTES, OUTPUT_BYTES};

use qemu_lm3s6965::fault::fail;
use qemu_lm3s6965::uart::{self, UartRx, UartTx};
use qemu_lm3s6965::{clock, log, stack};

use crate::board::Lm3s6965;

/// Who this server is (sent by `initialize` and `server/discover`).
pub const SERVER_INFO: ServerInfo = ServerInfo::new("qemu-sensors", env!("CARGO_PKG_VERSION"))
    .title("QEMU sensor board")
    .description("Simulated sensors and an RGB LED on an LM3S6965 (Cortex-M3) under QEMU")
    .instructions(
        "Sensor values are simulated: deterministic sequences that change on every call.",
    );

// The output buffer holds every response the server writes: checked while compiling, so a
// buffer that is too small fails the build.
const REQUIRED_OUTPUT_BYTES: usize = server::output_len::<Lm3s6965>(&SERVER_INFO);
const _: () = assert!(OUTPUT_BYTES >= REQUIRED_OUTPUT_BYTES);

/// The engine with the sensor tools on this board.
type McpServer = SensorServer<Lm3s6965>;

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
    let server = server::server::<Lm3s6965>(SERVER_INFO)
        .unwrap_or_else(|_| fail("tool definitions refused (the sensor-tools tests say why)"));
    let server = cortex_m::singleton!(: McpServer = server)
        .unwrap_or_else(|| fail("mcp::start called twice"));
    let reader = cortex_m::singleton!(
        : LineReader<UartRx, INPUT_LINE_BYTES> = LineReader::new(rx)
    )
    .unwrap_or_else(|| fail("mcp::start called twice"));
    let out = cortex_m::singleton!(: [u8; OUTPUT_BYTES] = [0; OUTPUT_BYTES])
        .unwrap_or_else(|| fail("mcp::start called twice"));
    log!(
        "qemu-sensors: ready, MCP on UART0: ",
        Device::<Lm3s6965>::TOOL_COUNT,
        " tools (schemas compiled at build time), output buffer ",
        OUTPUT_BYTES,
        " bytes (",
        REQUIRED_OUTPUT_BYTES,
        " required), uptime ",
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
                "qemu-sensors: ",
                self.responses,
                " responses, uptime ",
                clock::uptime_ms(),
                " ms, ",
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
