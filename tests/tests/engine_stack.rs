//! Stack use of the engine: a full conversation (both eras, every method, validation of
//! arguments and output) runs on a thread whose stack is limited.
//!
//! `engine_fits_in_a_small_stack` checks a fixed bound. `measure_stack` (ignored; run it with
//! `cargo test --release -p embedded-mcp-tests --test engine_stack -- --ignored --nocapture`)
//! finds the smallest thread stack, in 1 KiB steps, with which the conversation completes, by
//! re-running this test binary as a child process per size (a stack overflow aborts the child).
//! The thread's stack also holds the test harness's frames, so the number is an upper bound.

mod engine_support;

use engine_support::*;

/// The conversation, with the output buffer on the heap so only the engine's frames count.
fn conversation() {
    let mut s = device(usize::MAX);
    let mut out = vec![0u8; OUT];
    let lines = [
        req("1", "initialize", r#""protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}"#),
        req("2", "tools/list", ""),
        req("3", "tools/call", r#""name":"read_temperature","arguments":{"sensor":2}"#),
        req("4", "tools/call", r#""name":"set_led","arguments":{"brightness":150}"#),
        req("5", "tools/call", r#""name":"buggy_reading""#),
        req("6", "tools/call", r#""name":"read_history","arguments":{"count":8}"#),
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
    std::thread::Builder::new()
        .stack_size(bytes)
        .spawn(conversation)
        .unwrap()
        .join()
        .is_ok()
}

#[test]
fn engine_fits_in_a_small_stack() {
    // Generous for unoptimised builds; the measured figure (release) is in the server docs.
    assert!(run_with_stack(192 * 1024));
}

#[test]
#[ignore = "measurement: run with --ignored --nocapture"]
fn measure_stack() {
    if let Ok(size) = std::env::var("ENGINE_STACK_CHILD") {
        let ok = run_with_stack(size.parse().unwrap());
        std::process::exit(if ok { 0 } else { 1 });
    }
    let exe = std::env::current_exe().unwrap();
    let fits = |kib: usize| {
        std::process::Command::new(&exe)
            .args(["--exact", "measure_stack", "--ignored", "--nocapture"])
            .env("ENGINE_STACK_CHILD", (kib * 1024).to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap()
            .success()
    };
    let (mut lo, mut hi) = (1usize, 512usize);
    assert!(fits(hi));
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    println!("smallest thread stack for the conversation: {hi} KiB");
}
