//! The MCP server on the USB-Serial-JTAG port: the shared chip tools (their schemas are the
//! derive's static programs: nothing is compiled at boot), one JSON-RPC message per line, forever (esp-hal's async driver is the `embedded_io_async` stream; its `flush` sends
//! the zero-length packet a response filling its last 64-byte packet needs).

use embedded_mcp::server::{output_len, CacheScope, Config, Server, ServerInfo};
use embedded_mcp::transport::LineReader;
use esp_hal::usb::usb_serial_jtag::UsbSerialJtag;
use esp_hal::Async;
use sensor_tools::chip::ChipTools;

use crate::chip::Esp32c3;

/// Longest request line accepted, LF included (longer ones are answered with -32600).
pub const INPUT_LINE_BYTES: usize = 512;
/// One response line; at least what the server needs (asserted below, while compiling).
pub const OUTPUT_BYTES: usize = 1024;

const CONFIG: Config = Config {
    page_bytes: OUTPUT_BYTES,
    ttl_ms: 300_000,
    cache_scope: CacheScope::Public,
    max_depth: 16,
    ..Config::DEFAULT
};

/// Who this server is (sent by `initialize` and `server/discover`).
const SERVER_INFO: ServerInfo = ServerInfo::new("esp32c3", env!("CARGO_PKG_VERSION"))
    .title("ESP32-C3")
    .description("ESP32-C3 die temperature and an LED, over the built-in USB-Serial-JTAG");

// The output buffer holds every response the server writes: a buffer that is too small fails
// the build.
const _: () = assert!(
    OUTPUT_BYTES
        >= output_len::<ChipTools<Esp32c3>, { ChipTools::<Esp32c3>::TOOL_COUNT }>(
            &SERVER_INFO,
            &CONFIG
        )
);

/// The MCP task: serves the chip tools on `usb` for good. A refused definition (a bug) panics,
/// and the panic handler resets the chip.
#[embassy_executor::task]
pub async fn serve(chip: Esp32c3, usb: UsbSerialJtag<'static, Async>) {
    let tools = ChipTools::new(chip);
    let mut server = match Server::from_tools_with_config(SERVER_INFO, tools, CONFIG) {
        Ok(server) => server,
        Err(_) => panic!("tool definitions refused"),
    };
    let (rx, mut tx) = usb.split();
    let mut reader: LineReader<_, INPUT_LINE_BYTES> = LineReader::new(rx);
    let mut out = [0u8; OUTPUT_BYTES];
    loop {
        // The driver reports no errors and no end of stream; a host that goes away simply
        // sends nothing more.
        let _ = server.serve_async(&mut reader, &mut tx, &mut out).await;
    }
}
