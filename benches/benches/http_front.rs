//! `tools/call` requests per second through the HTTP front (`bridge --http`), with 1 and 16
//! concurrent keep-alive clients, in front of a fake device that answers at once; p50 and p99
//! latency. Ours is the front of this checkout, run in this process. Its peers:
//!
//! - rmcp's Streamable HTTP server (`StreamableHttpService`, the official Rust SDK), always, in
//!   this process: the same tool (`echo`, `inputSchema` `{"type":"object"}`, answer text `ok`)
//!   served by a `ServerHandler` on hyper's HTTP/1.1, stateless (2026-07-28 requests are never
//!   in a session) with `json_response`, which answers a call whose first message is its
//!   response as `application/json`, as our front does;
//! - rmcp's Streamable HTTP server forwarding to the device, always, in this process: the same
//!   server, with a `ServerHandler` that learns the tools from the same fake device over loopback
//!   TCP (`initialize`, `tools/list`) and forwards each `tools/call` to it as one line, matching
//!   the answer by id (one link shared by all clients, as a bridge built on rmcp would do). This
//!   is the like-for-like peer of our front;
//! - another `embedded-mcp` binary named by `EMCP_HTTP_PEER` (for example main's build before
//!   the hyper front), run as a process, when that variable is set.
//!
//! `cargo bench -p embedded-mcp-benches --bench http_front`
//!
//! Every side gets the same request bytes. Rounds alternate between the fronts (other processes
//! on a shared machine only slow a side down; alternating gives each the same chances), and each
//! side's best round is kept.
//!
//! Before the rounds, memory: the growth of this process's resident set (`VmRSS` of
//! /proc/self/status) while it opens `IDLE` more idle keep-alive connections, each after one call,
//! to a front, or `IDLE` more open `subscriptions/listen` streams to ours, divided by `IDLE`; all
//! stay open until the last measurement. The fronts run in this process; the client side of each connection is a socket and no
//! buffer, so the growth is the front's (and the kernel's socket memory is not in it).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use embedded_mcp_benches::measure::load_average;
use embedded_mcp_std::bridge::http::{serve_on, HttpConfig, Limits};
use embedded_mcp_std::bridge::BridgeConfig;
use embedded_mcp_std::device::{Endpoint, Logger};

/// Length of one measured round.
const ROUND: Duration = Duration::from_millis(1500);
/// Rounds per side and client count.
const ROUNDS: usize = 4;
/// Connections (or listen streams) held open to measure the memory of one.
const IDLE: usize = 400;

const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"n":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

/// A device on a loopback port that answers every request at once (one link at a time).
fn fake_device() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let _ = stream.set_nodelay(true);
            let mut out = stream.try_clone().unwrap();
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { break };
                let Ok(msg) = serde_json::from_str::<serde_json::Value>(&line) else {
                    continue;
                };
                let Some(id) = msg.get("id") else { continue };
                let result = match msg["method"].as_str() {
                    Some("initialize") => serde_json::json!({
                        "protocolVersion": msg["params"]["protocolVersion"],
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "bench", "version": "1"}}),
                    Some("tools/list") => serde_json::json!({"tools": [
                        {"name": "echo", "inputSchema": {"type": "object"}}], "resultType": "complete"}),
                    Some("tools/call") => serde_json::json!({
                        "content": [{"type": "text", "text": "ok"}], "resultType": "complete"}),
                    _ => serde_json::json!({}),
                };
                let answer = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result});
                // One write per line (`writeln!` may make two, and Nagle then waits for an ACK).
                if out.write_all(format!("{answer}\n").as_bytes()).is_err() {
                    break;
                }
            }
        }
    });
    port
}

/// Our front, in this process.
fn ours() -> SocketAddr {
    let device = fake_device();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let mut http = HttpConfig::new(addr);
    // Every connection of the bench comes from one address (loopback): let it hold as many
    // listen streams as the memory step opens (the default bounds a client to 32).
    http.limits = Some(Limits {
        streams_per_client: IDLE + 16,
        streams: IDLE + 16,
        ..Limits::for_connections(http.max_connections)
    });
    let bridge = BridgeConfig::new(Endpoint::Tcp(format!("127.0.0.1:{device}")));
    let log = Logger::to_writer(0, "bench", Box::new(std::io::sink()));
    std::thread::spawn(move || serve_on(listener, bridge, http, log));
    addr
}

