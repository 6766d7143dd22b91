//! Shared fixture of the async engine tests: an async device (progress, logs, cancellation),
//! a scripted reader whose chunks wait for the device's output, and a checked runner.
#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::OnceLock;
use std::task::{Context as TaskContext, Poll};

use embedded_mcp::protocol::LogLevel;
use embedded_mcp::server::{
    AsyncHandler, Call, Clock, Config, Context, Done, Output, SchemaStorage, Server, ServerInfo,
    Stats, Tool, ToolError,
};
use embedded_mcp::transport::LineReader;
use embedded_mcp_std::mcp_schema::McpSchemas;
use embedded_mcp_tests::mcp_schema_dir;
use serde::{Deserialize, Serialize};

/// `_meta` members of a 2026-07-28 request, without the braces.
pub const META26: &str = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#;

pub static TOOLS: [Tool; 5] = [
    Tool::new(
        "count",
        r#"{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":20,"default":3},"ms":{"type":"integer","minimum":0,"default":0}},"additionalProperties":false}"#,
    )
    .output_schema(r#"{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]}"#),
    Tool::new("wobble", r#"{"type":"object"}"#),
    Tool::new("hang", r#"{"type":"object"}"#),
    Tool::new("graceful", r#"{"type":"object"}"#),
    Tool::new(
        "slow",
        r#"{"type":"object","properties":{"ticks":{"type":"integer","minimum":0}},"additionalProperties":false}"#,
    ),
];

thread_local! {
    /// The test clock (milliseconds); each test runs on its own thread.
    pub static NOW: Cell<u64> = const { Cell::new(0) };
}

fn now_ms() -> u64 {
    NOW.with(Cell::get)
}

/// The firmware clock of the rate-limit tests.
pub const CLOCK: Clock = Clock(now_ms);

/// Completes at its second poll (waking itself at the first): one scheduling step.
pub struct Yield(bool);

impl Future for Yield {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

pub fn step() -> Yield {
    Yield(false)
}

/// Sets its flag when dropped (a future dropped by the engine drops it).
pub struct DropFlag(pub Rc<Cell<bool>>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.set(true);
    }
}

/// What the device saw, shared with the test.
#[derive(Debug, Default, Clone)]
pub struct Seen {
    /// A `hang` future was dropped.
    pub dropped: Rc<Cell<bool>>,
    /// `graceful` saw its cancellation and returned.
    pub stopped: Rc<Cell<bool>>,
    /// Logs the idle hook still has to send.
    pub idle_logs: Rc<Cell<u32>>,
}

pub struct Device {
    pub seen: Seen,
}

#[derive(Deserialize)]
struct CountArgs {
    #[serde(default = "three")]
    n: u32,
    #[serde(default)]
    ms: u64,
}

fn three() -> u32 {
    3
}

#[derive(Deserialize)]
struct SlowArgs {
    ticks: u32,
}

#[derive(Serialize)]
struct Count {
    count: u32,
}

impl AsyncHandler for Device {
    type Error = ToolError;

    async fn call(
        &mut self,
        call: &Call<'_>,
        out: Output<'_>,
        cx: &mut Context<'_>,
    ) -> Result<Done, ToolError> {
        match call.name() {
            "count" => {
                let args: CountArgs = call.parse(&mut [])?;
                cx.log(LogLevel::Info, Some("count"), "counting").await;
                let mut text = [0u8; 16];
                for i in 1..=args.n {
                    step().await;
                    NOW.with(|t| t.set(t.get() + args.ms));
                    cx.log(LogLevel::Debug, None, &[i]).await;
                    let message = format_step(&mut text, i);
                    cx.progress(i, Some(args.n), Some(message)).await;
                }
                if args.n > 4 {
                    cx.log(LogLevel::Warning, Some("count"), &Count { count: args.n })
                        .await;
                }
                Ok(out.structured(&Count { count: args.n }))
            }
            "wobble" => {
                let mut accepted = [false; 6];
                for (slot, p) in accepted.iter_mut().zip([1, 1, 0, 2, 2, 3]) {
                    *slot = cx.progress(p, None, None).await;
                }
                Ok(out.structured(&accepted))
            }
            "hang" => {
                let _guard = DropFlag(self.seen.dropped.clone());
                cx.progress(1, None, Some("waiting")).await;
                std::future::pending::<()>().await;
                Ok(out.text("never"))
            }
            "graceful" => {
                cx.progress(1, None, None).await;
                cx.cancelled().await;
                self.seen.stopped.set(cx.is_cancelled());
                // Nothing of this reaches the host.
                cx.log(LogLevel::Emergency, None, "after cancel").await;
                cx.progress(2, None, None).await;
                Ok(out.text("stopped"))
            }
            "slow" => {
                let args: SlowArgs = call.parse(&mut [])?;
                for _ in 0..args.ticks {
                    step().await;
                }
                Ok(out.text("slow done"))
            }
            _ => Err(ToolError::NotImplemented),
        }
    }

    async fn idle(&mut self, cx: &mut Context<'_>) {
        if self.seen.idle_logs.get() > 0 && cx.logs(LogLevel::Warning) {
            self.seen.idle_logs.set(self.seen.idle_logs.get() - 1);
            cx.log(LogLevel::Warning, Some("button"), "pressed").await;
            return;
        }
        std::future::pending::<()>().await;
    }
}

/// `step N` in `buf`.
fn format_step(buf: &mut [u8; 16], i: u32) -> &str {
    use std::io::Write;
    let mut cursor = std::io::Cursor::new(&mut buf[..]);
    write!(cursor, "step {i}").unwrap();
    let n = cursor.position() as usize;
    std::str::from_utf8(&buf[..n]).unwrap()
}

pub type Dev = Server<'static, Device, 5>;

pub fn device_with(config: Config) -> (Dev, Seen) {
    let seen = Seen::default();
    let storage = Box::leak(Box::new(SchemaStorage::<5, 8, 24, 96>::new()));
    let server = Server::with_config(
        ServerInfo::new("async-dev", "0.1.0"),
        &TOOLS,
        storage,
        Device { seen: seen.clone() },
        config,
    )
    .expect("valid definitions");
    (server, seen)
}

pub fn device() -> (Dev, Seen) {
    device_with(Config::DEFAULT)
}

/// The bytes the serve loop wrote, shared with the reader's gates.
#[derive(Debug, Default, Clone)]
pub struct Wire(pub Rc<RefCell<Vec<u8>>>);

impl Wire {
    pub fn lines(&self) -> usize {
        self.0.borrow().iter().filter(|&&b| b == b'\n').count()
    }
    pub fn text(&self) -> String {
        String::from_utf8(self.0.borrow().clone()).expect("UTF-8 output")
    }
}

impl embedded_io_async::ErrorType for Wire {
    type Error = core::convert::Infallible;
}

impl embedded_io_async::Write for Wire {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        // Partial writes, so the engine's write_all loops.
        let n = buf.len().min(7);
        self.0.borrow_mut().extend_from_slice(&buf[..n]);
        Ok(n)
    }
    async fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// A reader of scripted chunks: chunk `i` is delivered once the wire holds `gate` lines.
/// Each read returns at most `max_read` bytes.
pub struct Script {
    chunks: Vec<(usize, Vec<u8>)>,
    wire: Wire,
    max_read: usize,
    /// Bytes delivered before the wire held its first line.
    pub before_first_line: Rc<Cell<usize>>,
}

impl Script {
    pub fn new(wire: &Wire, chunks: &[(usize, &str)]) -> Self {
        Self {
            chunks: chunks
                .iter()
                .rev()
                .map(|(g, c)| (*g, c.as_bytes().to_vec()))
                .collect(),
            wire: wire.clone(),
            max_read: usize::MAX,
            before_first_line: Rc::default(),
        }
    }
    pub fn max_read(mut self, n: usize) -> Self {
        self.max_read = n;
        self
    }
}

impl embedded_io_async::ErrorType for Script {
    type Error = core::convert::Infallible;
}

impl embedded_io_async::Read for Script {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        loop {
            let Some((gate, chunk)) = self.chunks.last_mut() else {
                return Ok(0);
            };
            if self.wire.lines() >= *gate {
                let n = chunk.len().min(buf.len()).min(self.max_read);
                buf[..n].copy_from_slice(&chunk[..n]);
                chunk.drain(..n);
                if chunk.is_empty() {
                    self.chunks.pop();
                }
                if self.wire.lines() == 0 {
                    self.before_first_line.set(self.before_first_line.get() + n);
                }
                return Ok(n);
            }
            step().await;
        }
    }
}

/// Polls `f` to completion with a no-op waker; panics when it does not finish (a deadlock).
pub fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = TaskContext::from_waker(std::task::Waker::noop());
    for _ in 0..1_000_000 {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
    panic!("the serve loop did not finish");
}

/// Runs the serve loop over `chunks` with an `N`-byte line buffer; returns the output lines
/// and the engine's counters.
pub fn run_with<const N: usize>(
    server: &mut Dev,
    chunks: &[(usize, &str)],
) -> (Vec<String>, Stats) {
    let wire = Wire::default();
    let mut reader = LineReader::<_, N>::new(Script::new(&wire, chunks));
    let mut writer = wire.clone();
    let mut out = vec![0u8; 1024];
    block_on(server.serve_async(&mut reader, &mut writer, &mut out)).expect("serves");
    let text = wire.text();
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "whole lines: {text}"
    );
    (text.lines().map(str::to_owned).collect(), server.stats())
}

pub fn run(server: &mut Dev, chunks: &[(usize, &str)]) -> (Vec<String>, Stats) {
    run_with::<1024>(server, chunks)
}

/// The official schemas, loaded once.
pub fn schemas() -> &'static McpSchemas {
    static SCHEMAS: OnceLock<McpSchemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| McpSchemas::load(&mcp_schema_dir()).expect("official MCP schemas"))
}

