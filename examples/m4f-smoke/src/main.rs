//! embedded-mcp smoke firmware for QEMU's `mps2-an386` (Cortex-M4F, `thumbv7em-none-eabihf`):
//! the same core server as examples/qemu-sensors, on another board, another UART (CMSDK) and
//! the blocking serve loop (`Server::serve` over `embedded_io`), with two small tools. Logs go
//! to semihosting stderr; UART0 carries nothing but MCP.
//!
//! The board glue (CMSDK UART, fault handlers, linker set-up) is the board library
//! `qemu-mps2-an386` (`boards/qemu-mps2-an386`).
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use cortex_m_semihosting::heprintln;
use embedded_mcp::server::{
    output_len_of, Annotations, Call, Config, Done, Output, SchemaStorage, Server, ServerInfo,
    Tool, ToolError,
};
use embedded_mcp::transport::LineReader;
use qemu_mps2_an386::fault::fail;
use qemu_mps2_an386::uart::UartRx;
use serde::Serialize;

/// Longest request line, LF included.
const INPUT_LINE_BYTES: usize = 512;
/// One response line.
const OUTPUT_BYTES: usize = 1024;

const INFO: ServerInfo = ServerInfo::new("m4f-smoke", env!("CARGO_PKG_VERSION"))
    .title("Cortex-M4F smoke test")
    .description("embedded-mcp on QEMU's mps2-an386 (Cortex-M4F, CMSDK UART)");

// The output buffer holds every response the server writes: a buffer that is too small fails
// the build.
const _: () = assert!(OUTPUT_BYTES >= output_len_of(&INFO, &TOOLS, &Config::DEFAULT));

/// The tools: a board description and a hardware-float multiplication.
static TOOLS: [Tool; 2] = [
    Tool::new(
        "board_info",
        r#"{"type":"object","properties":{},"additionalProperties":false}"#,
    )
    .title("Board information")
    .description("Which board, CPU and firmware this is.")
    .output_schema(r#"{"type":"object","properties":{"board":{"type":"string"},"cpu":{"type":"string"},"fpu":{"type":"boolean"},"firmware":{"type":"string"}},"required":["board","cpu","fpu","firmware"],"additionalProperties":false}"#)
    .annotations(Annotations::SENSOR),
    Tool::new(
        "multiply",
        r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}"#,
    )
    .title("Multiply")
    .description("Multiplies two numbers in single precision on the FPU.")
    .output_schema(r#"{"type":"object","properties":{"product":{"type":"number"}},"required":["product"],"additionalProperties":false}"#)
    .annotations(Annotations::NONE.read_only(true).idempotent(true).open_world(false)),
];

#[derive(Serialize)]
struct BoardInfo {
    board: &'static str,
    cpu: &'static str,
    fpu: bool,
    firmware: &'static str,
}

#[derive(Serialize)]
struct Product {
    product: f32,
}

/// A number argument as `f32` (the `inputSchema` has checked that it is a number). Parsed by
/// `f32::from_str` on the lexeme, so this firmware links the float parser; qemu-sensors avoids
/// it (see its README).
fn number_argument(call: &Call<'_>, name: &str) -> Option<f32> {
    call.arguments()
        .get(name)?
        .as_number()?
        .raw()
        .parse::<f32>()
        .ok()
}

fn handle(call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
    match call.name() {
        "board_info" => Ok(out.structured(&BoardInfo {
            board: "mps2-an386",
            cpu: "cortex-m4f",
            fpu: cfg!(target_abi = "eabihf"),
            firmware: concat!(env!("CARGO_PKG_NAME"), " ", env!("CARGO_PKG_VERSION")),
        })),
        "multiply" => {
            let a = number_argument(call, "a").ok_or(ToolError::Message("a is not a number"))?;
            let b = number_argument(call, "b").ok_or(ToolError::Message("b is not a number"))?;
            // A product that overflows to infinity cannot be encoded as JSON: the engine turns
            // that into an `isError` result.
            Ok(out.structured(&Product { product: a * b }))
        }
        _ => Err(ToolError::NotImplemented),
    }
}

#[entry]
fn main() -> ! {
    let (rx, mut tx) = qemu_mps2_an386::start();
    // Compiled at start-up by the core's compiler; every schema of TOOLS fits 6 subschemas,
    // 24 instructions and 96 text bytes.
    let mut storage: SchemaStorage<2, 6, 24, 96> = SchemaStorage::new();
    let mut server = match Server::with_config(INFO, &TOOLS, &mut storage, handle, Config::DEFAULT)
    {
        Ok(server) => server,
        Err(e) => fail(format_args!("tool definitions refused: {e}")),
    };
    let mut out = [0u8; OUTPUT_BYTES];
    let mut reader: LineReader<UartRx, INPUT_LINE_BYTES> = LineReader::new(rx);
    heprintln!("m4f-smoke: ready, MCP on UART0 (CMSDK, mps2-an386)");
    // The UART never ends and never fails.
    let _ = server.serve(&mut reader, &mut tx, &mut out);
    fail(format_args!("the serve loop ended"))
}