/// The peer's front, as a process.
fn peer(binary: &str) -> (SocketAddr, Child) {
    let device = fake_device();
    let mut child = Command::new(binary)
        .args(["bridge", "--http", "127.0.0.1:0", "--tcp"])
        .arg(format!("127.0.0.1:{device}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the peer");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let addr = loop {
        line.clear();
        if err.read_line(&mut line).unwrap() == 0 {
            panic!("the peer did not start");
        }
        if let Some(rest) = line.split("listening: http://").nth(1) {
            break rest.trim().trim_end_matches("/mcp").parse().unwrap();
        }
    };
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    (addr, child)
}

/// rmcp's Streamable HTTP server with the fake device's tool, in this process: hyper's HTTP/1.1
/// on a two-worker tokio runtime, like our front's.
fn rmcp_front() -> SocketAddr {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    serve_rmcp(runtime, || Ok(rmcp_echo::Echo))
}

/// Serves rmcp's `StreamableHttpService` of the handlers `make` makes on hyper's HTTP/1.1,
/// stateless with JSON responses, on `runtime` (which a thread of its own then runs).
fn serve_rmcp<H, F>(runtime: tokio::runtime::Runtime, make: F) -> SocketAddr
where
    H: rmcp::ServerHandler + Send + 'static,
    F: Fn() -> Result<H, std::io::Error> + Send + Sync + 'static,
{
    use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let service =
        StreamableHttpService::new(make, Arc::new(NeverSessionManager::default()), config);
    std::thread::spawn(move || {
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let service = service.clone();
                tokio::spawn(async move {
                    let handle = hyper::service::service_fn(move |request| {
                        let service = service.clone();
                        async move { Ok::<_, std::convert::Infallible>(service.handle(request).await) }
                    });
                    let io = hyper_util::rt::TokioIo::new(stream);
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(io, handle)
                        .await;
                });
            }
        });
    });
    addr
}

/// The fake device's tool as an rmcp server handler.
mod rmcp_echo {
    use std::sync::Arc;

    use rmcp::model::{
        object, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
        ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    };
    use rmcp::service::RequestContext;
    use rmcp::{ErrorData, RoleServer, ServerHandler};

    /// `echo`: any object in, the text `ok` out.
    #[derive(Clone)]
    pub struct Echo;

    fn tool() -> Tool {
        let schema = object(serde_json::json!({"type": "object"}));
        Tool::new_with_raw("echo", None, Arc::new(schema))
    }

    impl ServerHandler for Echo {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        }

        fn get_tool(&self, name: &str) -> Option<Tool> {
            (name == "echo").then(tool)
        }

        async fn list_tools(
            &self,
            _request: Option<PaginatedRequestParams>,
            _context: RequestContext<RoleServer>,
        ) -> Result<ListToolsResult, ErrorData> {
            Ok(ListToolsResult::with_all_items(vec![tool()]))
        }

        async fn call_tool(
            &self,
            request: CallToolRequestParams,
            _context: RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            if request.name != "echo" {
                return Err(ErrorData::invalid_params("unknown tool", None));
            }
            Ok(CallToolResult::success(vec![ContentBlock::text("ok")]).into())
        }
    }
}

/// rmcp's Streamable HTTP server in front of the fake device: the forwarding peer.
fn rmcp_forwarding_front() -> SocketAddr {
    let device = fake_device();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let handler = runtime.block_on(rmcp_forward::Forward::connect(device));
    serve_rmcp(runtime, move || Ok(handler.clone()))
}

