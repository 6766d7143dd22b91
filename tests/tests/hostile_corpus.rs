//! The hostile input corpus (`tests/src/hostile.rs`) against the engine on the host, through
//! the blocking `Server::serve` loop over a test `Read`/`Write`, configured as the QEMU firmware
//! is: its tool definitions and derived programs, a 512-byte line buffer, a 1,320-byte output
//! buffer, nesting 16.
//!
//! All cases run in order on one server and one `LineReader`, each followed by a `ping` that
//! must be answered; every response line is checked byte for byte. The corpus runs twice: at
//! full size, and as the QEMU runner sends it (the very large cases replaced by their smaller
//! stand-ins, `Case::for_uart`), which proves on this engine that the stand-ins get the same
//! answers. A last test gives the engine a 2 MiB line buffer, so that 100,000-deep nesting and
//! 1 MB requests reach the JSON parser itself instead of the line buffer's overlong-line path.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use embedded_mcp::server::{
    CacheScope, Call, Config, Done, Handler, Output, Server, ServerInfo, ToolError, Toolbox,
};
use embedded_mcp::transport::LineReader;
use embedded_mcp_tests::hostile::{
    corpus, probe, Case, Split, LINE_BYTES, MAX_DEPTH, OUTPUT_BYTES,
};
use sensor_tools::device::{Device, TOOL_COUNT};
use serde::Serialize;

/// The firmware's tools; the board only parameterises `device_info`, which this runner's
/// handler does not implement.
type FirmwareTools = Device<NoBoard>;

/// A board for naming the firmware's [`Toolbox`].
struct NoBoard;

impl sensor_tools::Board for NoBoard {
    const FIRMWARE: &'static str = "";
    const VERSION: &'static str = "";
    const NAME: &'static str = "";
    fn uptime_ms() -> u64 {
        0
    }
    fn rx_free() -> usize {
        0
    }
    fn stack_peak() -> usize {
        0
    }
    fn stack_size() -> usize {
        0
    }
    fn sealing() -> embedded_mcp::server::approval::Sealing {
        embedded_mcp::server::approval::Sealing {
            key: embedded_mcp::server::approval::Key::provisioned([0; 32]),
            boot_salt: 0,
            clock: Self::uptime_ms,
        }
    }
    async fn sleep_ms(_ms: u64) {}
}

/// qemu-sensors' identity (`SERVER_INFO` in examples/qemu-sensors/src/mcp.rs; the QEMU runner
/// of the same corpus checks it against the firmware).
const SERVER_INFO: ServerInfo = ServerInfo::new("qemu-sensors", "0.1.0")
    .title("QEMU sensor board")
    .description("Simulated sensors and an RGB LED on an LM3S6965 (Cortex-M3) under QEMU")
    .instructions(
        "Sensor values are simulated: deterministic sequences that change on every call.",
    );

/// The firmware's tools simulated on the host: the same result shapes and LED state; sensor
/// values differ (the corpus matches them with `{NUM}`).
#[derive(Debug, Default)]
struct HostDevice {
    leds: [u8; 3],
    samples: [u32; 2],
    axes: u32,
}

#[derive(Serialize)]
struct Temperature {
    value: f32,
    unit: &'static str,
    #[serde(rename = "sensorId")]
    sensor_id: &'static str,
    sample: u32,
}

#[derive(Serialize)]
struct LedLevel {
    led: &'static str,
    brightness: u8,
    previous: u8,
}

/// An argument that the `inputSchema` already checked to be an integer.
fn integer(call: &Call<'_>, name: &str) -> Option<u8> {
    let n = call.arguments().get(name)?.as_number()?.as_f64()?;
    (n.fract() == 0.0 && (0.0..=255.0).contains(&n)).then_some(n as u8)
}

impl Handler for HostDevice {
    type Error = ToolError;

