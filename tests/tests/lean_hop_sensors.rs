//! The lean hop is invisible to hosts: every tool of the example firmware (the sensor tools of
//! `examples/sensor-tools`, and its chip tools for real boards) served on the host by the
//! engine, once to the host's own lines (both channels, as a device asked directly answers)
//! and once to the lines the bridge sends (`lean_hop::for_device`: trimmed `_meta` and the lean
//! ask). Each answer of the second run, restored by `lean_hop::restore_for_host`, must be byte
//! for byte the answer of the first; structured results must have come back lean.

use embedded_mcp::server::{AsyncHandler, CacheScope, Config, Server, ServerInfo};
use embedded_mcp::transport::LineReader;
use embedded_mcp_std::bridge::lean_hop::{for_device, restore_for_host, Hop};
use sensor_tools::chip::{Chip, ChipTools};
use sensor_tools::device::TOOL_COUNT;

/// A board whose clock stands still.
struct StillBoard;

impl sensor_tools::Board for StillBoard {
    const FIRMWARE: &'static str = "lean-test";
    const VERSION: &'static str = "1.0.0";
    const NAME: &'static str = "host";
    fn uptime_ms() -> u64 {
        1000
    }
    fn rx_free() -> usize {
        256
    }
    fn stack_peak() -> usize {
        2048
    }
    fn stack_size() -> usize {
        16384
    }
    fn sealing() -> embedded_mcp::server::approval::Sealing {
        embedded_mcp::server::approval::Sealing {
            key: embedded_mcp::server::approval::Key::provisioned([7; 32]),
            boot_salt: 1,
            clock: Self::uptime_ms,
        }
    }
    async fn sleep_ms(_ms: u64) {}
}

/// A chip at 27.50 °C with its LED off.
struct StillChip(bool);

impl Chip for StillChip {
    const SENSOR_ID: &'static str = "die";
    async fn temperature_centi(&mut self) -> Result<i32, &'static str> {
        Ok(2750)
    }
    async fn set_led(&mut self, on: bool) -> bool {
        core::mem::replace(&mut self.0, on)
    }
}

/// Polls a future whose I/O never waits and whose timers are due at once.
fn block_on<F: core::future::Future>(f: F) -> F::Output {
    let mut f = core::pin::pin!(f);
    let mut cx = core::task::Context::from_waker(core::task::Waker::noop());
    loop {
        if let core::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// Serves `lines` (each with its LF) and returns the answer lines.
fn serve<H: AsyncHandler, const N: usize>(
    server: &mut Server<'_, H, N>,
    lines: &[Vec<u8>],
) -> Vec<String> {
    let input: Vec<u8> = lines.concat();
    // The firmware's 512-byte line buffer.
    let mut reader: LineReader<&[u8], 512> = LineReader::new(&input);
    let mut written = vec![0u8; 1 << 17];
    let mut out = [0u8; 1400];
    let mut sink: &mut [u8] = &mut written;
    block_on(server.serve_async(&mut reader, &mut sink, &mut out)).expect("serve");
    let len = (1 << 17) - sink.len();
    String::from_utf8(written[..len].to_vec())
        .expect("UTF-8")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The `_meta` of an SDK's 2026-07-28 request (short enough for the firmware's line buffer).
const SDK_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"sdk","version":"1.2.3"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"roots":{},"experimental":{}}"#;

fn call_2026(id: u32, tool: &str, arguments: &str, more_meta: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{SDK_META}{more_meta}}},"name":"{tool}","arguments":{arguments}}}}}"#
    )
}

fn call_legacy(id: u32, tool: &str, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
    )
}

