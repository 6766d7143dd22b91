//! The wire budget of a real UART (issue 37): what each phase of a session costs on a serial
//! link, with the bridge's lean hop off (main's behaviour before it, "before") and on
//! ("after"), measured in one run.
//!
//! - The device: the example firmware's tools (`examples/sensor-tools`, the server the QEMU
//!   sensor boards run, with its 512-byte line buffer and 1,400-byte output buffer), served by
//!   the engine on the host over loopback TCP.
//! - The link: a proxy between the bridge and the device that lets bytes through at a UART's
//!   pace (8N1: 10 bits a byte) in each direction, and counts them.
//! - The host: `embedded_mcp_std::bridge::run` in process (`bridge --tcp` to the proxy), its host
//!   streams one end of a unix socket pair.
//!
//! Phases: the first `tools/list` of a legacy session and of 2026-07-28, a repeated
//! `tools/list` of each, `tools/call read_temperature` legacy and 2026-07-28 with the `_meta`
//! an SDK sends (the median of `CALLS` calls). The floor of a call is the request without
//! `_meta` plus a response carrying `structuredContent` alone, at the baud rate. Every host
//! answer of the "after" run must be byte for byte the "before" run's (the bench fails
//! otherwise).
//!
//! Run: `cargo bench -p embedded-mcp-benches --bench wire_budget`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use embedded_mcp::server::ServerInfo;
use embedded_mcp::transport::LineReader;
use embedded_mcp_std::bridge::{self, BridgeConfig};
use embedded_mcp_std::device::{Endpoint, Logger};

/// Calls timed per era (the median is reported).
const CALLS: usize = 20;
/// The baud rates measured.
const BAUDS: [u64; 2] = [115_200, 921_600];
/// The `_meta` of a 2026-07-28 request as an SDK sends it: the version, the client's info and
/// every capability it has.
const SDK_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"example-client","version":"1.4.0"},"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}}}}"#;

// ---- The device: the firmware's tools on loopback TCP ----

/// A board whose clock stands still (nothing timed depends on it).
struct BenchBoard;

impl sensor_tools::Board for BenchBoard {
    const FIRMWARE: &'static str = "qemu-sensors";
    const VERSION: &'static str = "0.1.0";
    const NAME: &'static str = "bench";
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

/// A non-blocking TCP stream as the engine's async reader and writer.
struct Tcp(TcpStream);

impl embedded_io_async::ErrorType for Tcp {
    type Error = std::io::Error;
}

fn ready<T>(r: std::io::Result<T>) -> Poll<std::io::Result<T>> {
    match r {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Poll::Pending,
        r => Poll::Ready(r),
    }
}

impl embedded_io_async::Read for Tcp {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        std::future::poll_fn(|_| ready(self.0.read(buf))).await
    }
}

impl embedded_io_async::Write for Tcp {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        std::future::poll_fn(|_| ready(self.0.write(buf))).await
    }
    async fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Runs a future to its end, polling every 20 µs while it waits for the socket.
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::sleep(Duration::from_micros(20));
    }
}

/// Starts the device; its address. Each connection gets a device at power-on.
fn device() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().expect("address").to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            std::thread::spawn(move || {
                let _ = stream.set_nodelay(true);
                stream.set_nonblocking(true).expect("non-blocking");
                let info = ServerInfo::new("qemu-sensors", "0.1.0");
                let mut server =
                    sensor_tools::server::server::<BenchBoard>(info).expect("definitions");
                let mut writer = Tcp(stream.try_clone().expect("clone"));
                let mut reader: LineReader<Tcp, { sensor_tools::server::INPUT_LINE_BYTES }> =
                    LineReader::new(Tcp(stream));
                let mut out = [0u8; sensor_tools::server::OUTPUT_BYTES];
                let _ = block_on(server.serve_async(&mut reader, &mut writer, &mut out));
            });
        }
    });
    addr
}

// ---- The link: a throttling, counting proxy ----

/// Bytes through the link, each way.
#[derive(Default)]
struct Counts {
    to_device: AtomicU64,
    from_device: AtomicU64,
}

impl Counts {
    fn now(&self) -> (u64, u64) {
        (
            self.to_device.load(Ordering::SeqCst),
            self.from_device.load(Ordering::SeqCst),
        )
    }
}

/// Copies `from` to `to` at `baud` (10 bits a byte): a chunk arrives when its last byte would
/// have, after the bytes before it.
fn pump(mut from: TcpStream, mut to: TcpStream, baud: u64, count: Arc<Counts>, down: bool) {
    let byte = Duration::from_nanos(10_000_000_000 / baud);
    let mut free = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        free = free.max(Instant::now()) + byte * n as u32;
        let wait = free.saturating_duration_since(Instant::now());
        std::thread::sleep(wait);
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
        let counter = if down {
            &count.to_device
        } else {
            &count.from_device
        };
        counter.fetch_add(n as u64, Ordering::SeqCst);
    }
    let _ = to.shutdown(std::net::Shutdown::Both);
}

