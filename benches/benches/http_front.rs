//! `tools/call` requests per second through the HTTP front (`bridge --http`), with 1 and 16
//! concurrent keep-alive clients, in front of a fake device that answers at once; p50 and p99
//! latency. Ours is the front of this checkout, run in this process. Its peers:
//!
//! - rmcp's Streamable HTTP server (`StreamableHttpService`, the official Rust SDK), always, in
//!   this process: the same tool (`echo`, `inputSchema` `{"type":"object"}`, answer text `ok`)
//!   served by a `ServerHandler` on hyper's HTTP/1.1, stateless (2026-07-28 requests are never
//!   in a session) with `json_response`, which answers a call whose first message is its
//!   response as `application/json`, as our front does;
//! - another `embedded-mcp` binary named by `EMCP_HTTP_PEER` (for example main's build before
//!   the hyper front), run as a process, when that variable is set.
//!
//! `cargo bench -p embedded-mcp-benches --bench http_front`
//!
//! Every side gets the same request bytes. Rounds alternate between the fronts (other processes
//! on a shared machine only slow a side down; alternating gives each the same chances), and each
//! side's best round is kept.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use embedded_mcp_benches::measure::load_average;
use embedded_mcp_std::bridge::http::{serve_on, HttpConfig};
use embedded_mcp_std::bridge::BridgeConfig;
use embedded_mcp_std::device::{Endpoint, Logger};

/// Length of one measured round.
const ROUND: Duration = Duration::from_secs(2);
/// Rounds per side and client count.
const ROUNDS: usize = 4;

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
    let http = HttpConfig::new(addr);
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
    let service = StreamableHttpService::new(
        || Ok(rmcp_echo::Echo),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
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

fn main() {
    // `cargo bench` passes `--bench`; any other run (`cargo test --benches`) only checks that
    // the bench starts.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let ours = ours();
    let rmcp = rmcp_front();
    let peer = std::env::var("EMCP_HTTP_PEER").ok().map(|p| peer(&p));
    // Let the fronts finish their own start (handshake, tool list).
    std::thread::sleep(Duration::from_millis(500));
    println!("ours:\n{}", one_response(ours));
    println!("rmcp:\n{}", one_response(rmcp));
    println!("load average before: {}", load_average());
    println!("clients | ours req/s | ours p50 | ours p99 | rmcp req/s | rmcp p50 | rmcp p99 | ours/rmcp | peer req/s | peer p50 | peer p99 | ours/peer");
    for clients in [1, 16] {
        let (mut a, mut r, mut b) = (Best::default(), Best::default(), Best::default());
        for _ in 0..ROUNDS {
            a.keep(round(ours, clients));
            r.keep(round(rmcp, clients));
            if let Some((addr, _)) = &peer {
                b.keep(round(*addr, clients));
            }
        }
        let ratio = |other: &Best| {
            if other.rate > 0.0 {
                format!("{:.2}x", a.rate / other.rate)
            } else {
                "-".into()
            }
        };
        println!(
            "{clients} | {:.0} | {:?} | {:?} | {:.0} | {:?} | {:?} | {} | {:.0} | {:?} | {:?} | {}",
            a.rate,
            a.p50,
            a.p99,
            r.rate,
            r.p50,
            r.p99,
            ratio(&r),
            b.rate,
            b.p50,
            b.p99,
            ratio(&b)
        );
    }
    println!("load average after: {}", load_average());
    if let Some((_, mut child)) = peer {
        let _ = child.kill();
        let _ = child.wait();
    }
}