/// Every tool of the sensor firmware, with good and refused arguments.
fn sensor_calls(call: &dyn Fn(u32, &str, &str) -> String) -> Vec<String> {
    vec![
        call(1, "read_temperature", "{}"),
        call(2, "read_temperature", r#"{"sensor":1}"#),
        call(3, "read_temperature", r#"{"sensor":9}"#),
        call(4, "read_acceleration", "{}"),
        call(5, "set_led", r#"{"led":"green","brightness":40}"#),
        call(6, "set_led", r#"{"led":"red","brightness":100}"#),
        call(7, "device_info", "{}"),
        call(8, "sample_temperature", "{}"),
        // Off needs no approval: a structured result.
        call(9, "set_relay", r#"{"relay":0,"on":false}"#),
        // On: input_required (2026-07-28), a tool error (legacy).
        call(10, "set_relay", r#"{"relay":1,"on":true}"#),
        call(11, "no_such_tool", "{}"),
    ]
}

fn chip_calls(call: &dyn Fn(u32, &str, &str) -> String) -> Vec<String> {
    vec![
        call(1, "read_temperature", "{}"),
        call(2, "set_led", r#"{"on":true}"#),
        call(3, "set_led", r#"{"on":false}"#),
    ]
}

/// `calls` after a legacy handshake.
fn legacy_session(calls: Vec<String>) -> Vec<String> {
    let mut lines = vec![
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
    ];
    lines.extend(calls);
    lines
}

/// The host's lines, and the bridge's lines for them: `set_relay`, the tool that asks, keeps
/// the host's capabilities (as the router sends it once the device said it needs them).
fn both(lines: &[String]) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let host = lines
        .iter()
        .map(|l| format!("{l}\n").into_bytes())
        .collect();
    let bridge = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let hop = Hop {
                client_info: i == 0,
                call_capabilities: l.contains(r#""name":"set_relay""#),
            };
            let edit = for_device(l.as_bytes(), hop);
            let mut line = edit.line.unwrap_or_else(|| l.as_bytes().to_vec());
            line.push(b'\n');
            line
        })
        .collect();
    (host, bridge)
}

/// Checks the bridge's answers against the host's (`stateless`: to 2026-07-28 requests); the
/// number of lean results.
fn compare(direct: &[String], lean: &[String], stateless: bool) -> usize {
    assert_eq!(direct.len(), lean.len(), "{direct:#?}\n{lean:#?}");
    let mut restored = 0;
    for (d, l) in direct.iter().zip(lean) {
        let seen = match restore_for_host(l.as_bytes(), stateless) {
            Some(full) => {
                restored += 1;
                assert!(l.len() < d.len(), "a lean result is shorter: {l}");
                String::from_utf8(full).unwrap()
            }
            None => l.clone(),
        };
        assert_eq!(&seen, d, "what the host sees");
    }
    restored
}

fn sensor_server() -> sensor_tools::server::SensorServer<StillBoard> {
    let info = ServerInfo::new("qemu-sensors", "0.1.0");
    sensor_tools::server::server::<StillBoard>(info).expect("definitions")
}

const _: () = assert!(TOOL_COUNT == 6);

#[test]
fn every_sensor_tool_in_2026_looks_the_same_to_the_host() {
    let with_logs = r#","progressToken":"p","io.modelcontextprotocol/logLevel":"debug""#;
    let mut lines = sensor_calls(&|id, tool, args| call_2026(id, tool, args, ""));
    lines.push(call_2026(
        12,
        "sample_temperature",
        r#"{"samples":3}"#,
        with_logs,
    ));
    lines.push(call_2026(13, "read_temperature", "{}", with_logs));
    let (host, bridge) = both(&lines);
    let direct = serve(&mut sensor_server(), &host);
    let lean = serve(&mut sensor_server(), &bridge);
    assert!(direct.iter().any(|l| l.contains("notifications/progress")));
    assert!(direct.iter().any(|l| l.contains("input_required")));
    assert_eq!(compare(&direct, &lean, true), 10);
}

#[test]
fn the_asking_tool_without_capabilities_answers_32021_which_teaches_the_router() {
    let line = call_2026(1, "set_relay", r#"{"relay":1,"on":true}"#, "");
    let hop = Hop {
        client_info: false,
        call_capabilities: false,
    };
    let edit = for_device(line.as_bytes(), hop);
    assert!(edit.capabilities_left_out);
    let mut sent = edit.line.unwrap();
    sent.push(b'\n');
    let answers = serve(&mut sensor_server(), &[sent]);
    assert!(answers[0].contains(r#""code":-32021"#), "{answers:?}");
}

#[test]
fn every_sensor_tool_in_a_legacy_session_looks_the_same_to_the_host() {
    let lines = legacy_session(sensor_calls(&call_legacy));
    let (host, bridge) = both(&lines);
    let direct = serve(&mut sensor_server(), &host);
    let lean = serve(&mut sensor_server(), &bridge);
    assert_eq!(compare(&direct, &lean, false), 8);
}

#[test]
fn every_chip_tool_looks_the_same_to_the_host() {
    let config = Config {
        page_bytes: 1200,
        ttl_ms: 300_000,
        cache_scope: CacheScope::Public,
        max_depth: 16,
        ..Config::DEFAULT
    };
    let modern = chip_calls(&|id, tool, args| call_2026(id, tool, args, ""));
    for (lines, stateless) in [
        (modern, true),
        (legacy_session(chip_calls(&call_legacy)), false),
    ] {
        let (host, bridge) = both(&lines);
        let mut a = Server::from_tools_with_config(
            ServerInfo::new("chip", "1"),
            ChipTools::new(StillChip(false)),
            config,
        )
        .unwrap();
        let mut b = Server::from_tools_with_config(
            ServerInfo::new("chip", "1"),
            ChipTools::new(StillChip(false)),
            config,
        )
        .unwrap();
        let direct = serve(&mut a, &host);
        let lean = serve(&mut b, &bridge);
        assert_eq!(compare(&direct, &lean, stateless), 3);
    }
}
