//! Byte fidelity on every front: the device receives the host's `arguments` exactly as the host
//! wrote them (an integer beyond 64 bits, a 30-digit decimal, `1.0e2`, string escapes, keys out
//! of order), and the host receives the device's result exactly as the device wrote it, only
//! the id put back. Over stdio and over HTTP, for a legacy (2025-11-25) and a 2026-07-28 host.
#![cfg(unix)]

mod http_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use http_support::{bridge_binary, request, TIMEOUT};
use serde_json::Value;

/// The host's arguments: no JSON library round-trips these bytes.
const ARGUMENTS: &str = r#"{"zeta":1,"alpha":18446744073709551617,"pi":3.14159265358979323846264338327,"mid":1.0e2,"text":"caf\u00e9 \"q\" \/ \n","nested":{"b":[1.50,-0E0],"a":null}}"#;

/// The device's result, as odd as the arguments (a legacy one; the 2026-07-28 one adds
/// `resultType`).
const RESULT: &str = r#"{"content":[{"type":"text","text":"\u00e9\t"}],"structuredContent":{"zeta":1,"alpha":18446744073709551617,"pi":3.14159265358979323846264338327,"mid":1.0e2}}"#;
const RESULT_MODERN: &str = r#"{"content":[{"type":"text","text":"\u00e9\t"}],"structuredContent":{"zeta":1,"alpha":18446744073709551617,"pi":3.14159265358979323846264338327,"mid":1.0e2},"resultType":"complete"}"#;

