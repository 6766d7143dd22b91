//! The MCP server on the USB serial port: the shared chip tools on the Pico (their schemas are
//! the derive's static programs: nothing is compiled at boot), served one JSON-RPC message per
//! line for as long as a host is attached, and again after every re-attach.

use defmt::info;
use embassy_rp::peripherals::USB;
use embassy_rp::Peri;
use embedded_mcp::server::{output_len, CacheScope, Config, Server, ServerInfo};
use rp2040_mcp::UsbIdentity;
use sensor_tools::chip::ChipTools;

use crate::chip::Pico;

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

/// How the Pico names itself on USB (pid.codes' test VID/PID: fine on a desk, not for a
/// product).
const USB_IDENTITY: UsbIdentity = UsbIdentity {
    product: "rp2040-usb MCP device",
    serial_number: "rp2040-usb-1",
    ..UsbIdentity::new("")
};

/// Serves MCP on the CDC-ACM port of `usb` forever. A refused tool definition (a bug) panics,
/// which panic-probe reports over defmt-rtt.
pub async fn serve(pico: Pico, usb: Peri<'static, USB>) -> ! {
    let tools = ChipTools::new(pico);
    let mut server = match Server::from_tools_with_config(SERVER_INFO, tools, CONFIG) {
        Ok(server) => server,
        Err(e) => defmt::panic!("tool definitions refused: {}", defmt::Display2Format(&e)),
    };
    let mut out = [0u8; OUTPUT_BYTES];
    info!(
        "rp2040-usb: ready, {=usize} tools",
        ChipTools::<Pico>::TOOL_COUNT
    );
    rp2040_mcp::serve_usb::<_, _, INPUT_LINE_BYTES>(usb, &USB_IDENTITY, &mut server, &mut out).await
}
