//! Soak: N pipelined `tools/call` requests through `embedded-mcp bridge --qemu` to the
//! `examples/qemu-sensors` firmware, with random garbage lines injected between them.
//!
//! N is 2,000 by default (CI, about a minute); `SOAK_REQUESTS=10000` runs the full soak of
//! issue 8. At most [`WINDOW`] requests are in flight at once (the bridge's default 10 s
//! timeout counts queueing time, and QEMU's UART moves a few tens of KB/s).
//!
//! Garbage, between requests, chosen by a fixed-seed PRNG (`SOAK_SEED` overrides it):
//! - lines that are not JSON (random bytes, invalid UTF-8 included): the bridge answers each
//!   with one -32700 error without id and sends nothing to the device;
//! - JSON-RPC notifications with random methods and params, and responses to requests nobody
//!   sent: forwarded to the firmware, which must ignore them.
//!
//! Asserted: every request is answered exactly once with its own id, with the result its tool
//! and arguments call for (`set_led` reports the previous level, so a lost or repeated call
//! shows); exactly one -32700 per non-JSON garbage line and nothing else on stdout; the bridge's
//! resident memory (VmRSS from /proc) grows by less than [`RSS_GROWTH_LIMIT`] after warm-up;
//! the firmware's peak stack stays within the figure its README documents; QEMU is gone when the
//! bridge exits.
#![cfg(unix)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use embedded_mcp_tests::hostile::META;
use embedded_mcp_tests::project_root;
use embedded_mcp_tests::qemu::{build_firmware, ensure_qemu, Board};
use serde_json::Value;

/// The `embedded-mcp` command line (`cli::main`, built in this package).
const BRIDGE: &str = env!("CARGO_BIN_EXE_embedded-mcp-under-test");

/// Requests in flight at most.
const WINDOW: usize = 32;

/// Largest VmRSS growth of the bridge between the end of warm-up (10 % of the requests) and
/// the end of the run.
const RSS_GROWTH_LIMIT: u64 = 2 << 20;

/// The peak stack the firmware's README documents ("Peak stack: 8,448 bytes at most over all
/// the QEMU tests", examples/qemu-sensors/README.md).
const DOCUMENTED_STACK_PEAK: u64 = 8_448;

/// Longest wait for any one response.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(30);

fn firmware() -> PathBuf {
    ensure_qemu().unwrap_or_else(|e| panic!("{e}"));
    let dir = project_root().join("examples").join("qemu-sensors");
    build_firmware(&dir, Board::Lm3s6965evb.rust_target()).unwrap_or_else(|e| panic!("{e}"))
}

