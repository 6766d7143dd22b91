//! Proof firmware: no panic is reachable in `embedded-mcp`'s whole path.
//!
//! The panic handler calls `embedded_mcp_panic_is_reachable`, which is defined nowhere. The
//! release build (fat LTO, one codegen unit) therefore links only if the optimiser removed
//! every call to the handler: no bounds check, `unwrap`, `expect`, slice index or arithmetic
//! overflow check survives on any path the firmware uses. And it uses them all, on bytes read
//! from UART0 (volatile reads, so nothing is constant-folded):
//!
//! 1. line 1: a tool's `inputSchema` (JSON), compiled with `schema::compile`;
//! 2. line 2: the tool's `outputSchema` (JSON text, listed by `tools/list`);
//! 3. line 3: a postcard program of the output schema, hex-encoded, loaded with
//!    `Program::from_postcard` (an empty or refused program: the server compiles both texts
//!    itself with `Server::with_config`);
//! 4. line 4: a JSON instance, validated against both programs;
//! 5. then JSON-RPC lines (`initialize`, `tools/list`, `tools/call`, ...) served by
//!    `Server::serve` through the line reader until byte `0x04` ends the stream (`probe` asks
//!    for input with `mrtr::input_required` and a `StateSeal`ed state, and for a person's
//!    approval with `Approvals::confirm`);
//! 6. then, the path a QEMU firmware runs: typed tools (`#[tools]`, the derive's readers and
//!    writers, an async tool with a `Context` and `confirm`, approvals sealed by the board
//!    library) served by `serve_async_into` (`serve_async` without its completion: the
//!    compiler's "resumed after completion" check of a future that can complete is the one
//!    panic left in `serve_async`) until the next `0x04`.
//!
//! Each setup step answers one line; QEMU exits (semihosting) with status 0 at the end.
#![no_std]
#![no_main]

mod hex;
mod probe;
mod typed;

use core::fmt::Write as _;

use cortex_m_rt::entry;
use cortex_m_semihosting::debug::{self, EXIT_FAILURE, EXIT_SUCCESS};
use embedded_mcp::schema::{compile, Program, Storage};
use embedded_mcp::server::{CacheScope, Config, SchemaStorage, Server, Tool, ToolSchemas};
use embedded_mcp::transport::{Frame, LineReader};

use probe::Probe;
use qemu_lm3s6965::polled::{self as uart, UartRx, UartTx};
use typed::{run_until, Polled, Typed};

/// Longest line accepted (schemas, programs in hex and requests), LF included.
const LINE_BYTES: usize = 1024;
/// Longest schema text kept for `tools/list`.
const TEXT_BYTES: usize = 768;
/// Longest postcard program.
const PROGRAM_BYTES: usize = 512;
/// Output buffer: one response line.
const OUTPUT_BYTES: usize = 2048;

/// Room for one compiled schema.
type OneStorage = Storage<32, 128, 256>;

/// The engine's settings: small pages, so `tools/list` answers the cursor path too.
const CONFIG: Config = Config {
    page_bytes: OUTPUT_BYTES,
    ttl_ms: 60_000,
    cache_scope: CacheScope::Public,
    max_depth: 16,
    ..Config::DEFAULT
};

/// All the memory, static.
struct Memory {
    input_text: [u8; TEXT_BYTES],
    output_text: [u8; TEXT_BYTES],
    program: [u8; PROGRAM_BYTES],
    compiled: OneStorage,
    loaded: OneStorage,
    schemas: SchemaStorage<1, 32, 128, 256>,
    tools: [Tool; 1],
    out: [u8; OUTPUT_BYTES],
}

/// Ends the firmware: QEMU exits with `status`.
fn exit(status: debug::ExitStatus) -> ! {
    debug::exit(status);
    loop {
        cortex_m::asm::wfi();
    }
}