    fn call(&mut self, call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
        match call.name() {
            "read_temperature" => {
                let sensor = usize::from(integer(call, "sensor").unwrap_or(0).min(1));
                self.samples[sensor] += 1;
                Ok(out.structured(&Temperature {
                    value: [36.5, 21.0][sensor],
                    unit: "°C",
                    sensor_id: ["tmp-board", "tmp-ambient"][sensor],
                    sample: self.samples[sensor],
                }))
            }
            "read_acceleration" => {
                self.axes += 1;
                Ok(out.structured(&[0.25f32, -0.5, 9.81]))
            }
            "set_led" => {
                const NAMES: [&str; 3] = ["red", "green", "blue"];
                let channel = call
                    .arguments()
                    .get("led")
                    .and_then(|v| v.as_str())
                    .and_then(|name| NAMES.iter().position(|c| name.eq_str(c)))
                    .ok_or(ToolError::Message("unknown LED"))?;
                let brightness = integer(call, "brightness")
                    .ok_or(ToolError::Message("brightness out of range"))?;
                let previous = std::mem::replace(&mut self.leds[channel], brightness);
                Ok(out.structured(&LedLevel {
                    led: NAMES[channel],
                    brightness,
                    previous,
                }))
            }
            _ => Err(ToolError::NotImplemented),
        }
    }
}

/// The firmware's engine settings (`examples/qemu-sensors/src/mcp.rs`).
const CONFIG: Config = Config {
    page_bytes: OUTPUT_BYTES,
    ttl_ms: 300_000,
    cache_scope: CacheScope::Public,
    max_depth: MAX_DEPTH,
    ..Config::DEFAULT
};

type HostServer = Server<'static, HostDevice, TOOL_COUNT>;

fn server() -> HostServer {
    let server = Server::with_programs(
        SERVER_INFO,
        <FirmwareTools as Toolbox<TOOL_COUNT>>::TOOLS,
        <FirmwareTools as Toolbox<TOOL_COUNT>>::PROGRAMS,
        HostDevice::default(),
        CONFIG,
    )
    .expect("the firmware's definitions are valid");
    assert!(server.required_output_len() <= OUTPUT_BYTES);
    server
}

/// The host's side of the line: bytes queued by the test, handed out in the case's write sizes
/// (a read never spans two writes); end of stream when the queue is empty.
#[derive(Default)]
struct Wire {
    writes: VecDeque<Vec<u8>>,
}

impl Wire {
    fn send(&mut self, bytes: &[u8], split: Split) {
        let size = match split {
            Split::Whole => bytes.len().max(1),
            Split::ByteByByte => 1,
            Split::Chunks(n) => n,
        };
        self.writes.extend(bytes.chunks(size).map(<[u8]>::to_vec));
    }
}

impl embedded_io::ErrorType for Wire {
    type Error = core::convert::Infallible;
}

impl embedded_io::Read for Wire {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        let Some(front) = self.writes.front_mut() else {
            return Ok(0);
        };
        let n = buf.len().min(front.len());
        buf[..n].copy_from_slice(&front[..n]);
        front.drain(..n);
        if front.is_empty() {
            self.writes.pop_front();
        }
        Ok(n)
    }
}

/// Collects responses, checking that each is written whole and flushed.
#[derive(Default)]
struct Responses {
    bytes: Vec<u8>,
    flushes: usize,
}

impl embedded_io::ErrorType for Responses {
    type Error = core::convert::Infallible;
}

impl embedded_io::Write for Responses {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        self.flushes += 1;
        Ok(())
    }
}

/// Splits written bytes into lines, checking the framing of each (LF-terminated, UTF-8, JSON).
fn response_lines(out: &Responses) -> Vec<String> {
    assert!(
        out.bytes.is_empty() || out.bytes.ends_with(b"\n"),
        "a partial response line was written"
    );
    let text = std::str::from_utf8(&out.bytes).expect("responses are UTF-8");
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    assert_eq!(out.flushes, lines.len(), "one flush per response line");
    for line in &lines {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("response is not JSON ({e}): {line}"));
    }
    lines
}

#[test]
fn corpus_has_at_least_100_named_cases() {
    let cases = corpus();
    assert!(cases.len() >= 100, "{} cases", cases.len());
    let mut names: Vec<&str> = cases.iter().map(|c| c.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), cases.len(), "case names are unique");
    for case in &cases {
        assert!(case.input.ends_with(b"\n"), "{} ends with LF", case.name);
    }
}

#[test]
fn every_case_gets_its_expected_answer_and_the_next_request_is_served() {
    serve_in_order(&corpus());
}