/// xorshift64*: deterministic garbage and arguments.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What a request asked for, to check its answer.
#[derive(Debug, Clone)]
enum Expect {
    Temperature(&'static str),
    Acceleration,
    Led {
        led: &'static str,
        brightness: u64,
        previous: u64,
    },
    LedRefused(u64),
    Info,
}

const LEDS: [&str; 3] = ["red", "green", "blue"];

/// A random tools/call request and what it must return; `levels` tracks the LED state.
fn request(rng: &mut Rng, id: &str, levels: &mut [u64; 3]) -> (String, Expect) {
    let (tool, args, expect) = match rng.below(10) {
        0..=2 => {
            let sensor = rng.below(2);
            (
                "read_temperature",
                format!("{{\"sensor\":{sensor}}}"),
                Expect::Temperature(["tmp-board", "tmp-ambient"][sensor as usize]),
            )
        }
        3..=4 => ("read_acceleration", "{}".into(), Expect::Acceleration),
        5..=7 => {
            let channel = rng.below(3) as usize;
            let brightness = rng.below(101);
            let previous = std::mem::replace(&mut levels[channel], brightness);
            (
                "set_led",
                format!(
                    "{{\"led\":\"{}\",\"brightness\":{brightness}}}",
                    LEDS[channel]
                ),
                Expect::Led {
                    led: LEDS[channel],
                    brightness,
                    previous,
                },
            )
        }
        8 => {
            let brightness = 101 + rng.below(900);
            let channel = rng.below(3) as usize;
            (
                "set_led",
                format!(
                    "{{\"led\":\"{}\",\"brightness\":{brightness}}}",
                    LEDS[channel]
                ),
                Expect::LedRefused(brightness),
            )
        }
        _ => ("device_info", "{}".into(), Expect::Info),
    };
    (
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{{META},\"name\":\"{tool}\",\"arguments\":{args}}}}}\n"
        ),
        expect,
    )
}

/// A garbage line; `true` when it is not JSON (the bridge answers it with -32700).
fn garbage(rng: &mut Rng, n: usize) -> (Vec<u8>, bool) {
    match rng.below(4) {
        0 | 1 => {
            // Random bytes (invalid UTF-8 included), never LF, starting with a byte no JSON
            // text starts with.
            let len = 1 + rng.below(200) as usize;
            let mut line = vec![b'#'];
            line.extend((0..len).map(|_| match rng.below(256) as u8 {
                b'\n' => b'~',
                b => b,
            }));
            line.push(b'\n');
            (line, true)
        }
        2 => {
            let method = format!("notifications/junk{}", rng.below(1000));
            let line = format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"{method}\",\"params\":{{\"n\":{n},\"x\":[{},{}]}}}}\n",
                rng.next(),
                rng.below(10)
            );
            (line.into_bytes(), false)
        }
        _ => {
            let line = format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":\"junk-{n}\",\"result\":{{\"r\":{}}}}}\n",
                rng.next()
            );
            (line.into_bytes(), false)
        }
    }
}

fn vm_rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn process_alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        !s.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}

/// Checks one result against what its request asked for; returns `stackPeakBytes` of a
/// `device_info` result.
fn check_result(id: &str, expect: &Expect, response: &Value) -> Option<u64> {
    let result = &response["result"];
    let structured = &result["structuredContent"];
    let is_error = result["isError"].as_bool().unwrap_or(false);
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    match expect {
        Expect::Temperature(sensor) => {
            assert!(!is_error, "{id}: {response}");
            assert_eq!(structured["sensorId"], *sensor, "{id}: {response}");
            assert_eq!(structured["unit"], "°C", "{id}: {response}");
            assert!(structured["value"].is_number() && structured["sample"].as_u64() >= Some(1));
        }
        Expect::Acceleration => {
            assert!(!is_error, "{id}: {response}");
            let axes = structured.as_array().expect("an array");
            assert!(
                axes.len() == 3 && axes.iter().all(Value::is_number),
                "{response}"
            );
        }
        Expect::Led {
            led,
            brightness,
            previous,
        } => {
            assert!(!is_error, "{id}: {response}");
            assert_eq!(
                structured,
                &serde_json::json!({"led": led, "brightness": brightness, "previous": previous}),
                "{id}: a set_led was lost, repeated or reordered"
            );
        }
        Expect::LedRefused(brightness) => {
            assert!(is_error, "{id}: {response}");
            assert_eq!(
                text,
                format!(
                    "Invalid arguments for tool set_led: /brightness: {brightness} is greater than the maximum 100"
                )
            );
        }
        Expect::Info => {
            assert!(!is_error, "{id}: {response}");
            return structured["stackPeakBytes"].as_u64();
        }
    }
    // Every structured result carries the same JSON as text.
    if !is_error {
        let mirrored: Value = serde_json::from_str(text).expect("text block is JSON");
        assert_eq!(
            &mirrored, structured,
            "{id}: text and structuredContent differ"
        );
    }
    None
}