/// A bridge built on rmcp: its tool handler forwards each call to the device over TCP.
mod rmcp_forward {
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};

    use rmcp::model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ListToolsResult,
        PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    };
    use rmcp::service::RequestContext;
    use rmcp::{ErrorData, RoleServer, ServerHandler};
    use serde_json::{json, Value};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    use tokio::net::tcp::OwnedWriteHalf;
    use tokio::net::TcpStream;
    use tokio::sync::oneshot;

    /// The device link: one writer, and the calls waiting for their answers by id.
    struct Link {
        writer: tokio::sync::Mutex<OwnedWriteHalf>,
        waiting: Mutex<HashMap<u64, oneshot::Sender<Value>>>,
        next_id: AtomicU64,
    }

    impl Link {
        /// Sends `method` with `params` and waits for the device's `result`.
        async fn request(&self, method: &str, params: Value) -> Result<Value, ErrorData> {
            let id = self.next_id.fetch_add(1, Ordering::Relaxed);
            let (tx, rx) = oneshot::channel();
            self.waiting.lock().unwrap().insert(id, tx);
            let mut line = serde_json::to_vec(
                &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
            )
            .unwrap();
            line.push(b'\n');
            let written = self.writer.lock().await.write_all(&line).await;
            written.map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            let answer = rx
                .await
                .map_err(|_| ErrorData::internal_error("link closed", None))?;
            match answer.get("result") {
                Some(result) => Ok(result.clone()),
                None => Err(ErrorData::internal_error("device error", Some(answer))),
            }
        }
    }

    /// The forwarding handler: the device's tools, and a link to call them.
    #[derive(Clone)]
    pub struct Forward {
        link: Arc<Link>,
        tools: Arc<Vec<Tool>>,
    }

    impl Forward {
        /// Connects to the device on `port`, greets it and learns its tools.
        pub async fn connect(port: u16) -> Self {
            let stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
            stream.set_nodelay(true).unwrap();
            let (read, write) = stream.into_split();
            let link = Arc::new(Link {
                writer: tokio::sync::Mutex::new(write),
                waiting: Mutex::new(HashMap::new()),
                next_id: AtomicU64::new(1),
            });
            let reader = link.clone();
            tokio::spawn(async move {
                let mut lines = BufReader::new(read).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    let Ok(answer) = serde_json::from_str::<Value>(&line) else {
                        continue;
                    };
                    let Some(id) = answer.get("id").and_then(Value::as_u64) else {
                        continue;
                    };
                    if let Some(tx) = reader.waiting.lock().unwrap().remove(&id) {
                        let _ = tx.send(answer);
                    }
                }
            });
            let hello = json!({"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "rmcp-forward", "version": "1"}});
            link.request("initialize", hello).await.unwrap();
            let listed = link.request("tools/list", json!({})).await.unwrap();
            let tools = serde_json::from_value(listed["tools"].clone()).unwrap();
            Self {
                link,
                tools: Arc::new(tools),
            }
        }
    }

    impl ServerHandler for Forward {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        }

        fn get_tool(&self, name: &str) -> Option<Tool> {
            self.tools.iter().find(|t| t.name == name).cloned()
        }

        async fn list_tools(
            &self,
            _request: Option<PaginatedRequestParams>,
            _context: RequestContext<RoleServer>,
        ) -> Result<ListToolsResult, ErrorData> {
            Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
        }

        async fn call_tool(
            &self,
            request: CallToolRequestParams,
            _context: RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            let params = serde_json::to_value(&request).unwrap();
            let result = self.link.request("tools/call", params).await?;
            let result: CallToolResult = serde_json::from_value(result)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            Ok(result.into())
        }
    }
}

/// This process's resident set, in bytes.
fn resident() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok());
    kib.unwrap_or(0) * 1024
}

/// Bytes of resident memory per connection while `IDLE` more connections, each opened with
/// `open`, are held: the growth from before the first is opened to after the last, settled for a
/// moment. The connections go into `held`, to be closed only after every measurement (memory a
/// closed one freed would serve the next ones and hide their cost).
fn per_connection(held: &mut Vec<TcpStream>, open: impl Fn() -> TcpStream) -> usize {
    std::thread::sleep(Duration::from_millis(200));
    let before = resident();
    held.extend((0..IDLE).map(|_| open()));
    std::thread::sleep(Duration::from_millis(300));
    resident().saturating_sub(before) / IDLE
}

/// A keep-alive connection to `addr` after one call, its reader dropped.
fn idle_connection(addr: SocketAddr) -> TcpStream {
    let mut stream = TcpStream::connect(addr).unwrap();
    let mut input = BufReader::new(stream.try_clone().unwrap());
    call(&mut stream, &mut input, request(addr).as_bytes());
    stream
}

/// A `subscriptions/listen` POST to `addr` whose stream has opened (its response head read).
fn listen_stream(addr: SocketAddr) -> TcpStream {
    const LISTEN: &str = r#"{"jsonrpc":"2.0","id":8,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let mut stream = TcpStream::connect(addr).unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{LISTEN}",
        LISTEN.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    let mut first = [0u8; 12];
    stream.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 200", "the listen stream did not open");
    stream
}

/// One keep-alive client's `tools/call` round trip; the response's head and body.
fn call(stream: &mut TcpStream, input: &mut BufReader<TcpStream>, request: &[u8]) -> Vec<u8> {
    stream.write_all(request).unwrap();
    let mut line = String::new();
    let mut head = String::new();
    let mut length = 0;
    input.read_line(&mut line).unwrap();
    assert!(line.starts_with("HTTP/1.1 200"), "{line}");
    head.push_str(&line);
    loop {
        line.clear();
        input.read_line(&mut line).unwrap();
        head.push_str(&line);
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((name, value)) = l.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap();
            }
        }
    }
    let mut response = head.into_bytes();
    let body = response.len();
    response.resize(body + length, 0);
    input.read_exact(&mut response[body..]).unwrap();
    assert!(response[body..].windows(4).any(|w| w == b"\"ok\""));
    response
}

/// The request every client sends: a 2026-07-28 `tools/call` with the headers that version
/// asks for (rmcp refuses a POST whose `Accept` lacks either type).
fn request(addr: SocketAddr) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\nContent-Length: {}\r\n\r\n{CALL}",
        CALL.len()
    )
}

/// One call's response, head and body, as text.
fn one_response(addr: SocketAddr) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    let mut input = BufReader::new(stream.try_clone().unwrap());
    let response = call(&mut stream, &mut input, request(addr).as_bytes());
    String::from_utf8_lossy(&response).into_owned()
}

