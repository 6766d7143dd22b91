//! The hostile input corpus (`tests/src/hostile.rs`) against the `examples/qemu-sensors`
//! firmware under QEMU: the same cases, in the same order, with the same expected bytes as the
//! host runner (`hostile_corpus.rs`), over the firmware's UART on a unix socket.
//!
//! One boot serves the whole corpus, as a device in the field would (the cases' expectations
//! follow the session and LED state from case to case). Bytes are written by a second thread
//! while this one reads responses, so a large case cannot deadlock the two directions of the
//! UART. At the end the firmware must still be alive (`device_info`) and its peak stack within
//! the size it reports. QEMU is killed when the test ends, also when it fails.
//!
//! The very large cases are sent as their smaller stand-ins ([`Case::for_uart`]): the emulated
//! UART moves about 40 KB/s, and at full size the corpus (5.6 MB) kept this test busy for about
//! two and a half minutes, over 90 % of it in seven cases of 0.2 to 1 MB. Six of them are overlong
//! lines, replaced by lines of the same shape about twice the firmware's 512-byte line buffer
//! long: on the device every byte past the buffer takes the same discard path (length count and
//! id tracker, nothing stored or parsed), so the stand-in ends in the same state with the same
//! reply (the full argument is in `tests/src/hostile.rs`). The seventh sends 1,000 of its 10,000
//! pipelined requests. `hostile_corpus.rs` checks on the host engine, configured as the firmware,
//! that stand-ins and full cases get the same answers, and runs every case at full size.
//! `one_megabyte_line_with_id_last` keeps its full size here, so a real megabyte still streams
//! through the firmware's UART, receive ring and discard path on every run.
#![cfg(unix)]

use std::io::Write;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use embedded_mcp_tests::hostile::{corpus, probe, Case, Split, META};
use embedded_mcp_tests::project_root;
use embedded_mcp_tests::qemu::{build_firmware, Board, QemuGuard};

const BOARD: Board = Board::Lm3s6965evb;
const READY: &str = "qemu-sensors: ready";

/// QEMU moves UART bytes at a few tens of KB/s (one byte per interrupt, FIFOs off), and two
/// cores are shared with other work: a case may take this long per megabyte it sends.
const PER_MEGABYTE: Duration = Duration::from_secs(180);
const MIN_WAIT: Duration = Duration::from_secs(20);

fn firmware() -> PathBuf {
    let dir = project_root().join("examples").join("qemu-sensors");
    build_firmware(&dir, BOARD.rust_target()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_firmware_answers_the_whole_hostile_corpus_and_keeps_serving() {
    let elf = firmware();
    let mut qemu = QemuGuard::start_socket(BOARD, &elf).unwrap_or_else(|e| panic!("{e}"));
    qemu.wait_for_log(READY, Duration::from_secs(20))
        .unwrap_or_else(|| panic!("firmware not ready:\n{}", qemu.logs().join("\n")));

    // The writer thread: one queue of (bytes, split) jobs, written in order.
    let mut stream = qemu
        .stream()
        .expect("a socket UART")
        .try_clone()
        .expect("clone the UART socket");
    let (jobs, queue) = mpsc::channel::<(Vec<u8>, Split)>();
    let writer = std::thread::spawn(move || {
        for (bytes, split) in queue {
            let size = match split {
                Split::Whole => bytes.len().max(1),
                Split::ByteByByte => 1,
                Split::Chunks(n) => n,
            };
            for chunk in bytes.chunks(size) {
                if stream
                    .write_all(chunk)
                    .and_then(|()| stream.flush())
                    .is_err()
                {
                    return;
                }
            }
        }
    });

    let started = Instant::now();
    let cases: Vec<Case> = corpus().into_iter().map(Case::for_uart).collect();
    let bytes: usize = cases.iter().map(|case| case.input.len()).sum();
    let mut failures = Vec::new();
    let mut slowest = (Duration::ZERO, "");
    for case in &cases {
        let (probe_line, probe_reply) = probe(case.name);
        let case_start = Instant::now();
        jobs.send((case.input.clone(), case.split)).unwrap();
        jobs.send((probe_line.into_bytes(), Split::Whole)).unwrap();
        let megabytes = case.input.len() as f64 / 1e6;
        let wait = MIN_WAIT + PER_MEGABYTE.mul_f64(megabytes);
        let deadline = Instant::now() + wait;
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(line) = qemu.read_line(left) else {
                break;
            };
            let done = probe_reply.matches(&line);
            lines.push(line);
            if done {
                break;
            }
        }
        let took = case_start.elapsed();
        if took > slowest.0 {
            slowest = (took, case.name);
        }
        if took > Duration::from_secs(2) {
            println!("{}: {} bytes in {took:?}", case.name, case.input.len());
        }
        if let Err(e) = case.check(&lines) {
            failures.push(e);
            if lines.last().is_none_or(|l| !probe_reply.matches(l)) {
                // The device stopped answering: later cases cannot be told apart.
                failures.push(format!(
                    "case {}: no answer to the probe within {wait:?}; QEMU stderr:\n{}",
                    case.name,
                    qemu.logs().join("\n")
                ));
                break;
            }
        }
    }
    println!(
        "{} cases, {bytes} bytes, in {:?} (slowest: {} in {:?})",
        cases.len(),
        started.elapsed(),
        slowest.1,
        slowest.0
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );

    // Still alive, and the stack stayed within its size.
    let info = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":\"info\",\"method\":\"tools/call\",\"params\":{{{META},\"name\":\"device_info\"}}}}\n"
    );
    jobs.send((info.into_bytes(), Split::Whole)).unwrap();
    let line = qemu
        .read_line(MIN_WAIT)
        .unwrap_or_else(|| panic!("no device_info answer:\n{}", qemu.logs().join("\n")));
    let value: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    let info = &value["result"]["structuredContent"];
    let peak = info["stackPeakBytes"].as_u64().expect("stackPeakBytes");
    let size = info["stackSizeBytes"].as_u64().expect("stackSizeBytes");
    println!("after the corpus: stack peak {peak} of {size} bytes; {info}");
    assert!(peak > 0 && peak < size, "stack peak {peak} of {size}");
    drop(jobs);
    drop(qemu);
    let _ = writer.join();
}
