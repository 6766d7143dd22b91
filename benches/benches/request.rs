//! A full `tools/call` request line to its response line, in process: embedded-mcp's engine
//! against the official Rust SDK `rmcp`, handling the same sensor tool in the same run.
//!
//! - embedded-mcp: the line (with its LF) goes through the transport's `LineBuffer::feed`, the
//!   engine parses and dispatches it, checks the arguments against `inputSchema`, runs the
//!   handler, encodes the result (structured + text), checks it against `outputSchema` and
//!   writes the response line into a stack buffer. No allocation (counted below).
//! - rmcp: a `ServerHandler` served by `rmcp::ServiceExt::serve` over a `tokio::io::duplex`
//!   pipe on a current-thread runtime, after the `initialize` handshake. Each iteration writes
//!   the request line into the client end and reads the response line back: rmcp's own line
//!   codec, serde_json message types, dispatch and result encoding, plus the task hand-offs its
//!   service loop needs. The handler builds the result the SDK way
//!   (`CallToolResult::structured(serde_json::to_value(..))`).
//!
//! - embedded-mcp, no schema checks: the same tool declared with `inputSchema`
//!   `{"type":"object"}` and no `outputSchema`, so the engine checks neither the argument's
//!   properties nor the result: like for like with rmcp, which checks neither.
//!
//! After criterion's report the ratio (rmcp time / embedded-mcp time) is printed twice: from
//! criterion's medians of this run, and from an interleaved measurement
//! (`embedded_mcp_benches::measure::interleaved`), with the machine's load average.
//!
//! Run: `cargo bench -p embedded-mcp-benches --bench request`.
#![allow(unsafe_code)] // The counting global allocator below.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use std::time::SystemTime;

use criterion::{Criterion, Throughput};
use embedded_mcp::server::Server;
use embedded_mcp::transport::{FeedResult, LineBuffer};
use embedded_mcp_benches::measure::{criterion_dir, interleaved, load_average, median_ns};
use embedded_mcp_benches::sensor_tool::{
    engine, engine_with, readings, Sensors, INITIALIZE, REQUEST, TOOLS_UNCHECKED,
};
use embedded_mcp_benches::SensorReading;

/// Counts heap allocations, to show the engine's path makes none.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One request line through framing and the engine; the response length.
fn engine_round(
    server: &mut Server<'static, Sensors, 1>,
    lines: &mut LineBuffer<1024>,
    wire: &[u8],
    out: &mut [u8],
) -> usize {
    let mut n = 0;
    let mut window = wire;
    while let FeedResult::Frame { frame, remaining } = lines.feed(window) {
        n = server.handle_frame(frame, out).unwrap_or(0);
        window = remaining;
    }
    n
}

mod sdk {
    use rmcp::model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ServerCapabilities, ServerConfig,
    };
    use rmcp::service::RequestContext;
    use rmcp::{ErrorData, RoleServer, ServerHandler};

    use super::SensorReading;

    /// The same sensor tool as an rmcp server handler.
    #[derive(Clone)]
    pub struct Sensors {
        pub readings: [SensorReading; 8],
    }

    impl ServerHandler for Sensors {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        }

        async fn call_tool(
            &self,
            request: CallToolRequestParams,
            _context: RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            if request.name != "read_sensor" {
                return Err(ErrorData::invalid_params("unknown tool", None));
            }
            let channel = request
                .arguments
                .as_ref()
                .and_then(|a| a.get("channel"))
                .and_then(|c| c.as_u64())
                .ok_or_else(|| ErrorData::invalid_params("channel", None))?;
            let r = self
                .readings
                .get(channel as usize)
                .ok_or_else(|| ErrorData::invalid_params("no such channel", None))?;
            let value = serde_json::to_value(r)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            Ok(CallToolResult::structured(value).into())
        }
    }
}

/// The rmcp server on one end of an in-memory pipe, and the client end.
struct Sdk {
    rt: tokio::runtime::Runtime,
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    read: tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    line: String,
    _service: rmcp::service::RunningService<RoleServer, sdk::Sensors>,
}

use rmcp::RoleServer;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

impl Sdk {
    fn start() -> Self {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let (client, server) = tokio::io::duplex(64 * 1024);
        let (read, write) = tokio::io::split(client);
        let mut read = tokio::io::BufReader::new(read);
        let mut write = write;
        let service = rt.block_on(async {
            use rmcp::ServiceExt;
            let (sr, sw) = tokio::io::split(server);
            let serving = tokio::spawn(async move {
                sdk::Sensors {
                    readings: readings(),
                }
                .serve((sr, sw))
                .await
            });
            write.write_all(INITIALIZE.as_bytes()).await.expect("write");
            write.write_all(b"\n").await.expect("write");
            let mut reply = String::new();
            read.read_line(&mut reply).await.expect("initialize reply");
            write
                .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
                .await
                .expect("write");
            serving.await.expect("join").expect("rmcp serve")
        });
        Self {
            rt,
            write,
            read,
            line: String::new(),
            _service: service,
        }
    }

