//! Shared harness of the `http_*` tests: a scripted device on a loopback TCP port, the bridge
//! process with `--http 127.0.0.1:0` in front of it (`--tcp`), and a small HTTP/1.1 client.
//!
//! Every wait is bounded ([`TIMEOUT`]); the bridge is killed and the device thread stopped on
//! drop, also when a test fails.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use embedded_mcp_tests::child_log::{collect_stderr, listening_port};
use serde_json::{json, Value};

/// Longest wait for anything that should happen.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// The bridge binary (the same `cli::main` as `embedded-mcp`).
pub const BRIDGE: &str = env!("CARGO_BIN_EXE_embedded-mcp-under-test");

/// The bridge binary to run: [`BRIDGE`], or the `embedded-mcp` named by `EMCP_HTTP_BRIDGE` (to
/// measure another build, e.g. main's, with the same tests; see benches/HTTP-FRONT.md).
pub fn bridge_binary() -> String {
    std::env::var("EMCP_HTTP_BRIDGE").unwrap_or_else(|_| BRIDGE.to_owned())
}

/// The standard 2026-07-28 `_meta`.
pub fn modern_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {}})
}

/// A device that answers `initialize`, `server/discover`, `tools/list` and `tools/call` of
/// `echo` and `route` (its arguments back as text; `route` marks two arguments with
/// `x-mcp-header`), `steps` (three `notifications/progress` with the request's token and one
/// `notifications/message`, then the result) and `announce` (the result, then
/// `notifications/tools/list_changed` and a log line at `arguments.level`), recording every line.
pub struct ScriptedDevice {
    pub port: u16,
    pub received: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ScriptedDevice {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (r, s) = (received.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => serve_device(stream, &r, &s),
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Self {
            port,
            received,
            stop,
            thread: Some(thread),
        }
    }

    /// The lines received so far.
    pub fn lines(&self) -> Vec<String> {
        self.received.lock().unwrap().clone()
    }
}

impl Drop for ScriptedDevice {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve_device(stream: TcpStream, received: &Mutex<Vec<String>>, stop: &AtomicBool) {
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let mut out = stream.try_clone().unwrap();
    let mut input = BufReader::new(stream);
    let mut line = String::new();
    while !stop.load(Ordering::SeqCst) {
        match input.read_line(&mut line) {
            Ok(0) => return,
            Ok(_) if line.ends_with('\n') => {}
            _ => continue,
        }
        let text = line.trim_end().to_owned();
        line.clear();
        received.lock().unwrap().push(text.clone());
        let Ok(msg) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        for reply in answer(&msg) {
            if out.write_all(format!("{reply}\n").as_bytes()).is_err() {
                return;
            }
        }
    }
}

fn answer(msg: &Value) -> Vec<String> {
    let Some(id) = msg.get("id") else {
        return Vec::new();
    };
    let params = msg.get("params").cloned().unwrap_or(json!({}));
    let modern = params
        .get("_meta")
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(Value::as_str)
        == Some("2026-07-28");
    let done = |mut result: Value| {
        if modern {
            result["resultType"] = json!("complete");
        }
        json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
    };
    match msg.get("method").and_then(Value::as_str) {
        Some("initialize") => vec![done(json!({
            "protocolVersion": params["protocolVersion"],
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {"name": "scripted", "version": "1.0.0", "description": "a test device"}
        }))],
        // Unusual but valid spacing: a front that re-serialised it would be caught.
        Some("ping") => vec![format!(r#"{{"jsonrpc":"2.0", "id":{id} ,"result":{{ }}}}"#)],
        Some("server/discover") => vec![done(json!({
            "supportedVersions": ["2026-07-28", "2025-11-25", "2025-06-18"],
            "capabilities": {"tools": {"listChanged": false}}, "ttlMs": 0, "cacheScope": "private"
        }))],
        Some("tools/list") => vec![done(json!({"tools": [
            {"name": "echo", "inputSchema": {"type": "object"}},
            {"name": "steps", "inputSchema": {"type": "object"}},
            {"name": "route", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "shards": {"type": "integer", "x-mcp-header": "Shards"},
                "note": {"type": "string"}
            }}},
            {"name": "announce", "inputSchema": {"type": "object"}}
        ]}))],
        Some("tools/call") if params["name"] == "steps" => {
            let token = &params["_meta"]["progressToken"];
            let mut lines: Vec<String> = [0, 50, 100]
                .iter()
                .map(|p| {
                    json!({"jsonrpc": "2.0", "method": "notifications/progress",
                           "params": {"progressToken": token, "progress": p, "total": 100}})
                    .to_string()
                })
                .collect();
            lines.insert(
                1,
                json!({"jsonrpc": "2.0", "method": "notifications/message",
                       "params": {"level": "info", "data": "step"}})
                .to_string(),
            );
            lines.push(done(json!({"content": [{"type": "text", "text": "done"}]})));
            lines
        }
        // The answer, then two notifications tied to no request (they go to GET streams).
        Some("tools/call") if params["name"] == "announce" => {
            let level = params["arguments"]["level"].as_str().unwrap_or("info");
            vec![
                done(json!({"content": [{"type": "text", "text": "announced"}]})),
                json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}).to_string(),
                json!({"jsonrpc": "2.0", "method": "notifications/message",
                       "params": {"level": level, "data": "between requests"}})
                .to_string(),
            ]
        }
        Some("tools/call") => {
            let text = params
                .get("arguments")
                .cloned()
                .unwrap_or(json!({}))
                .to_string();
            vec![done(json!({"content": [{"type": "text", "text": text}]}))]
        }
        _ => vec![json!({"jsonrpc": "2.0", "id": id,
                         "error": {"code": -32601, "message": "Method not found"}})
        .to_string()],
    }
}