/// Checks every line against the official schema of `version`: each notification against its
/// own definition too.
pub fn check_all(version: &str, lines: &[String]) {
    for line in lines {
        let value: serde_json::Value = serde_json::from_str(line).expect("JSON");
        schemas()
            .check_message(version, &value)
            .unwrap_or_else(|e| panic!("{e}\n{line}"));
        let def = match value.get("method").and_then(|m| m.as_str()) {
            Some("notifications/progress") => "ProgressNotification",
            Some("notifications/message") => "LoggingMessageNotification",
            Some(other) => panic!("unexpected notification {other}"),
            None => continue,
        };
        schemas()
            .check_def(version, def, &value)
            .unwrap_or_else(|e| panic!("{e}\n{line}"));
    }
}

/// A 2026-07-28 `tools/call` with more `_meta` members (`extra_meta`, may be empty).
pub fn call26(id: &str, name: &str, args: &str, extra_meta: &str) -> String {
    let sep = if extra_meta.is_empty() { "" } else { "," };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{{{META26}{sep}{extra_meta}}},"name":"{name}","arguments":{{{args}}}}}}}"#
    )
}

/// A legacy `tools/call` with `_meta` members `meta` (may be empty).
pub fn call_legacy(id: &str, name: &str, args: &str, meta: &str) -> String {
    let meta = if meta.is_empty() {
        String::new()
    } else {
        format!(r#""_meta":{{{meta}}},"#)
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{meta}"name":"{name}","arguments":{{{args}}}}}}}"#
    )
}

pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// `notifications/progress` as the engine writes it.
pub fn progress(token: &str, p: u32, total: Option<u32>, message: Option<&str>) -> String {
    let mut s = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":{p}"#
    );
    if let Some(t) = total {
        s += &format!(r#","total":{t}"#);
    }
    if let Some(m) = message {
        s += &format!(r#","message":"{m}""#);
    }
    s + "}}"
}

/// `notifications/message` as the engine writes it (`data` is JSON text).
pub fn log(level: &str, logger: Option<&str>, data: &str) -> String {
    let logger = logger
        .map(|l| format!(r#","logger":"{l}""#))
        .unwrap_or_default();
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"{level}"{logger},"data":{data}}}}}"#
    )
}