    /// One request line in, one response line out; the response length.
    fn round(&mut self, wire: &[u8]) -> usize {
        let Self {
            rt,
            write,
            read,
            line,
            ..
        } = self;
        rt.block_on(async {
            write.write_all(wire).await.expect("write");
            line.clear();
            read.read_line(line).await.expect("read")
        })
    }
}

fn show(label: &str, bytes: &[u8]) {
    println!("{label}: {}", String::from_utf8_lossy(bytes).trim_end());
}

fn bench(c: &mut Criterion) -> Measured {
    let wire = format!("{REQUEST}\n");
    let wire = wire.as_bytes();

    let mut server = engine();
    let mut lines = LineBuffer::<1024>::new();
    let mut out = [0u8; 1024];
    let n = engine_round(&mut server, &mut lines, wire, &mut out);
    show("embedded-mcp", &out[..n]);
    let mut sdk = Sdk::start();
    let m = sdk.round(wire);
    show("rmcp        ", sdk.line.as_bytes());
    assert!(n > 0 && m > 0, "both answer");

    // Allocations per request, outside the timed loops.
    const ROUNDS: usize = 1000;
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for _ in 0..ROUNDS {
        black_box(engine_round(&mut server, &mut lines, wire, &mut out));
    }
    let ours = ALLOCATIONS.load(Ordering::Relaxed) - before;
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for _ in 0..ROUNDS {
        black_box(sdk.round(wire));
    }
    let theirs = ALLOCATIONS.load(Ordering::Relaxed) - before;
    println!(
        "heap allocations per request: embedded-mcp {}, rmcp {}",
        ours as f64 / ROUNDS as f64,
        theirs as f64 / ROUNDS as f64
    );
    assert_eq!(ours, 0, "the engine's request path allocates nothing");

    let mut unchecked = engine_with(&TOOLS_UNCHECKED);
    let n = engine_round(&mut unchecked, &mut lines, wire, &mut out);
    show("embedded-mcp, no schema checks", &out[..n]);

    let mut group = c.benchmark_group("tools_call_line");
    group.throughput(Throughput::Elements(1));
    group.bench_function("embedded-mcp", |b| {
        b.iter(|| engine_round(&mut server, &mut lines, black_box(wire), &mut out))
    });
    group.bench_function("embedded-mcp-unchecked", |b| {
        b.iter(|| engine_round(&mut unchecked, &mut lines, black_box(wire), &mut out))
    });
    group.bench_function("rmcp", |b| b.iter(|| sdk.round(black_box(wire))));
    group.finish();
    Measured {
        server,
        unchecked,
        lines,
        out,
        sdk,
        wire: wire.to_vec(),
    }
}

/// The two servers, ready for the interleaved measurement after criterion's.
struct Measured {
    server: Server<'static, Sensors, 1>,
    /// The same tool without `properties` in `inputSchema` and without `outputSchema`.
    unchecked: Server<'static, Sensors, 1>,
    lines: LineBuffer<1024>,
    out: [u8; 1024],
    sdk: Sdk,
    wire: Vec<u8>,
}

fn main() {
    let dir = criterion_dir();
    let started = SystemTime::now();
    let mut c = Criterion::default().configure_from_args();
    let Measured {
        mut server,
        mut unchecked,
        mut lines,
        mut out,
        mut sdk,
        wire,
    } = bench(&mut c);
    c.final_summary();
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--test" || a == "--list") {
        return; // `cargo test --benches` or a listing: no measurements
    }
    println!();
    println!(
        "load average at the end of criterion's run: {}",
        load_average()
    );
    let report = |how: &str, ours: f64, theirs: f64| {
        println!(
            "  {how:<29} embedded-mcp {ours:>9.1} ns  rmcp {theirs:>9.1} ns  ratio {:>5.2}x  (target >= 10x: {})",
            theirs / ours,
            if theirs / ours >= 10.0 { "met" } else { "NOT met" }
        );
    };
    println!("ratios of a tools/call request line to its response line (rmcp / embedded-mcp):");
    match (
        median_ns(&dir, "tools_call_line", "embedded-mcp", started),
        median_ns(&dir, "tools_call_line", "rmcp", started),
    ) {
        (Some(ours), Some(theirs)) => report("medians", ours, theirs),
        _ => println!("  medians      not measured in this run"),
    }
    match (
        median_ns(&dir, "tools_call_line", "embedded-mcp-unchecked", started),
        median_ns(&dir, "tools_call_line", "rmcp", started),
    ) {
        (Some(ours), Some(theirs)) => report("medians, no schema checks", ours, theirs),
        _ => println!("  medians, no schema checks: not measured in this run"),
    }
    let (ours, theirs) = interleaved(
        || {
            black_box(engine_round(
                &mut server,
                &mut lines,
                black_box(&wire),
                &mut out,
            ));
        },
        || {
            black_box(sdk.round(black_box(&wire)));
        },
    );
    report("interleaved", ours, theirs);
    let (ours, theirs) = interleaved(
        || {
            black_box(engine_round(
                &mut unchecked,
                &mut lines,
                black_box(&wire),
                &mut out,
            ));
        },
        || {
            black_box(sdk.round(black_box(&wire)));
        },
    );
    report("interleaved, no schema checks", ours, theirs);
    println!("load average after the interleaved run: {}", load_average());
}