/// The bridge process serving HTTP in front of a [`ScriptedDevice`].
pub struct HttpBridge {
    pub child: Child,
    pub port: u16,
    pub device: ScriptedDevice,
    stderr: Arc<Mutex<String>>,
}

impl HttpBridge {
    /// Starts the bridge with `extra` options added (`-vv` always: tests read its log).
    pub fn start(extra: &[&str]) -> Self {
        let device = ScriptedDevice::start();
        let mut child = Command::new(bridge_binary())
            .args([
                "bridge",
                "--http",
                "127.0.0.1:0",
                "--timeout-ms",
                "5000",
                "-vv",
            ])
            .arg("--tcp")
            .arg(format!("127.0.0.1:{}", device.port))
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the bridge");
        let stderr = collect_stderr(&mut child);
        let start = Instant::now();
        let port = loop {
            let log = stderr.lock().unwrap().clone();
            if let Some(port) = listening_port(&log) {
                break port;
            }
            if start.elapsed() > TIMEOUT {
                let _ = child.kill();
                panic!("the bridge did not start:\n{log}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // The front's own start (handshake, then the tool list) is done before a test begins,
        // so the device's first lines are always those.
        while !device
            .lines()
            .iter()
            .any(|l| l.contains(r#""method":"tools/list""#))
        {
            if start.elapsed() > TIMEOUT {
                let _ = child.kill();
                panic!(
                    "the bridge did not list the tools:\n{}",
                    stderr.lock().unwrap()
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Self {
            child,
            port,
            device,
            stderr,
        }
    }

    /// The bridge's log so far.
    pub fn log(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The bridge's resident memory in KiB (`None` where `/proc` is not there).
    pub fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// `Host` value of this server.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Opens a legacy session at `version`; returns its id.
    pub fn open_session(&self, version: &str) -> String {
        let r = self.post(
            &[],
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": version, "capabilities": {},
                               "clientInfo": {"name": "test", "version": "1"}}})
            .to_string(),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r.header("mcp-session-id").expect("a session id").to_owned()
    }

    /// POSTs `body` to `/mcp` with `Host`, `Content-Type` and `Accept: application/json` plus
    /// `headers` (which replace those of the same name).
    pub fn post(&self, headers: &[(&str, &str)], body: &str) -> Response {
        let host = self.host();
        let mut all: Vec<(String, String)> = vec![
            ("Host".into(), host),
            ("Content-Type".into(), "application/json".into()),
            ("Accept".into(), "application/json".into()),
        ];
        for (name, value) in headers {
            all.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            if !value.is_empty() {
                all.push((name.to_string(), value.to_string()));
            }
        }
        let refs: Vec<(&str, &str)> = all.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        request(self.port, "POST", "/mcp", &refs, body.as_bytes())
    }
}

impl Drop for HttpBridge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP response.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// The body (chunked encoding removed).
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    /// The `data:` lines of an SSE body, parsed.
    pub fn events(&self) -> Vec<Value> {
        self.text()
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    }
}

/// Sends one request on a fresh connection and reads the response.
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    write_request(&mut stream, method, path, headers, body);
    read_response(&mut BufReader::new(stream))
}

/// Writes one request (with `Content-Length`).
pub fn write_request(
    out: &mut impl Write,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) {
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    out.write_all(head.as_bytes()).unwrap();
    out.write_all(body).unwrap();
    out.flush().unwrap();
}

/// Reads one response (Content-Length or chunked).
pub fn read_response(input: &mut impl BufRead) -> Response {
    let mut line = String::new();
    input.read_line(&mut line).unwrap();
    let status: u16 = line
        .split(' ')
        .nth(1)
        .unwrap_or_else(|| panic!("no status line: {line:?}"))
        .parse()
        .unwrap();
    let mut headers = Vec::new();
    loop {
        line.clear();
        input.read_line(&mut line).unwrap();
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (n, v) = l.split_once(':').unwrap();
        headers.push((n.trim().to_owned(), v.trim().to_owned()));
    }
    let mut r = Response {
        status,
        headers,
        body: Vec::new(),
    };
    if r.header("transfer-encoding") == Some("chunked") {
        loop {
            line.clear();
            input.read_line(&mut line).unwrap();
            let size = usize::from_str_radix(line.trim_end(), 16).unwrap();
            let mut chunk = vec![0; size + 2];
            input.read_exact(&mut chunk).unwrap();
            if size == 0 {
                break;
            }
            r.body.extend_from_slice(&chunk[..size]);
        }
    } else {
        let len: usize = r.header("content-length").unwrap_or("0").parse().unwrap();
        let mut body = vec![0; len];
        input.read_exact(&mut body).unwrap();
        r.body = body;
    }
    r
}

/// A keep-alive connection: requests one after the other on the same TCP stream.
pub struct Conn {
    pub stream: TcpStream,
    input: BufReader<TcpStream>,
}

impl Conn {
    pub fn open(port: u16) -> Self {
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        let input = BufReader::new(stream.try_clone().unwrap());
        Self { stream, input }
    }

    /// Writes a request (with `Content-Length`) without reading its answer.
    pub fn send(&mut self, method: &str, headers: &[(&str, &str)], body: &[u8]) {
        write_request(&mut self.stream, method, "/mcp", headers, body);
    }

    /// Reads the next answer.
    pub fn read(&mut self) -> Response {
        read_response(&mut self.input)
    }

    /// One request and its answer.
    pub fn request(&mut self, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Response {
        self.send(method, headers, body);
        self.read()
    }
}