/// Reports a failed setup step and exits with status 1.
fn fail(tx: &mut UartTx, why: core::fmt::Arguments<'_>) -> ! {
    let _ = writeln!(tx, "panic-free: {why}");
    exit(EXIT_FAILURE)
}

/// The next line from the UART, copied into `buf`; `None` at end of stream.
fn next_line<'b>(
    reader: &mut LineReader<UartRx, LINE_BYTES>,
    buf: &'b mut [u8],
) -> Option<&'b [u8]> {
    loop {
        let bytes = match reader.next_frame() {
            Ok(Some(Frame::Line(line))) => line.as_bytes(),
            Ok(Some(Frame::InvalidUtf8(bytes))) => bytes,
            Ok(Some(Frame::Overlong(_))) => continue,
            Ok(None) | Err(_) => return None,
        };
        let (head, _) = buf.split_at_mut_checked(bytes.len())?;
        head.copy_from_slice(bytes);
        return Some(head);
    }
}

/// The next line as `'static` UTF-8 text in `buf`.
fn next_text(
    reader: &mut LineReader<UartRx, LINE_BYTES>,
    buf: &'static mut [u8],
    tx: &mut UartTx,
) -> &'static str {
    let Some(line) = next_line(reader, buf) else {
        fail(tx, format_args!("input ended before a schema line"));
    };
    match core::str::from_utf8(line) {
        Ok(text) => text,
        Err(_) => fail(tx, format_args!("a schema line is not UTF-8")),
    }
}

#[entry]
fn main() -> ! {
    let (rx, mut tx) = uart::init();
    let Some(memory) = cortex_m::singleton!(: Memory = Memory {
        input_text: [0; TEXT_BYTES],
        output_text: [0; TEXT_BYTES],
        program: [0; PROGRAM_BYTES],
        compiled: OneStorage::new(),
        loaded: OneStorage::new(),
        schemas: SchemaStorage::new(),
        tools: [Tool::new(probe::NAME, "{}")],
        out: [0; OUTPUT_BYTES],
    }) else {
        fail(&mut tx, format_args!("memory taken twice"));
    };
    let Memory {
        input_text,
        output_text,
        program,
        compiled,
        loaded,
        schemas,
        tools,
        out,
    } = memory;
    let mut reader: LineReader<UartRx, LINE_BYTES> = LineReader::new(rx);
    let _ = writeln!(tx, "panic-free: ready");

    // 1. The input schema, compiled on the device.
    let input_schema = next_text(&mut reader, input_text, &mut tx);
    let compiled = compile(input_schema.as_bytes(), compiled);
    match &compiled {
        Ok(p) => {
            let _ = writeln!(
                tx,
                "compiled: {} nodes, {} ops, {} text bytes, object root: {}",
                p.node_count(),
                p.op_count(),
                p.text_len(),
                p.is_object_schema()
            );
        }
        Err(e) => {
            let _ = writeln!(tx, "compile error: {e}");
        }
    }

    // 2. The output schema's text.
    let output_schema = next_text(&mut reader, output_text, &mut tx);

    // 3. The output schema's program, precompiled on a host, in hex.
    let mut hex_line = [0u8; LINE_BYTES];
    let Some(hex_text) = next_line(&mut reader, &mut hex_line) else {
        fail(&mut tx, format_args!("input ended before the program line"));
    };
    let loaded = match hex::decode(hex_text, program) {
        Some(len) => match program.split_at_checked(len) {
            Some((bytes, _)) => Program::from_postcard(bytes, loaded).map_err(Some),
            None => Err(None),
        },
        None => Err(None),
    };
    match &loaded {
        Ok(p) => {
            let _ = writeln!(tx, "loaded: {} nodes, {} ops", p.node_count(), p.op_count());
        }
        Err(Some(e)) => {
            let _ = writeln!(tx, "load error: {e}");
        }
        Err(None) => {
            let _ = writeln!(tx, "load error: not hex or too long");
        }
    }

    // 4. An instance, validated against both programs.
    let mut instance = [0u8; LINE_BYTES];
    let Some(instance) = next_line(&mut reader, &mut instance) else {
        fail(
            &mut tx,
            format_args!("input ended before the instance line"),
        );
    };
    for (role, program) in [
        ("input", compiled.as_ref().ok()),
        ("output", loaded.as_ref().ok()),
    ] {
        match program.map(|p| p.validate_bytes(instance)) {
            Some(Ok(())) => {
                let _ = writeln!(tx, "{role}: valid");
            }
            Some(Err(v)) => {
                let _ = writeln!(tx, "{role}: invalid: {v}");
            }
            None => {
                let _ = writeln!(tx, "{role}: no program");
            }
        }
    }

    // 5. The server, with the programs from steps 1 and 3, or compiling the texts itself.
    tools[0] = Tool::new(probe::NAME, input_schema)
        .title("Probe")
        .description("Echoes its arguments, transformed, as a structured result.")
        .output_schema(output_schema);
    let server = match (compiled, loaded) {
        (Ok(input), Ok(output)) => Server::with_programs(
            probe::SERVER_INFO,
            tools,
            [ToolSchemas {
                input,
                output: Some(output),
            }],
            Probe::new(),
            CONFIG,
        ),
        _ => Server::with_config(probe::SERVER_INFO, tools, schemas, Probe::new(), CONFIG),
    };
    let mut server = match server {
        Ok(server) => server,
        Err(e) => fail(&mut tx, format_args!("definition refused: {e}")),
    };
    // The schemas arrive on the UART: the size the server needs is known only now (firmware
    // with static tools asserts it while compiling, `embedded_mcp::server::output_len`).
    let required = server.required_output_len();
    if required > out.len() {
        fail(
            &mut tx,
            format_args!("output buffer too small: {required} bytes needed"),
        );
    }
    let _ = writeln!(tx, "serving");
    let _ = server.serve(&mut reader, &mut tx, out);
    let stats = server.stats();
    let _ = writeln!(tx, "panic-free: done, {stats:?}");

    // 6. The typed tools, async, on the same UART (a fresh stream after the 0x04).
    serve_typed(reader, tx, out)
}

