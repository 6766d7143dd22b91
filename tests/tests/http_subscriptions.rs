//! 2026-07-28 listen streams on `embedded-mcp bridge --http` in front of a hub of two devices:
//! a `subscriptions/listen` POST is answered with an SSE stream that opens with
//! `notifications/subscriptions/acknowledged`, and when a device goes away (its tools are
//! withdrawn) the stream carries `notifications/tools/list_changed` tagged with the listen
//! request's id, while a legacy session's GET stream gets the plain notification as before.
//!
//! In front of one device that does not declare `tools.listChanged` (the shared scripted device),
//! the acknowledgement agrees to nothing and the device's list_changed, which a legacy GET stream
//! still gets, does not reach the listen stream.
//!
//! The hub's devices are loopback TCP fakes in this file (one tool `t` each); one of them goes away by
//! closing its connection and its port. Every wait is bounded ([`TIMEOUT`]); the bridge is
//! killed on drop.
#![cfg(unix)]

mod http_support;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use embedded_mcp_tests::child_log::{collect_stderr, listening_port};
use http_support::*;
use serde_json::{json, Value};

/// A fake device on a loopback port, until [`FakeDevice::go_away`].
struct FakeDevice {
    port: u16,
    gone: Arc<AtomicBool>,
    current: Arc<Mutex<Option<TcpStream>>>,
}

impl FakeDevice {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let gone = Arc::new(AtomicBool::new(false));
        let current = Arc::new(Mutex::new(None));
        let (g, c) = (gone.clone(), current.clone());
        std::thread::spawn(move || {
            // Dropping the listener when gone closes the port: reconnects are refused.
            while !g.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        stream.set_nonblocking(false).unwrap();
                        *c.lock().unwrap() = stream.try_clone().ok();
                        std::thread::spawn(move || serve(stream));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Self {
            port,
            gone,
            current,
        }
    }

    /// Closes its connection and its port.
    fn go_away(&self) {
        self.gone.store(true, Ordering::SeqCst);
        if let Some(s) = self.current.lock().unwrap().take() {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }
}

fn serve(stream: TcpStream) {
    let mut out = stream.try_clone().unwrap();
    for line in BufReader::new(stream).lines() {
        let Ok(line) = line else { return };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let (Some(id), Some(method)) = (msg.get("id"), msg["method"].as_str()) else {
            continue;
        };
        let result = match method {
            "initialize" => json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "fake", "version": "1"}}),
            "tools/list" => json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
            _ => json!({"content": []}),
        };
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
        if writeln!(out, "{answer}").is_err() {
            return;
        }
    }
}

/// The bridge serving HTTP in front of a hub of `one` and `two`.
struct HubFront {
    child: Child,
    port: u16,
    stderr: Arc<Mutex<String>>,
}

impl HubFront {
    fn start(one: &FakeDevice, two: &FakeDevice) -> Self {
        let mut child = Command::new(bridge_binary())
            .args(["bridge", "--http", "127.0.0.1:0", "-vv", "--device"])
            .arg(format!("one=tcp:127.0.0.1:{}", one.port))
            .arg("--device")
            .arg(format!("two=tcp:127.0.0.1:{}", two.port))
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
                let _ = child.wait();
                panic!("the bridge did not start:\n{log}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let front = Self {
            child,
            port,
            stderr,
        };
        // Both devices listed before the test begins.
        while front.tools().len() < 2 {
            assert!(start.elapsed() < TIMEOUT, "not listed:\n{}", front.log());
            std::thread::sleep(Duration::from_millis(20));
        }
        front
    }

    fn log(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The hub's tool names, by a 2026-07-28 `tools/list`.
    fn tools(&self) -> Vec<String> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                          "params": {"_meta": modern_meta()}})
        .to_string();
        let host = self.host();
        let r = request(
            self.port,
            "POST",
            "/mcp",
            &modern_headers(&host, "tools/list"),
            body.as_bytes(),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    }
}

impl Drop for HubFront {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An SSE stream whose response head has been read.
struct Events {
    input: BufReader<TcpStream>,
}

impl Events {
    fn open(port: u16, method: &str, headers: &[(&str, &str)], body: &str) -> Self {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        write_request(&mut stream, method, "/mcp", headers, body.as_bytes());
        let mut input = BufReader::new(stream);
        let mut head = Vec::new();
        loop {
            let mut line = String::new();
            input.read_line(&mut line).unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
            head.push(line.trim_end().to_ascii_lowercase());
        }
        assert_eq!(head[0], "http/1.1 200 ok", "{head:?}");
        assert!(
            head.contains(&"content-type: text/event-stream".to_owned()),
            "{head:?}"
        );
        Self { input }
    }