/// A proxy to `device` at `baud`; its address and its counts.
fn link(device: &str, baud: u64) -> (String, Arc<Counts>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().expect("address").to_string();
    let counts = Arc::new(Counts::default());
    let device = device.to_string();
    let shared = counts.clone();
    std::thread::spawn(move || {
        for bridge_side in listener.incoming() {
            let Ok(bridge_side) = bridge_side else { return };
            let Ok(device_side) = TcpStream::connect(&device) else {
                return;
            };
            let _ = bridge_side.set_nodelay(true);
            let _ = device_side.set_nodelay(true);
            let (b2, d2) = (
                bridge_side.try_clone().expect("clone"),
                device_side.try_clone().expect("clone"),
            );
            let (c1, c2) = (shared.clone(), shared.clone());
            std::thread::spawn(move || pump(bridge_side, device_side, baud, c1, true));
            std::thread::spawn(move || pump(d2, b2, baud, c2, false));
        }
    });
    (addr, counts)
}

// ---- The host ----

/// A host on the bridge's stdio.
struct Host {
    out: UnixStream,
    lines: BufReader<UnixStream>,
    counts: Arc<Counts>,
    /// Every answer read, in order.
    answers: Vec<String>,
}

/// What one request cost.
#[derive(Clone, Copy, Default)]
struct Cost {
    ms: f64,
    to_device: u64,
    from_device: u64,
}

impl Host {
    fn start(link: &str, counts: Arc<Counts>, lean: bool) -> Self {
        let (ours, theirs) = UnixStream::pair().expect("socket pair");
        let host_in = theirs.try_clone().expect("clone");
        let mut config = BridgeConfig::new(Endpoint::Tcp(link.to_string()));
        config.timeout = Duration::from_secs(60);
        config.lean_hop = lean;
        let log = Logger::to_writer(0, "bench", Box::new(std::io::sink()));
        std::thread::spawn(move || {
            let _ = bridge::run(config, host_in, theirs, log);
        });
        Host {
            out: ours.try_clone().expect("clone"),
            lines: BufReader::new(ours),
            counts,
            answers: Vec::new(),
        }
    }

    /// Sends `line` and reads up to the answer with id `id`; what it cost.
    fn request(&mut self, line: &str, id: u32) -> Cost {
        let (to0, from0) = self.counts.now();
        let start = Instant::now();
        self.out
            .write_all(format!("{line}\n").as_bytes())
            .expect("write");
        let head = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},");
        let answer = loop {
            let mut answer = String::new();
            let n = self.lines.read_line(&mut answer).expect("read");
            assert!(n > 0, "the bridge closed");
            if answer.starts_with(&head) {
                break answer;
            }
        };
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let (to1, from1) = self.counts.now();
        self.answers.push(answer);
        Cost {
            ms,
            to_device: to1 - to0,
            from_device: from1 - from0,
        }
    }

    fn notify(&mut self, line: &str) {
        self.out
            .write_all(format!("{line}\n").as_bytes())
            .expect("write");
    }
}

// ---- The session ----

fn list(id: u32, modern: bool) -> String {
    let params = if modern {
        format!(r#","params":{{{SDK_META}}}"#)
    } else {
        String::new()
    };
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"{params}}}"#)
}

fn call(id: u32, meta: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{meta}"name":"read_temperature","arguments":{{}}}}}}"#
    )
}

/// The phases of one session.
#[derive(Default)]
struct Session {
    legacy_list: Cost,
    legacy_list_again: Cost,
    legacy_call: Cost,
    modern_list: Cost,
    modern_list_again: Cost,
    modern_call: Cost,
    /// The floors of a legacy and a 2026-07-28 call, in bytes.
    floor: (u64, u64),
    /// Bytes of the tool definitions (legacy, 2026-07-28).
    definitions: (usize, usize),
    answers: Vec<String>,
}

/// The median of each field of `costs`.
fn median(mut costs: Vec<Cost>) -> Cost {
    let mid = costs.len() / 2;
    costs.sort_by(|a, b| a.ms.total_cmp(&b.ms));
    let ms = costs[mid].ms;
    costs.sort_by_key(|c| c.to_device);
    let to_device = costs[mid].to_device;
    costs.sort_by_key(|c| c.from_device);
    Cost {
        ms,
        to_device,
        from_device: costs[mid].from_device,
    }
}

/// The bytes of the tool definitions in a `tools/list` answer, each as the device wrote it.
fn definitions(answer: &str) -> usize {
    let message = embedded_mcp::json::Value::parse(answer.trim_end().as_bytes()).expect("JSON");
    let tools = message
        .get("result")
        .and_then(|r| r.get("tools"))
        .and_then(|t| t.elements())
        .expect("tools");
    tools.map(|t| t.raw().len()).sum()
}