/// A device on loopback TCP that answers the handshake, lists one tool (`exact`, no output
/// schema) and answers each call with [`RESULT`] (or [`RESULT_MODERN`]), written by hand.
struct Device {
    port: u16,
    received: Arc<Mutex<Vec<String>>>,
    sent: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Device {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let sent = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (r, w, s) = (received.clone(), sent.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => serve(stream, &r, &w, &s),
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Self {
            port,
            received,
            sent,
            stop,
            thread: Some(thread),
        }
    }

    /// Waits for the device's first line containing `needle`.
    fn wait_line(&self, needle: &str) -> String {
        let end = Instant::now() + TIMEOUT;
        loop {
            if let Some(l) = self
                .received
                .lock()
                .unwrap()
                .iter()
                .find(|l| l.contains(needle))
            {
                return l.clone();
            }
            assert!(Instant::now() < end, "the device never got {needle}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The device's answer to the call.
    fn call_answer(&self) -> String {
        let sent = self.sent.lock().unwrap();
        let answer = sent.iter().find(|l| l.contains("structuredContent"));
        answer.cloned().expect("the device answered the call")
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(
    stream: TcpStream,
    received: &Mutex<Vec<String>>,
    sent: &Mutex<Vec<String>>,
    stop: &AtomicBool,
) {
    stream
        .set_read_timeout(Some(Duration::from_millis(50)))
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
        let Some(id) = msg.get("id").map(Value::to_string) else {
            continue;
        };
        let modern =
            msg["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28";
        let result = match msg["method"].as_str() {
            Some("initialize") => format!(
                r#"{{"protocolVersion":{},"capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"exact","version":"1"}}}}"#,
                msg["params"]["protocolVersion"]
            ),
            Some("server/discover") => r#"{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}},"serverInfo":{"name":"exact","version":"1"},"resultType":"complete"}"#.to_owned(),
            Some("tools/list") if modern => r#"{"tools":[{"name":"exact","inputSchema":{"type":"object"}}],"resultType":"complete"}"#.to_owned(),
            Some("tools/list") => r#"{"tools":[{"name":"exact","inputSchema":{"type":"object"}}]}"#.to_owned(),
            Some("tools/call") if modern => RESULT_MODERN.to_owned(),
            Some("tools/call") => RESULT.to_owned(),
            _ => r#"{}"#.to_owned(),
        };
        let reply = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
        sent.lock().unwrap().push(reply.clone());
        if out.write_all(format!("{reply}\n").as_bytes()).is_err() {
            return;
        }
    }
}

fn call(id: &str, meta: Option<&str>) -> String {
    let meta = meta.map_or_else(String::new, |m| format!(r#","_meta":{m}"#));
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"exact","arguments":{ARGUMENTS}{meta}}}}}"#
    )
}

const MODERN_META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// The device's answer with the host's `id` in place of the device's.
fn with_host_id(device_line: &str, host_id: &str) -> String {
    let v: Value = serde_json::from_str(device_line).unwrap();
    let device_id = format!(r#""id":{}"#, v["id"]);
    device_line.replacen(&device_id, &format!(r#""id":{host_id}"#), 1)
}

/// Checks the arguments the device got and the result the host got.
fn assert_faithful(device: &Device, host_line: &str, host_id: &str) {
    assert_faithful_in(device, host_line, host_id, false);
}

/// [`assert_faithful`]; with `shimmed`, the device answered a 2026-07-28 round for a legacy host
/// and the one edit is the envelope's `resultType`, gone.
fn assert_faithful_in(device: &Device, host_line: &str, host_id: &str, shimmed: bool) {
    let got = device.wait_line(r#""method":"tools/call""#);
    assert!(
        got.contains(&format!(r#""arguments":{ARGUMENTS}"#)),
        "the device got other arguments: {got}"
    );
    let mut expected = with_host_id(&device.call_answer(), host_id);
    if shimmed {
        assert!(got.contains("\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\""));
        expected = expected.replacen(r#","resultType":"complete""#, "", 1);
    }
    assert_eq!(host_line, expected);
}

/// The bridge on stdio in front of `device`.
struct StdioBridge {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
}

impl StdioBridge {
    fn start(device: &Device) -> Self {
        let mut child = Command::new(bridge_binary())
            .args(["bridge", "--timeout-ms", "5000", "--tcp"])
            .arg(format!("127.0.0.1:{}", device.port))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the bridge");
        let input = child.stdin.take().unwrap();
        let output = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Self {
            child,
            input,
            lines,
        }
    }

    fn request(&mut self, line: &str) -> String {
        self.input
            .write_all(format!("{line}\n").as_bytes())
            .unwrap();
        self.lines.recv_timeout(TIMEOUT).expect("an answer")
    }
}

impl Drop for StdioBridge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn initialize(version: &str, capabilities: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{capabilities},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
}

fn stdio_legacy(capabilities: &str, shimmed: bool) {
    let device = Device::start();
    let mut bridge = StdioBridge::start(&device);
    bridge.request(&initialize("2025-11-25", capabilities));
    bridge
        .input
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .unwrap();
    let answer = bridge.request(&call(r#""c-1""#, None));
    assert_faithful_in(&device, &answer, r#""c-1""#, shimmed);
}

#[test]
fn stdio_legacy_host_and_device_bytes_pass_unchanged() {
    stdio_legacy("{}", false);
}

/// A host that can be asked (`elicitation`): its calls go through the input shim, in
/// 2026-07-28 form, and still carry the host's arguments as written.
#[test]
fn stdio_legacy_host_through_the_input_shim_keeps_its_arguments() {
    stdio_legacy(r#"{"elicitation":{}}"#, true);
}

#[test]
fn stdio_modern_host_and_device_bytes_pass_unchanged() {
    let device = Device::start();
    let mut bridge = StdioBridge::start(&device);
    let answer = bridge.request(&call("7", Some(MODERN_META)));
    assert_faithful(&device, &answer, "7");
}

/// The bridge serving HTTP in front of `device`; its port.
struct HttpBridge {
    child: Child,
    port: u16,
}

impl HttpBridge {
    fn start(device: &Device) -> Self {
        let mut child = Command::new(bridge_binary())
            .args([
                "bridge",
                "--http",
                "127.0.0.1:0",
                "--timeout-ms",
                "5000",
                "-v",
                "--tcp",
            ])
            .arg(format!("127.0.0.1:{}", device.port))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the bridge");
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let end = Instant::now() + TIMEOUT;
        let mut log = String::new();
        let port = loop {
            let mut line = String::new();
            if err.read_line(&mut line).unwrap_or(0) == 0 || Instant::now() > end {
                let _ = child.kill();
                panic!("the bridge did not start: {log}");
            }
            log.push_str(&line);
            if let Some(at) = line.find("listening: http://127.0.0.1:") {
                let rest = &line[at + "listening: http://127.0.0.1:".len()..];
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                break digits.parse().unwrap();
            }
        };
        // Keep draining the log so the bridge never blocks on it.
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = err.read_to_end(&mut sink);
        });
        device.wait_line(r#""method":"tools/list""#);
        Self { child, port }
    }

    fn post(&self, headers: &[(&str, &str)], body: &str) -> http_support::Response {
        let host = format!("127.0.0.1:{}", self.port);
        let mut all = vec![
            ("Host", host.as_str()),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        all.extend_from_slice(headers);
        request(self.port, "POST", "/mcp", &all, body.as_bytes())
    }
}

impl Drop for HttpBridge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The JSON-RPC message of an answer, whether it came as JSON or as one SSE event.
fn message_of(r: &http_support::Response) -> String {
    let text = r.text();
    match text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .next_back()
    {
        Some(data) => data.to_owned(),
        None => text,
    }
}

fn http_legacy(version: &str, capabilities: &str, shimmed: bool) {
    let device = Device::start();
    let bridge = HttpBridge::start(&device);
    let r = bridge.post(
        &[("Accept", "application/json")],
        &initialize(version, capabilities),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let session = r.header("mcp-session-id").expect("a session").to_owned();
    let r = bridge.post(
        &[
            ("Mcp-Session-Id", &session),
            ("MCP-Protocol-Version", version),
        ],
        &call(r#""c-1""#, None),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_faithful_in(&device, &message_of(&r), r#""c-1""#, shimmed);
}

#[test]
fn http_legacy_session_host_and_device_bytes_pass_unchanged() {
    http_legacy("2025-11-25", "{}", false);
}

/// A 2025-06-18 session's requests get that revision in `_meta`: added in place.
#[test]
fn http_translated_session_keeps_its_arguments() {
    http_legacy("2025-06-18", "{}", false);
}

/// A session that can be asked: its calls go through the input shim.
#[test]
fn http_legacy_session_through_the_input_shim_keeps_its_arguments() {
    http_legacy("2025-11-25", r#"{"elicitation":{}}"#, true);
}

#[test]
fn http_modern_host_and_device_bytes_pass_unchanged() {
    let device = Device::start();
    let bridge = HttpBridge::start(&device);
    let r = bridge.post(
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "exact"),
        ],
        &call("7", Some(MODERN_META)),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_faithful(&device, &message_of(&r), "7");
}
