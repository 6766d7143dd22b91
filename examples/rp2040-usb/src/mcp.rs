//! The MCP server on the USB serial port: the shared chip tools on the Pico (their schemas are
//! the derive's static programs: nothing is compiled at boot), served one JSON-RPC message per
//! line for as long as a host is attached, and again after every re-attach.

use defmt::{info, warn};
use embedded_mcp::server::{output_len, CacheScope, Config, Server, ServerInfo};
use embedded_mcp::transport::LineReader;
use sensor_tools::chip::ChipTools;

use crate::chip::Pico;
use crate::usb_io::{UsbReader, UsbWriter};

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
const SERVER_INFO: ServerInfo = ServerInfo::new("rp2040-usb", env!("CARGO_PKG_VERSION"))
    .title("Raspberry Pi Pico")
    .description("RP2040 die temperature and the on-board LED, over USB CDC-ACM");

// The output buffer holds every response the server writes: a buffer that is too small fails
// the build.
const _: () = assert!(
    OUTPUT_BYTES
        >= output_len::<ChipTools<Pico>, { ChipTools::<Pico>::TOOL_COUNT }>(&SERVER_INFO, &CONFIG)
);

/// Serves MCP on the CDC-ACM port forever. A refused tool definition (a bug) panics, which
/// panic-probe reports over defmt-rtt.
pub async fn serve(pico: Pico, reader: UsbReader<'_>, mut writer: UsbWriter<'_>) -> ! {
    let tools = ChipTools::new(pico);
    let mut server = match Server::from_tools_with_config(SERVER_INFO, tools, CONFIG) {
        Ok(server) => server,
        Err(e) => defmt::panic!("tool definitions refused: {}", defmt::Display2Format(&e)),
    };
    let mut reader: LineReader<UsbReader<'_>, INPUT_LINE_BYTES> = LineReader::new(reader);
    let mut out = [0u8; OUTPUT_BYTES];
    info!(
        "rp2040-usb: ready, {=usize} tools",
        ChipTools::<Pico>::TOOL_COUNT
    );
    loop {
        reader.inner_mut().wait_connection().await;
        info!("USB configured: serving MCP");
        // Returns at end of stream (the USB link went away); the reader's buffer is then empty.
        if server
            .serve_async(&mut reader, &mut writer, &mut out)
            .await
            .is_err()
        {
            warn!("serve loop failed");
        }
        info!("USB link gone: waiting for the host");
    }
}