/// The floor of a call in bytes: `request` (without `_meta`) and LF, and the answer with
/// `structuredContent` alone and LF.
fn floor(request: &str, id: u32, answer: &str) -> u64 {
    let message = embedded_mcp::json::Value::parse(answer.trim_end().as_bytes()).expect("JSON");
    let structured = message
        .get("result")
        .and_then(|r| r.get("structuredContent"))
        .expect("structuredContent");
    let bare = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"structuredContent":{}}}}}"#,
        structured.raw()
    );
    (request.len() + 1 + bare.len() + 1) as u64
}

fn session(device: &str, baud: u64, lean: bool) -> Session {
    let (addr, counts) = link(device, baud);
    let mut host = Host::start(&addr, counts, lean);
    let mut s = Session::default();
    host.request(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"example-client","version":"1.4.0"}}}"#,
        0,
    );
    host.notify(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    s.legacy_list = host.request(&list(1, false), 1);
    s.definitions.0 = definitions(host.answers.last().expect("answer"));
    s.legacy_list_again = host.request(&list(2, false), 2);
    let mut costs = Vec::new();
    for i in 0..CALLS as u32 {
        costs.push(host.request(&call(10 + i, ""), 10 + i));
    }
    s.legacy_call = median(costs);
    s.floor.0 = floor(&call(10, ""), 10, &host.answers[3]);
    s.modern_list = host.request(&list(3, true), 3);
    s.definitions.1 = definitions(host.answers.last().expect("answer"));
    s.modern_list_again = host.request(&list(4, true), 4);
    let meta = format!("{SDK_META},");
    let mut costs = Vec::new();
    for i in 0..CALLS as u32 {
        costs.push(host.request(&call(100 + i, &meta), 100 + i));
    }
    s.modern_call = median(costs);
    let first_modern = host.answers.len() - CALLS;
    s.floor.1 = floor(&call(100, ""), 100, &host.answers[first_modern]);
    s.answers = host.answers;
    s
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument names a filter this bench has not.
    let device = device();
    println!(
        "Wire budget (issue 37): bytes and ms per phase through a UART-paced link (8N1), lean hop off (before) and on (after); calls: median of {CALLS}; load {}",
        embedded_mcp_benches::measure::load_average()
    );
    for baud in BAUDS {
        let before = session(&device, baud, false);
        let after = session(&device, baud, true);
        assert_eq!(
            before.answers, after.answers,
            "the host must see the same answers with the lean hop"
        );
        let ms_of = |bytes: u64| bytes as f64 * 10_000.0 / baud as f64;
        println!("\n{baud} baud: phase | before: ms, bytes to/from device | after: ms, bytes to/from device | floor ms | before/floor | after/floor");
        let rows: [(&str, Cost, Cost, Option<u64>); 6] = [
            (
                "legacy tools/call",
                before.legacy_call,
                after.legacy_call,
                Some(before.floor.0),
            ),
            (
                "2026-07-28 tools/call, SDK _meta",
                before.modern_call,
                after.modern_call,
                Some(before.floor.1),
            ),
            (
                "first tools/list, legacy",
                before.legacy_list,
                after.legacy_list,
                None,
            ),
            (
                "first tools/list, 2026-07-28",
                before.modern_list,
                after.modern_list,
                None,
            ),
            (
                "repeated tools/list, legacy",
                before.legacy_list_again,
                after.legacy_list_again,
                None,
            ),
            (
                "repeated tools/list, 2026-07-28",
                before.modern_list_again,
                after.modern_list_again,
                None,
            ),
        ];
        for (name, b, a, floor) in rows {
            let (floor_ms, rb, ra) = match floor {
                Some(bytes) => {
                    let f = ms_of(bytes);
                    (
                        format!("{f:.1} ({bytes} B)"),
                        format!("{:.2}x", b.ms / f),
                        format!("{:.2}x", a.ms / f),
                    )
                }
                None => ("-".into(), "-".into(), "-".into()),
            };
            println!(
                "| {name} | {:.1} ms, {} / {} | {:.1} ms, {} / {} | {floor_ms} | {rb} | {ra} |",
                b.ms, b.to_device, b.from_device, a.ms, a.to_device, a.from_device
            );
        }
        println!(
            "tool definitions: {} B legacy, {} B 2026-07-28; first tools/list on the link (to+from, after): {} B legacy ({:.2}x), {} B 2026-07-28 ({:.2}x)",
            after.definitions.0,
            after.definitions.1,
            after.legacy_list.to_device + after.legacy_list.from_device,
            (after.legacy_list.to_device + after.legacy_list.from_device) as f64
                / after.definitions.0 as f64,
            after.modern_list.to_device + after.modern_list.from_device,
            (after.modern_list.to_device + after.modern_list.from_device) as f64
                / after.definitions.1 as f64,
        );
    }
}