#[test]
fn pipelined_calls_with_garbage_through_the_bridge_to_qemu() {
    let total: usize = std::env::var("SOAK_REQUESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    let seed: u64 = std::env::var("SOAK_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_1234_abcd_0001);
    let fw = firmware();
    let mut bridge = Bridge(
        Command::new(BRIDGE)
            .args(["bridge", "--qemu"])
            .arg(&fw)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the bridge"),
    );
    let pid = bridge.0.id();
    let mut stdin = bridge.0.stdin.take().expect("stdin");
    let stdout = bridge.0.stdout.take().expect("stdout");
    let mut stderr = bridge.0.stderr.take().expect("stderr");
    // The bridge logs a warning per garbage line: keep the count and the last lines only.
    let log_tail = Arc::new(Mutex::new((0usize, String::new())));
    let log = Arc::clone(&log_tail);
    let stderr_thread = std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            let mut log = log.lock().unwrap();
            log.0 += buf[..n].iter().filter(|&&b| b == b'\n').count();
            log.1.push_str(&String::from_utf8_lossy(&buf[..n]));
            let mut cut = log.1.len().saturating_sub(4000);
            while !log.1.is_char_boundary(cut) {
                cut += 1;
            }
            log.1 = log.1[cut..].to_owned();
        }
    });
    let (lines_tx, lines) = mpsc::channel::<String>();
    let stdout_thread = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let stderr_tail = || log_tail.lock().unwrap().1.clone();

    let mut rng = Rng(seed);
    let mut levels = [0u64; 3];
    let mut in_flight: HashMap<String, Expect> = HashMap::new();
    let (mut sent, mut answered, mut non_json, mut forwarded_junk, mut parse_errors) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut rss = Vec::new();
    let mut stack_peaks = Vec::new();
    let started = Instant::now();
    while answered < total {
        while sent < total && in_flight.len() < WINDOW {
            for _ in 0..rng.below(3) {
                let (line, not_json) = garbage(&mut rng, sent);
                if not_json {
                    non_json += 1;
                } else {
                    forwarded_junk += 1;
                }
                stdin.write_all(&line).expect("write garbage");
            }
            let id = if sent.is_multiple_of(2) {
                sent.to_string()
            } else {
                format!("\"req-{sent}\"")
            };
            let (line, expect) = request(&mut rng, &id, &mut levels);
            stdin.write_all(line.as_bytes()).expect("write request");
            in_flight.insert(id, expect);
            sent += 1;
        }
        stdin.flush().expect("flush");
        let line = lines.recv_timeout(RESPONSE_TIMEOUT).unwrap_or_else(|_| {
            panic!(
                "no response for {RESPONSE_TIMEOUT:?} with {} in flight ({answered} answered); bridge stderr:\n{}",
                in_flight.len(),
                stderr_tail()
            )
        });
        let response: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carried a line that is not JSON ({e}): {line}"));
        assert_eq!(response["jsonrpc"], "2.0", "{line}");
        match response.get("id") {
            None | Some(Value::Null) => {
                assert_eq!(response["error"]["code"], -32700, "unexpected: {line}");
                parse_errors += 1;
            }
            Some(id) => {
                let key = id.to_string();
                let expect = in_flight
                    .remove(&key)
                    .unwrap_or_else(|| panic!("a response to no request in flight: {line}"));
                if let Some(peak) = check_result(&key, &expect, &response) {
                    stack_peaks.push(peak);
                }
                answered += 1;
                if answered.is_multiple_of((total / 20).max(1)) {
                    rss.push((answered, vm_rss(pid).expect("bridge VmRSS")));
                }
            }
        }
    }
    // The -32700 answers to the last garbage lines may trail the last result.
    while parse_errors < non_json {
        let line = lines
            .recv_timeout(RESPONSE_TIMEOUT)
            .unwrap_or_else(|_| panic!("{parse_errors} of {non_json} parse errors answered"));
        let response: Value = serde_json::from_str(&line).expect("JSON");
        assert_eq!(response["error"]["code"], -32700, "unexpected: {line}");
        assert!(response.get("id").is_none_or(Value::is_null), "{line}");
        parse_errors += 1;
    }
    let elapsed = started.elapsed();
    assert_eq!(
        parse_errors, non_json,
        "one -32700 per non-JSON garbage line"
    );
    assert!(
        lines.recv_timeout(Duration::from_millis(500)).is_err(),
        "nothing more may arrive"
    );

    // The firmware's stack, now.
    let (line, expect) = request_info();
    stdin.write_all(line.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let response: Value = serde_json::from_str(
        &lines
            .recv_timeout(RESPONSE_TIMEOUT)
            .unwrap_or_else(|_| panic!("no device_info answer:\n{}", stderr_tail())),
    )
    .unwrap();
    let final_peak = check_result("\"final-info\"", &expect, &response).expect("stack peak");
    stack_peaks.push(final_peak);
    let stack_size = response["result"]["structuredContent"]["stackSizeBytes"]
        .as_u64()
        .unwrap_or(0);

    // Memory: flat after warm-up.
    let warm = rss
        .iter()
        .find(|(n, _)| *n >= total / 10)
        .map(|&(_, r)| r)
        .expect("an RSS sample after warm-up");
    let peak_rss = rss.iter().map(|&(_, r)| r).max().unwrap_or(0);
    let last_rss = rss.last().map(|&(_, r)| r).unwrap_or(0);
    let max_stack = stack_peaks.iter().copied().max().unwrap_or(0);
    println!(
        "soak: {total} requests, {non_json} non-JSON garbage lines (-32700 each), {forwarded_junk} junk notifications/responses forwarded, in {elapsed:?} ({:.0} requests/s)",
        total as f64 / elapsed.as_secs_f64()
    );
    println!(
        "soak: bridge VmRSS {} KiB after warm-up, {} KiB at the end, {} KiB peak; samples (answered, KiB): {:?}",
        warm / 1024,
        last_rss / 1024,
        peak_rss / 1024,
        rss.iter().map(|&(n, r)| (n, r / 1024)).collect::<Vec<_>>()
    );
    println!(
        "soak: firmware stack peak {max_stack} of {stack_size} bytes (documented {DOCUMENTED_STACK_PEAK}); bridge stderr lines {}",
        log_tail.lock().unwrap().0
    );
    assert!(
        peak_rss.saturating_sub(warm) < RSS_GROWTH_LIMIT,
        "bridge memory grew from {warm} to {peak_rss} bytes"
    );
    assert!(
        max_stack > 0 && max_stack <= DOCUMENTED_STACK_PEAK,
        "firmware stack peak {max_stack} bytes, documented at most {DOCUMENTED_STACK_PEAK}"
    );

    // Closing stdin ends the bridge, and QEMU with it.
    let qemu_pids = child_pids(pid);
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = bridge.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the bridge did not exit");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "bridge exit {status}:\n{}", stderr_tail());
    for qemu in qemu_pids {
        let deadline = Instant::now() + Duration::from_secs(5);
        while process_alive(qemu) {
            assert!(Instant::now() < deadline, "QEMU {qemu} outlived the bridge");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let _ = stdout_thread.join();
    let _ = stderr_thread.join();
}

/// The bridge process. Dropped while running (a failed test): SIGTERM, which makes the bridge
/// stop QEMU, then SIGKILL for both if they are still there.
struct Bridge(std::process::Child);

impl Drop for Bridge {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let children = child_pids(self.0.id());
            let _ = Command::new("kill")
                .args(["-TERM", &self.0.id().to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(5);
            while matches!(self.0.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = self.0.kill();
            let _ = self.0.wait();
            for child in children.into_iter().filter(|&c| process_alive(c)) {
                let _ = Command::new("kill")
                    .args(["-KILL", &child.to_string()])
                    .status();
            }
        }
    }
}

fn request_info() -> (String, Expect) {
    (
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":\"final-info\",\"method\":\"tools/call\",\"params\":{{{META},\"name\":\"device_info\",\"arguments\":{{}}}}}}\n"
        ),
        Expect::Info,
    )
}

/// The children of `pid` (QEMU, started by the bridge), from /proc.
fn child_pids(pid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| {
                s.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok())
                    == Some(pid)
            })
        })
        .collect()
}