#[test]
fn the_smaller_stand_ins_sent_over_the_uart_get_the_same_answers() {
    let full = corpus();
    let uart: Vec<Case> = full.iter().cloned().map(Case::for_uart).collect();
    let mut stand_ins = 0;
    for (full, small) in full.iter().zip(&uart) {
        if !full.has_uart_stand_in() {
            assert_eq!(full.input, small.input, "{}", full.name);
            continue;
        }
        stand_ins += 1;
        assert!(
            small.input.len() <= full.input.len() / 10,
            "{}: stand-in of {} bytes",
            full.name,
            small.input.len()
        );
        let lines = |bytes: &[u8]| bytes.iter().filter(|&&b| b == b'\n').count();
        if lines(&full.input) == 1 {
            // One overlong line for another: still too long for the line buffer, same answer.
            assert_eq!(lines(&small.input), 1, "{}", full.name);
            assert!(small.input.len() > LINE_BYTES + 1, "{}", full.name);
            assert_eq!(full.replies, small.replies, "{}", full.name);
        } else {
            // Fewer requests: the first answers of the full case.
            assert!(full.replies.starts_with(&small.replies), "{}", full.name);
        }
    }
    assert_eq!(stand_ins, 7);
    // Exactly one case of a megabyte or more is left over the UART.
    let big: Vec<&str> = uart
        .iter()
        .filter(|case| case.input.len() >= 1 << 20)
        .map(|case| case.name)
        .collect();
    assert_eq!(big, ["one_megabyte_line_with_id_last"]);
    serve_in_order(&uart);
}

/// Serves `cases` in order on one server and one reader configured as the firmware, each
/// followed by its probe, and checks every response line.
fn serve_in_order(cases: &[Case]) {
    let mut server = server();
    let mut reader = LineReader::<Wire, LINE_BYTES>::new(Wire::default());
    let mut out = vec![0u8; OUTPUT_BYTES];
    let mut failures = Vec::new();
    let started = Instant::now();
    for case in cases {
        let (probe_line, _) = probe(case.name);
        reader.inner_mut().send(&case.input, case.split);
        reader.inner_mut().send(probe_line.as_bytes(), Split::Whole);
        let mut written = Responses::default();
        let case_start = Instant::now();
        server
            .serve(&mut reader, &mut written, &mut out)
            .unwrap_or_else(|e| panic!("serve failed: {e:?}"));
        let took = case_start.elapsed();
        assert!(
            took < Duration::from_secs(10),
            "case {} took {took:?}",
            case.name
        );
        if let Err(e) = case.check(&response_lines(&written)) {
            failures.push(e);
        }
    }
    println!(
        "{} cases in {:?}; engine stats: {:?}",
        cases.len(),
        started.elapsed(),
        server.stats()
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn with_a_two_mebibyte_line_buffer_the_parser_itself_bounds_depth_and_length() {
    // The 2 MiB reader is built on the stack before it is boxed (debug builds): give it room.
    std::thread::Builder::new()
        .stack_size(32 << 20)
        .spawn(big_buffer)
        .unwrap()
        .join()
        .unwrap();
}

fn big_buffer() {
    const BIG: usize = 2 << 20;
    let mut server = server();
    let mut reader = Box::new(LineReader::<Wire, BIG>::new(Wire::default()));
    let mut out = vec![0u8; OUTPUT_BYTES];
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"x\":{}{}}}}}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let unclosed = format!("{{\"id\":2,\"a\":{}\n", "{\"a\":".repeat(100_000));
    let long = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}\n",
        "p".repeat(1 << 20)
    );
    let deep_root = format!("{}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    for (input, expected) in [
        (
            deep.as_str(),
            Some(
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid request: the message is nested deeper than the device accepts"}}"#,
            ),
        ),
        (
            unclosed.as_str(),
            Some(
                r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid request: the message is nested deeper than the device accepts"}}"#,
            ),
        ),
        (
            long.as_str(),
            Some(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
        ),
        (deep_root.as_str(), None),
    ] {
        reader.inner_mut().send(input.as_bytes(), Split::Whole);
        reader.inner_mut().send(
            b"{\"jsonrpc\":\"2.0\",\"id\":\"next\",\"method\":\"ping\"}\n",
            Split::Whole,
        );
        let mut written = Responses::default();
        let started = Instant::now();
        server.serve(&mut *reader, &mut written, &mut out).unwrap();
        assert!(started.elapsed() < Duration::from_secs(5));
        let lines = response_lines(&written);
        let mut want: Vec<&str> = expected.into_iter().collect();
        want.push(r#"{"jsonrpc":"2.0","id":"next","result":{}}"#);
        assert_eq!(lines, want);
    }
}
