//! Issue 35 on `embedded-mcp bridge --http`: what a hostile device says never passes for the
//! bridge's own, and where the front may listen without a key.
//!
//! - A hostile device forges `notifications/tasks` for a real task and for `forged-1`: a listen
//!   stream asking for both agrees to the real task only, and starts with its real result.
//! - A hub of two hostile devices: while client X's call to `b` is in flight, device `a` sends
//!   progress for tokens 1 to 5,000 (the front's tokens are small integers); X gets only `b`'s
//!   own progress of its call, the other clients are served meanwhile, and the bridge's memory
//!   stays bounded.
//! - `--http 0.0.0.0:0` without `--token-file` does not start; with `--allow-unauthenticated`
//!   it starts, warns, and turns the loopback `Host` names away.
//!
//! Devices: the fake device of `tests/clients/fake_device.rs` (`bridge-fake-device --hostile`
//! as a child, or on unix sockets for the hub). Every wait is bounded; the bridge is killed on
//! drop, also when a test fails.
#![cfg(unix)]

mod bridge_support;

use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bridge_support::{temp_path, Knobs, SocketDevice, BRIDGE, DEVICE};
use embedded_mcp_tests::child_log::{collect_stderr, listening_port};
use serde_json::{json, Value};

/// Longest wait for anything that should happen.
const TIMEOUT: Duration = Duration::from_secs(20);

/// A bridge process serving HTTP; killed on drop.
struct Front {
    child: Child,
    port: u16,
    stderr: Arc<Mutex<String>>,
}

impl Front {
    /// Starts `bridge --http BIND args`; `None` when it exited instead of listening.
    fn start(bind: &str, args: &[&str]) -> Result<Self, (i32, String)> {
        let mut child = Command::new(BRIDGE)
            .args(["bridge", "--http", bind, "--timeout-ms", "5000"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the bridge");
        let stderr = collect_stderr(&mut child);
        let start = Instant::now();
        loop {
            let log = stderr.lock().unwrap().clone();
            if let Some(port) = listening_port(&log) {
                return Ok(Self {
                    child,
                    port,
                    stderr,
                });
            }
            if let Some(status) = child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(50)); // the last stderr bytes
                let log = stderr.lock().unwrap().clone();
                return Err((status.code().unwrap_or(-1), log));
            }
            if start.elapsed() > TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                panic!("the bridge neither started nor exited:\n{log}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn log(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Resident memory in KiB.
    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    fn post(&self, method: &str, name: Option<&str>, body: &Value) -> (u16, Vec<Value>) {
        post(self.port, method, name, body)
    }
}

impl Drop for Front {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Opens a 2026-07-28 POST of `method` (`name`: its `Mcp-Name`) with `Host`
/// `127.0.0.1:PORT`, accepting JSON and SSE, on a connection closed after its answer; returns
/// the status and the connection after the response head.
fn open(port: u16, method: &str, name: Option<&str>, body: &Value) -> (u16, BufReader<TcpStream>) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    let host = format!("127.0.0.1:{}", port);
    let mut headers = vec![
        ("Host", host.as_str()),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
        ("Connection", "close"),
    ];
    if let Some(name) = name {
        headers.push(("Mcp-Name", name));
    }
    let body = body.to_string();
    let mut head = "POST /mcp HTTP/1.1\r\n".to_owned();
    for (n, v) in &headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    std::io::Write::write_all(&mut stream, head.as_bytes()).unwrap();
    let mut input = BufReader::new(stream);
    let mut line = String::new();
    input.read_line(&mut line).unwrap();
    let status = line.split(' ').nth(1).unwrap().parse().unwrap();
    loop {
        line.clear();
        input.read_line(&mut line).unwrap();
        if line == "\r\n" || line.is_empty() {
            break;
        }
    }
    (status, input)
}

/// A whole 2026-07-28 exchange: the status and every JSON-RPC message of the answer (one
/// JSON body, or the events of an SSE stream).
fn post(port: u16, method: &str, name: Option<&str>, body: &Value) -> (u16, Vec<Value>) {
    let (status, mut input) = open(port, method, name, body);
    let mut text = String::new();
    input.read_to_string(&mut text).unwrap_or_default();
    let messages = text
        .lines()
        .map(|l| l.strip_prefix("data: ").unwrap_or(l))
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .filter(Value::is_object)
        .collect();
    (status, messages)
}

/// The 2026-07-28 `_meta` of a client that declared the tasks extension.
fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities":
               {"extensions": {"io.modelcontextprotocol/tasks": {}}}})
}

fn call(id: u32, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments, "_meta": meta()}})
}

/// The text of the last message (a `tools/call` answer).
fn text_of(messages: &[Value]) -> String {
    let last = messages.last().expect("an answer");
    last["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {last}"))
        .to_owned()
}

