//! Stack use of the engine: a full conversation (both eras, every method, validation of
//! arguments and output) runs on a thread whose stack is limited.
//!
//! `engine_fits_in_a_small_stack` checks a fixed bound. `measure_stack` (ignored; run it with
//! `cargo test --release -p embedded-mcp-tests --test engine_stack -- --ignored --nocapture`)
//! measures: on a 64 KiB thread, 1 KiB frames of ballast are stacked above the conversation,
//! and the most ballast with which it still completes is found by re-running this test binary
//! as a child process per try (a stack overflow aborts the child). The stack left below that
//! ballast bounds what the engine (and the test's handler) used, within about 1 KiB.

mod engine_support;

use embedded_mcp::server::Server;
use engine_support::*;

/// The conversation, on a server built by the caller, with the output buffer on the heap so
/// only the engine's frames count.
fn conversation(mut s: Server<'static, Device, 8>) {
    let mut out = vec![0u8; OUT];
    let lines = [
        req(
            "1",
            "initialize",
            r#""protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}"#,
        ),
        req("2", "tools/list", ""),
        req(
            "3",
            "tools/call",
            r#""name":"read_temperature","arguments":{"sensor":2}"#,
        ),
        req(
            "4",
            "tools/call",
            r#""name":"set_led","arguments":{"brightness":150}"#,
        ),
        req("5", "tools/call", r#""name":"buggy_reading""#),
        req(
            "6",
            "tools/call",
            r#""name":"read_history","arguments":{"count":8}"#,
        ),
        req26("7", "server/discover", ""),
        req26("8", "tools/list", ""),
        req26("9", "tools/call", r#""name":"calibrate""#),
        format!("{{\"id\":10,\"x\":{}1{}}}", "[".repeat(40), "]".repeat(40)),
    ];
    for line in &lines {
        let _ = s.handle_line(line.as_bytes(), &mut out);
    }
    assert_eq!(s.stats().requests, 9);
}

fn run_with_stack(bytes: usize) -> bool {
    // Built on the caller's stack (schema compilation included), then moved to the thread.
    let server = device(usize::MAX);
    std::thread::Builder::new()
        .stack_size(bytes)
        .spawn(move || conversation(server))
        .unwrap()
        .join()
        .is_ok()
}

#[test]
fn engine_fits_in_a_small_stack() {
    // Generous for unoptimised builds; the measured figure (release) is in the server docs.
    assert!(run_with_stack(192 * 1024));
}

/// Stack given to the measuring thread.
const MEASURE_STACK: usize = 64 * 1024;

/// Recurses `levels` times through 1 KiB frames, then runs `job` below them; prints how many
/// bytes of stack the frames above the job take (from the thread's first frame).
#[inline(never)]
fn ballast(levels: usize, top: usize, job: &mut dyn FnMut()) {
    let frame = std::hint::black_box([levels as u8; 1024]);
    if levels == 0 {
        let here = &frame as *const _ as usize;
        println!("ballast {}", top - here);
        job();
    } else {
        ballast(levels - 1, top, job);
    }
    std::hint::black_box(&frame);
}

#[test]
#[ignore = "measurement: run with --ignored --nocapture"]
fn measure_stack() {
    if let Ok(levels) = std::env::var("ENGINE_STACK_LEVELS") {
        let levels: usize = levels.parse().unwrap();
        let server = device(usize::MAX);
        let ok = std::thread::Builder::new()
            .stack_size(MEASURE_STACK)
            .spawn(move || {
                let top = std::hint::black_box(0u8);
                let top = &top as *const u8 as usize;
                let mut server = Some(server);
                ballast(levels, top, &mut || conversation(server.take().unwrap()));
            })
            .unwrap()
            .join()
            .is_ok();
        std::process::exit(if ok { 0 } else { 1 });
    }
    let exe = std::env::current_exe().unwrap();
    // The most ballast levels with which the conversation still completes.
    let run = |levels: usize| {
        let out = std::process::Command::new(&exe)
            .args(["--exact", "measure_stack", "--ignored", "--nocapture"])
            .env("ENGINE_STACK_LEVELS", levels.to_string())
            .stderr(std::process::Stdio::null())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let used = text
            .lines()
            .find_map(|l| l.strip_prefix("ballast "))
            .and_then(|n| n.trim().parse::<usize>().ok());
        (out.status.success(), used)
    };
    assert!(run(0).0, "the conversation fits {MEASURE_STACK} bytes");
    let (mut lo, mut hi) = (0usize, MEASURE_STACK / 1024);
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        if run(mid).0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let used = run(lo).1.unwrap();
    println!(
        "engine stack for the conversation: at most {} bytes ({MEASURE_STACK} thread stack - {used} bytes of ballast that still fit, {lo} levels)",
        MEASURE_STACK - used
    );
}

#[test]
fn memory_sizes() {
    use embedded_mcp::server::SchemaStorage;
    use embedded_mcp::transport::{LineBuffer, LineReader};
    use std::mem::size_of;
    let line = size_of::<LineBuffer<1024>>() - 1024;
    let reader = size_of::<LineReader<&[u8], 1024>>() - 1024;
    let server = size_of::<Server<'static, Device, 8>>() - size_of::<Device>();
    let server1 = size_of::<Server<'static, Device, 1>>() - size_of::<Device>();
    let storage = size_of::<SchemaStorage<8, 16, 48, 128>>();
    println!(
        "LineBuffer<N>: N + {line}; LineReader<&[u8], N>: N + {reader}; Server<H, 8>: {server} + H; Server<H, 1>: {server1} + H; SchemaStorage<8, 16, 48, 128>: {storage}"
    );
    assert!(
        line <= 272 && reader <= 288,
        "line state stays small (x86-64)"
    );
    assert_eq!(
        storage,
        2 * 8 * (16 * 14 + 48 * 8 + 128),
        "as SchemaStorage documents"
    );
}