/// Requests per second and the latencies of one round with `clients` concurrent clients.
fn round(addr: SocketAddr, clients: usize) -> (f64, Vec<Duration>) {
    let request = request(addr);
    let barrier = Arc::new(Barrier::new(clients));
    let threads: Vec<_> = (0..clients)
        .map(|_| {
            let (request, barrier) = (request.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut stream = TcpStream::connect(addr).unwrap();
                stream.set_nodelay(true).unwrap();
                let mut input = BufReader::new(stream.try_clone().unwrap());
                for _ in 0..20 {
                    call(&mut stream, &mut input, request.as_bytes());
                }
                barrier.wait();
                let start = Instant::now();
                let mut latencies = Vec::new();
                while start.elapsed() < ROUND {
                    let t = Instant::now();
                    call(&mut stream, &mut input, request.as_bytes());
                    latencies.push(t.elapsed());
                }
                (latencies, start.elapsed())
            })
        })
        .collect();
    let mut all = Vec::new();
    let mut longest = Duration::ZERO;
    for t in threads {
        let (latencies, took) = t.join().unwrap();
        all.extend(latencies);
        longest = longest.max(took);
    }
    let rate = all.len() as f64 / longest.as_secs_f64();
    all.sort();
    (rate, all)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(at).copied().unwrap_or_default()
}

/// The best of the rounds: highest rate, and the p50/p99 of that round.
#[derive(Default, Clone, Copy)]
struct Best {
    rate: f64,
    p50: Duration,
    p99: Duration,
}

impl Best {
    fn keep(&mut self, (rate, sorted): (f64, Vec<Duration>)) {
        if rate > self.rate {
            *self = Self {
                rate,
                p50: percentile(&sorted, 0.50),
                p99: percentile(&sorted, 0.99),
            };
        }
    }
}

/// The ratio of `ours` to `peer`'s rate, as text.
fn ratio(ours: &Best, peer: &Best) -> String {
    if peer.rate > 0.0 {
        format!("{:.2}x", ours.rate / peer.rate)
    } else {
        "-".into()
    }
}

fn main() {
    // `cargo bench` passes `--bench`; any other run (`cargo test --benches`) only checks that
    // the bench starts.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let ours = ours();
    let rmcp = rmcp_front();
    let forwarding = rmcp_forwarding_front();
    let peer = std::env::var("EMCP_HTTP_PEER").ok().map(|p| peer(&p));
    // Let the fronts finish their own start (handshake, tool list).
    std::thread::sleep(Duration::from_millis(500));
    println!("ours:\n{}", one_response(ours));
    println!("rmcp in-process:\n{}", one_response(rmcp));
    println!("rmcp forwarding:\n{}", one_response(forwarding));
    println!("load average before: {}", load_average());

    println!(
        "memory, resident bytes per connection ({IDLE} more held each time, this process's VmRSS):"
    );
    let mut held = Vec::new();
    let idle = per_connection(&mut held, || idle_connection(ours));
    println!("  ours, idle keep-alive connection: {idle}");
    let listen = per_connection(&mut held, || listen_stream(ours));
    println!("  ours, open subscriptions/listen stream: {listen}");
    let idle = per_connection(&mut held, || idle_connection(rmcp));
    println!("  rmcp in-process, idle keep-alive connection: {idle}");
    let idle = per_connection(&mut held, || idle_connection(forwarding));
    println!("  rmcp forwarding, idle keep-alive connection: {idle}");
    drop(held);
    std::thread::sleep(Duration::from_millis(300));

    println!("clients | ours req/s | p50 | p99 | fwd rmcp req/s | p50 | p99 | in-proc rmcp req/s | p50 | p99 | ours/fwd | ours/in-proc | peer req/s | p50 | p99 | ours/peer");
    for clients in [1, 16] {
        let mut best = [Best::default(); 4];
        for _ in 0..ROUNDS {
            best[0].keep(round(ours, clients));
            best[1].keep(round(forwarding, clients));
            best[2].keep(round(rmcp, clients));
            if let Some((addr, _)) = &peer {
                best[3].keep(round(*addr, clients));
            }
        }
        let [a, f, r, b] = best;
        println!(
            "{clients} | {:.0} | {:?} | {:?} | {:.0} | {:?} | {:?} | {:.0} | {:?} | {:?} | {} | {} | {:.0} | {:?} | {:?} | {}",
            a.rate, a.p50, a.p99,
            f.rate, f.p50, f.p99,
            r.rate, r.p50, r.p99,
            ratio(&a, &f), ratio(&a, &r),
            b.rate, b.p50, b.p99, ratio(&a, &b)
        );
    }
    println!("load average after: {}", load_average());
    if let Some((_, mut child)) = peer {
        let _ = child.kill();
        let _ = child.wait();
    }
}