    /// The next event's data within `wait`; `None` when none came.
    fn within(&mut self, wait: Duration) -> Option<String> {
        self.input.get_ref().set_read_timeout(Some(wait)).unwrap();
        let mut line = String::new();
        let got = loop {
            line.clear();
            match self.input.read_line(&mut line) {
                Ok(0) | Err(_) => break None,
                Ok(_) => {
                    if let Some(data) = line.strip_prefix("data: ") {
                        break Some(data.trim_end().to_owned());
                    }
                }
            }
        };
        self.input
            .get_ref()
            .set_read_timeout(Some(TIMEOUT))
            .unwrap();
        got
    }

    /// The next event's data, exactly as sent.
    fn next(&mut self) -> String {
        loop {
            let mut line = String::new();
            assert_ne!(self.input.read_line(&mut line).unwrap(), 0, "stream ended");
            if let Some(data) = line.strip_prefix("data: ") {
                return data.trim_end().to_owned();
            }
        }
    }
}

/// The headers of a 2026-07-28 POST of `method` accepting SSE.
fn modern_headers<'a>(host: &'a str, method: &'a str) -> [(&'a str, &'a str); 5] {
    [
        ("Host", host),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
    ]
}

#[test]
fn a_device_without_list_changed_gets_an_acknowledgement_that_agrees_to_nothing() {
    let b = HttpBridge::start(&[]);
    let host = b.host();
    let listen = json!({"jsonrpc": "2.0", "id": 8, "method": "subscriptions/listen",
                        "params": {"_meta": modern_meta(),
                                   "notifications": {"toolsListChanged": true}}})
    .to_string();
    let mut modern = Events::open(
        b.port,
        "POST",
        &modern_headers(&host, "subscriptions/listen"),
        &listen,
    );
    assert_eq!(
        modern.next(),
        r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/subscriptionId":8}}}"#
    );
    let session = b.open_session("2025-11-25");
    let mut legacy = Events::open(
        b.port,
        "GET",
        &[
            ("Host", &host),
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", &session),
        ],
        "",
    );
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "announce", "arguments": {"level": "info"}}})
    .to_string();
    let r = b.post(&[("Mcp-Session-Id", &session)], &call);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        legacy.next(),
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#
    );
    // Listen streams are served before GET streams: had it been sent, it would be there.
    assert_eq!(modern.within(Duration::from_millis(300)), None);
    // Nothing of it reached the device.
    assert!(
        !b.device
            .lines()
            .iter()
            .any(|l| l.contains("subscriptions/listen")),
        "{:?}",
        b.device.lines()
    );
    // Refusals: not accepting SSE, no notifications object.
    let version = ("MCP-Protocol-Version", "2026-07-28");
    let method = ("Mcp-Method", "subscriptions/listen");
    let r = b.post(&[version, method], &listen);
    assert_eq!(r.status, 406, "{}", r.text());
    let bare = json!({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
                      "params": {"_meta": modern_meta()}})
    .to_string();
    let sse = ("Accept", "application/json, text/event-stream");
    let r = b.post(&[version, method, sse], &bare);
    assert_eq!(
        (r.status, r.text()),
        (
            400,
            r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid params: subscriptions/listen needs a \"notifications\" object"}}"#.to_owned()
        )
    );
}

#[test]
fn a_2026_listen_stream_is_acknowledged_and_told_when_a_hub_device_goes_away() {
    let (one, two) = (FakeDevice::start(), FakeDevice::start());
    let front = HubFront::start(&one, &two);
    assert_eq!(front.tools(), ["one.t", "two.t"]);
    let host = front.host();
    let listen = json!({"jsonrpc": "2.0", "id": "watch", "method": "subscriptions/listen",
                        "params": {"_meta": modern_meta(),
                                   "notifications": {"toolsListChanged": true}}})
    .to_string();
    let mut modern = Events::open(
        front.port,
        "POST",
        &modern_headers(&host, "subscriptions/listen"),
        &listen,
    );
    assert_eq!(
        modern.next(),
        r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":"watch"}}}"#
    );
    // A legacy session's GET stream, as before.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                      "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "test", "version": "1"}}})
    .to_string();
    let r = request(
        front.port,
        "POST",
        "/mcp",
        &[
            ("Host", &host),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
        init.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let session = r.header("mcp-session-id").expect("a session").to_owned();
    let mut legacy = Events::open(
        front.port,
        "GET",
        &[
            ("Host", &host),
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", &session),
        ],
        "",
    );
    let started = Instant::now();
    two.go_away();
    assert_eq!(
        modern.next(),
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"watch"}}}"#
    );
    let took = started.elapsed();
    assert_eq!(
        legacy.next(),
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#
    );
    assert!(took < TIMEOUT, "{took:?}");
    eprintln!("the listen stream was told {took:?} after the device went away");
    assert_eq!(front.tools(), ["one.t"], "{}", front.log());
}