#[test]
fn a_device_cannot_forge_the_status_of_a_task_on_a_listen_stream() {
    let device = format!("{DEVICE} --hostile");
    let front = Front::start(
        "127.0.0.1:0",
        &["--command", &device, "--task-tools", "read_temp"],
    )
    .unwrap_or_else(|(code, log)| panic!("exit {code}:\n{log}"));
    let (status, created) = front.post(
        "tools/call",
        Some("read_temp"),
        &call(1, "read_temp", json!({})),
    );
    assert_eq!(status, 200, "{created:?}");
    let task = created[0]["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    // The device forges a "completed" status for the real task and for forged-1.
    let (_, forged) = front.post(
        "tools/call",
        Some("forge_task"),
        &call(2, "forge_task", json!({"taskIds": [task]})),
    );
    assert_eq!(text_of(&forged), "forged");
    // Once the real task finished, a listen stream asks for both.
    let get = json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/get",
                     "params": {"taskId": task, "_meta": meta()}});
    let end = Instant::now() + TIMEOUT;
    while front.post("tasks/get", Some(&task), &get).1[0]["result"]["status"] != "completed" {
        assert!(Instant::now() < end, "the task never finished");
        std::thread::sleep(Duration::from_millis(20));
    }
    let listen = json!({"jsonrpc": "2.0", "id": 4, "method": "subscriptions/listen",
                        "params": {"notifications": {"taskIds": [task, "forged-1"]}, "_meta": meta()}});
    let (status, mut stream) = open(front.port, "subscriptions/listen", None, &listen);
    assert_eq!(status, 200);
    let mut events = Vec::new();
    let mut line = String::new();
    while events.len() < 2 {
        line.clear();
        assert_ne!(stream.read_line(&mut line).unwrap(), 0, "the stream ended");
        if let Some(data) = line.strip_prefix("data: ") {
            events.push(serde_json::from_str::<Value>(data.trim()).unwrap());
        }
    }
    assert_eq!(
        events[0]["params"]["notifications"]["taskIds"],
        json!([task]),
        "{events:?}"
    );
    assert_eq!(events[1]["params"]["taskId"], json!(task));
    assert_eq!(
        events[1]["params"]["result"]["structuredContent"]["celsius"], 21.5,
        "{events:?}"
    );
    // The log is read from the bridge's stderr by a thread: give it a moment under load.
    let end = Instant::now() + TIMEOUT;
    let dropped = r#"dropped the device's notifications/tasks for task "forged-1""#;
    while !front.log().contains(dropped) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    let log = front.log();
    assert!(log.contains(dropped), "{log}");
}

#[test]
fn in_a_hub_a_device_flooding_progress_reaches_no_other_clients_call() {
    let hostile = || {
        let knobs = Knobs {
            hostile: true,
            ..Knobs::default()
        };
        SocketDevice::listen(temp_path("hostile"), knobs)
    };
    let (a, b) = (hostile(), hostile());
    let links = [
        format!("a=unix:{}", a.path.display()),
        format!("b=unix:{}", b.path.display()),
    ];
    let front = Front::start(
        "127.0.0.1:0",
        &["--device", &links[0], "--device", &links[1]],
    )
    .unwrap_or_else(|(code, log)| panic!("exit {code}:\n{log}"));
    let list =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}});
    let (status, listed) = front.post("tools/list", None, &list);
    assert_eq!(status, 200, "{listed:?}");
    let rss_before = front.rss_kib();

    // Client X calls b.hold with its own token, and waits on its answer.
    let port = front.port;
    let hold = json!({"jsonrpc": "2.0", "id": "x", "method": "tools/call",
                      "params": {"name": "b.hold", "arguments": {},
                                 "_meta": {"progressToken": "x-token", "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                           "io.modelcontextprotocol/clientCapabilities": {}}}});
    let x = std::thread::spawn(move || post(port, "tools/call", Some("b.hold"), &hold));
    let end = Instant::now() + TIMEOUT;
    while !b
        .conn(0)
        .received
        .iter()
        .any(|l| l.contains(r#""name":"hold""#))
    {
        assert!(Instant::now() < end, "b never got the call");
        std::thread::sleep(Duration::from_millis(10));
    }
    // Client Y makes device a send 2 x 5,000 progress notifications for tokens it was not given.
    let (_, flooded) = front.post(
        "tools/call",
        Some("a.flood_progress"),
        &call(2, "a.flood_progress", json!({"count": 5000})),
    );
    assert_eq!(text_of(&flooded), "flooded 5000");
    // Client Z is served meanwhile, then releases X's call.
    let (_, released) = front.post(
        "tools/call",
        Some("b.release"),
        &call(3, "b.release", json!({})),
    );
    assert_eq!(text_of(&released), "release done");
    let (status, x_got) = x.join().unwrap();
    assert_eq!(status, 200);
    assert_eq!(x_got.len(), 2, "{x_got:#?}");
    assert_eq!(
        x_got[0],
        json!({"jsonrpc": "2.0", "method": "notifications/progress",
               "params": {"progressToken": "x-token", "progress": 1,
                          "message": "the held call's own progress"}})
    );
    assert_eq!(text_of(&x_got), "released");
    let grown = front.rss_kib().saturating_sub(rss_before);
    assert!(grown < 4 * 1024, "the bridge grew by {grown} KiB");
    assert!(front
        .log()
        .contains("dropped the device's progress for token"));
}

#[test]
fn a_non_loopback_bind_needs_a_token_or_says_it_has_none() {
    let device = DEVICE.to_owned();
    let (code, log) = match Front::start("0.0.0.0:0", &["--command", &device]) {
        Ok(front) => panic!("it started on 0.0.0.0 without a token:\n{}", front.log()),
        Err(refused) => refused,
    };
    assert_eq!(code, 2, "{log}");
    assert!(
        log.contains("embedded-mcp bridge: refusing to listen on 0.0.0.0:0 without a token"),
        "{log}"
    );
    let front = Front::start(
        "0.0.0.0:0",
        &["--command", &device, "--allow-unauthenticated"],
    )
    .unwrap_or_else(|(code, log)| panic!("exit {code}:\n{log}"));
    let warning = format!(
        "listening on 0.0.0.0:{}, which is not loopback, without a token (--allow-unauthenticated)",
        front.port
    );
    assert!(front.log().contains(&warning), "{}", front.log());
    // The loopback names are not this server's names on 0.0.0.0.
    let list =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}});
    let (status, refused) = front.post("tools/list", None, &list);
    assert_eq!(status, 403, "{refused:?}");
}