/// Step 6.
fn serve_typed(reader: LineReader<UartRx, LINE_BYTES>, mut tx: UartTx, out: &mut [u8]) -> ! {
    let mut rx = reader.into_inner();
    rx.reopen();
    let mut reader: LineReader<Polled<UartRx>, LINE_BYTES> = LineReader::new(Polled(rx));
    let mut typed = match Server::from_tools(typed::SERVER_INFO, Typed::new()) {
        Ok(server) => server,
        Err(e) => fail(&mut tx, format_args!("typed tools refused: {e}")),
    };
    let _ = writeln!(tx, "typed: serving");
    let mut writer = Polled(tx);
    let ended = core::cell::Cell::new(None);
    let serving = typed.serve_async_into(&mut reader, &mut writer, out, &ended);
    let end = run_until(serving, &ended);
    let stats = typed.stats();
    let _ = writeln!(writer.0, "typed: done, {end:?}, {stats:?}");
    exit(EXIT_SUCCESS)
}

/// The proof: calling a function that no object defines. If any panic is reachable, this
/// handler is kept and the link fails with `undefined symbol: embedded_mcp_panic_is_reachable`.
/// (Build with `--features locate` to link anyway and list the panic sites: `locate.sh`.)
#[cfg(not(feature = "locate"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    extern "C" {
        fn embedded_mcp_panic_is_reachable() -> !;
    }
    // Safety: never runs; the build does not link if this call is reachable.
    unsafe { embedded_mcp_panic_is_reachable() }
}

/// `--features locate`: a defined handler, so the firmware links and `locate.sh` can list who
/// calls the panic machinery.
#[cfg(feature = "locate")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    exit(EXIT_FAILURE)
}
