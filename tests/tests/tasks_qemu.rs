//! The tasks extension (`io.modelcontextprotocol/tasks`) served by the bridge in front of the
//! real firmware of `examples/qemu-sensors` under QEMU, which knows nothing of tasks.
//!
//! Every answer of the tasks surface is checked against the extension's official schema
//! (`tests/vectors/ext-tasks-schema`), and `server/discover` against the 2026-07-28 one. Each
//! wait is bounded; the bridge (and QEMU with it) is killed when a test ends, failed or not.
#![cfg(unix)]

mod bridge_support;
mod http_support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use bridge_support::{json, BridgeProcess};
use embedded_mcp_std::mcp_schema::McpSchemas;
use embedded_mcp_tests::child_log::{collect_stderr, listening_port};
use embedded_mcp_tests::qemu::{build_firmware, ensure_qemu, Board};
use serde_json::{json as value, Value};

/// Longest wait for a task to reach a status.
const WAIT: Duration = Duration::from_secs(30);

/// The firmware ELF, built once per test run.
fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        ensure_qemu().unwrap_or_else(|e| panic!("{e}"));
        let dir = embedded_mcp_tests::project_root()
            .join("examples")
            .join("qemu-sensors");
        build_firmware(&dir, Board::Lm3s6965evb.rust_target()).unwrap_or_else(|e| panic!("{e}"))
    })
}

/// The tasks extension's schema (its `draft` revision) and the official MCP schemas.
fn schemas() -> &'static (McpSchemas, McpSchemas) {
    static SCHEMAS: OnceLock<(McpSchemas, McpSchemas)> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let vectors = embedded_mcp_tests::vectors_dir();
        let tasks = McpSchemas::load(&vectors.join("ext-tasks-schema")).expect("tasks schema");
        let mcp = McpSchemas::load(&embedded_mcp_tests::mcp_schema_dir()).expect("MCP schemas");
        (tasks, mcp)
    })
}

/// Checks `answer`'s result against definition `def` of the tasks extension; returns it.
fn checked(def: &str, answer: &Value) -> Value {
    let result = answer
        .get("result")
        .unwrap_or_else(|| panic!("{def}: not a result: {answer}"));
    schemas()
        .0
        .check_def("draft", def, result)
        .unwrap_or_else(|e| panic!("{def}: {e}\n{answer}"));
    result.clone()
}

/// `_meta` of a 2026-07-28 request; `tasks`: it declares the extension.
fn meta(tasks: bool) -> Value {
    let mut caps = value!({"elicitation": {}});
    if tasks {
        caps["extensions"] = value!({"io.modelcontextprotocol/tasks": {}});
    }
    value!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps})
}

fn call(id: &str, tool: &str, arguments: Value, tasks: bool) -> Value {
    value!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments, "_meta": meta(tasks)}})
}

fn task_request(id: &str, method: &str, task: &str, extra: Value) -> Value {
    let mut params = value!({"taskId": task, "_meta": meta(true)});
    if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    value!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A bridge on stdio in front of qemu-sensors, with `sample_temperature` and `set_relay` as
/// task tools: qemu-sensors does not mark them (`#[tool(task = …)]`), which is the case
/// `--task-tools` stays for.
fn stdio_bridge() -> BridgeProcess {
    let fw = firmware().to_string_lossy().into_owned();
    BridgeProcess::start(&[
        "--qemu",
        &fw,
        "--task-tools",
        "sample_temperature,set_relay",
    ])
}

/// Sends `request`; the next line must be its answer (nothing else, progress or log, comes).
fn ask(b: &mut BridgeProcess, request: &Value) -> Value {
    let answer = json(&b.request(&request.to_string()));
    assert_eq!(answer["id"], request["id"], "an answer, not {answer}");
    answer
}

/// Polls `tasks/get` every 100 ms until the task's status is `want`; returns every result seen.
fn poll_until(b: &mut BridgeProcess, task: &str, want: &str) -> Vec<Value> {
    let end = Instant::now() + WAIT;
    let mut seen = Vec::new();
    for n in 0.. {
        let got = ask(
            b,
            &task_request(&format!("get-{n}"), "tasks/get", task, value!({})),
        );
        let got = checked("GetTaskResult", &got);
        let status = got["status"].as_str().unwrap_or_default().to_owned();
        seen.push(got);
        if status == want {
            return seen;
        }
        assert!(
            Instant::now() < end && !["completed", "failed", "cancelled"].contains(&&*status),
            "task {task} never got to {want}: {seen:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    unreachable!()
}

#[test]
fn a_sample_temperature_task_is_polled_to_completion() {
    let mut b = stdio_bridge();
    let discover = value!({"jsonrpc": "2.0", "id": "d", "method": "server/discover",
                           "params": {"_meta": meta(false)}});
    let discovered = ask(&mut b, &discover);
    schemas()
        .1
        .check_response("2026-07-28", "server/discover", &discovered)
        .unwrap_or_else(|e| panic!("{e}\n{discovered}"));
    assert_eq!(
        discovered["result"]["capabilities"]["extensions"],
        value!({"io.modelcontextprotocol/tasks": {}})
    );
    let mut request = call(
        "t",
        "sample_temperature",
        value!({"samples": 4, "intervalMs": 300}),
        true,
    );
    request["params"]["_meta"]["progressToken"] = value!("p");
    request["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = value!("debug");
    let created = checked("CreateTaskResult", &ask(&mut b, &request));
    assert_eq!(created["resultType"], "task");
    assert_eq!(created["status"], "working");
    assert_eq!(created["ttlMs"], 3_600_000);
    let task = created["taskId"].as_str().unwrap().to_owned();
    assert_eq!(task.len(), 32, "128 random bits in hex: {task}");
    let seen = poll_until(&mut b, &task, "completed");
    let messages: Vec<&str> = seen
        .iter()
        .filter_map(|t| t["statusMessage"].as_str())
        .collect();
    assert!(
        messages.iter().any(|m| m.ends_with(" of 4")),
        "the device's progress shows as statusMessage: {messages:?}"
    );
    let done = seen.last().unwrap();
    let result = &done["result"];
    assert_ne!(result["isError"], true, "{done}");
    assert_eq!(result["structuredContent"]["samples"], 4, "{done}");
    assert!(done.get("error").is_none() && done.get("requestState").is_none());
    // Still there after it ended (its TTL is an hour); a normal call still works.
    let again = ask(&mut b, &task_request("g", "tasks/get", &task, value!({})));
    assert_eq!(checked("GetTaskResult", &again)["status"], "completed");
    let plain = ask(&mut b, &call("r", "read_temperature", value!({}), false));
    assert!(
        plain["result"]["structuredContent"]["value"].is_number(),
        "{plain}"
    );
    b.stdin = None;
    assert_eq!(b.wait_exit().code(), Some(0), "{}", b.stderr());
}

#[test]
fn a_task_cancelled_mid_run_leaves_the_device_idle() {
    let mut b = stdio_bridge();
    // 20 samples 1000 ms apart: 19 s on the device if nobody stops it.
    let request = call(
        "t",
        "sample_temperature",
        value!({"samples": 20, "intervalMs": 1000}),
        true,
    );
    let created = checked("CreateTaskResult", &ask(&mut b, &request));
    let task = created["taskId"].as_str().unwrap().to_owned();
    // Running: a progress message has come.
    let end = Instant::now() + WAIT;
    loop {
        let got = ask(&mut b, &task_request("g", "tasks/get", &task, value!({})));
        if checked("GetTaskResult", &got)
            .get("statusMessage")
            .is_some()
        {
            break;
        }
        assert!(Instant::now() < end, "no progress: {got}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let ack = ask(
        &mut b,
        &task_request("c", "tasks/cancel", &task, value!({})),
    );
    assert_eq!(
        checked("CancelTaskResult", &ack),
        value!({"resultType": "complete"})
    );
    let got = ask(&mut b, &task_request("g2", "tasks/get", &task, value!({})));
    assert_eq!(checked("GetTaskResult", &got)["status"], "cancelled");
    // The device dropped the call: an ordinary call is answered at once, not after the
    // 18 s of sampling that were left.
    let started = Instant::now();
    let plain = ask(&mut b, &call("r", "read_temperature", value!({}), false));
    let took = started.elapsed();
    assert!(
        plain["result"]["structuredContent"]["value"].is_number(),
        "{plain}"
    );
    assert!(
        took < Duration::from_secs(3),
        "the device was busy for {took:?}"
    );
    // The cancelled call never answers the client, and its task stays cancelled.
    let got = ask(&mut b, &task_request("g3", "tasks/get", &task, value!({})));
    assert_eq!(got["result"]["status"], "cancelled");
    b.stdin = None;
    assert_eq!(b.wait_exit().code(), Some(0), "{}", b.stderr());
}

#[test]
fn a_set_relay_task_asks_for_approval_through_tasks_update() {
    let mut b = stdio_bridge();
    let request = call("t", "set_relay", value!({"relay": 1, "on": true}), true);
    let created = checked("CreateTaskResult", &ask(&mut b, &request));
    let task = created["taskId"].as_str().unwrap().to_owned();
    let seen = poll_until(&mut b, &task, "input_required");
    let asked = seen.last().unwrap();
    assert_eq!(
        asked["inputRequests"]["approval"]["params"]["message"], "Switch relay 1 on?",
        "{asked}"
    );
    assert!(asked.get("requestState").is_none(), "{asked}");
    let answers = value!({"inputResponses": {"approval": {"action": "accept", "content": {"approve": true}}}});
    let ack = ask(&mut b, &task_request("u", "tasks/update", &task, answers));
    assert_eq!(
        checked("UpdateTaskResult", &ack),
        value!({"resultType": "complete"})
    );
    let seen = poll_until(&mut b, &task, "completed");
    let done = seen.last().unwrap();
    assert_eq!(
        done["result"]["structuredContent"],
        value!({"relay": 1, "on": true, "wasOn": false}),
        "{done}"
    );
    b.stdin = None;
    assert_eq!(b.wait_exit().code(), Some(0), "{}", b.stderr());
}

/// `bridge --http 127.0.0.1:0 --qemu …`: killed (QEMU with it) on drop.
struct HttpQemu {
    child: Child,
    port: u16,
    log: Arc<Mutex<String>>,
}

impl HttpQemu {
    fn start() -> Self {
        let fw = firmware().to_string_lossy().into_owned();
        let mut child = Command::new(bridge_support::BRIDGE)
            .args(["bridge", "--http", "127.0.0.1:0", "--qemu", &fw, "-v"])
            .args(["--task-tools", "sample_temperature"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the bridge");
        let log = collect_stderr(&mut child);
        let end = Instant::now() + WAIT;
        let port = loop {
            let text = log.lock().unwrap().clone();
            if let Some(port) = listening_port(&text) {
                break port;
            }
            if Instant::now() > end {
                let _ = child.kill();
                panic!("the bridge did not start:\n{text}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Self { child, port, log }
    }

    /// POSTs a 2026-07-28 request with the headers the revision asks for (`Mcp-Name`: the
    /// tool, or the task), each on a connection of its own that closes after the answer.
    fn post(&self, body: &Value) -> Value {
        let method = body["method"].as_str().unwrap();
        let params = &body["params"];
        let name = params["name"].as_str().or(params["taskId"].as_str());
        let host = format!("127.0.0.1:{}", self.port);
        let mut headers = vec![
            ("Host", host.as_str()),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", method),
        ];
        if let Some(name) = name {
            headers.push(("Mcp-Name", name));
        }
        let body = body.to_string();
        let r = http_support::request(self.port, "POST", "/mcp", &headers, body.as_bytes());
        assert_eq!(r.status, 200, "{}\n{}", r.text(), self.log.lock().unwrap());
        if r.header("content-type")
            .is_some_and(|c| c.starts_with("text/event-stream"))
        {
            return r.events().pop().expect("an answer");
        }
        r.json()
    }
}

impl Drop for HttpQemu {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn over_http_a_client_that_went_away_gets_its_result_when_it_comes_back() {
    let front = HttpQemu::start();
    // The first client starts a 2-second task, then its connection is gone.
    let request = call(
        "1",
        "sample_temperature",
        value!({"samples": 5, "intervalMs": 500}),
        true,
    );
    let created = checked("CreateTaskResult", &front.post(&request));
    let task = created["taskId"].as_str().unwrap().to_owned();
    // It comes back later, on a new connection, with the same id (HTTP clients pick theirs).
    std::thread::sleep(Duration::from_millis(2500));
    let end = Instant::now() + WAIT;
    let done = loop {
        let got = front.post(&task_request("1", "tasks/get", &task, value!({})));
        let got = checked("GetTaskResult", &got);
        if got["status"] == "completed" {
            break got;
        }
        assert!(Instant::now() < end, "not completed: {got}");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(done["result"]["structuredContent"]["samples"], 5, "{done}");
    // Mcp-Name must name the task.
    let host = format!("127.0.0.1:{}", front.port);
    let body = task_request("2", "tasks/get", &task, value!({})).to_string();
    let headers = [
        ("Host", host.as_str()),
        ("Content-Type", "application/json"),
        ("Accept", "application/json"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tasks/get"),
        ("Mcp-Name", "another-task"),
    ];
    let r = http_support::request(front.port, "POST", "/mcp", &headers, body.as_bytes());
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"]["code"], -32020, "{}", r.text());
}

/// Reads the `data:` of the events of an SSE response, the head checked, each wait bounded.
struct Events {
    input: std::io::BufReader<std::net::TcpStream>,
}

impl Events {
    /// POSTs `body` (a 2026-07-28 request of `method`) and reads the response head.
    fn open(port: u16, method: &str, body: &Value) -> Self {
        use std::io::BufRead;
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(WAIT)).unwrap();
        let host = format!("127.0.0.1:{port}");
        let headers = [
            ("Host", host.as_str()),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", method),
        ];
        let text = body.to_string();
        http_support::write_request(&mut stream, "POST", "/mcp", &headers, text.as_bytes());
        let mut input = std::io::BufReader::new(stream);
        let mut status = String::new();
        input.read_line(&mut status).unwrap();
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        loop {
            let mut line = String::new();
            input.read_line(&mut line).unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
        }
        Self { input }
    }

    /// The next event's data as JSON (within [`WAIT`]).
    fn next(&mut self) -> Value {
        use std::io::BufRead;
        loop {
            let mut line = String::new();
            assert_ne!(self.input.read_line(&mut line).unwrap(), 0, "stream ended");
            if let Some(data) = line.strip_prefix("data: ") {
                return json(data.trim_end());
            }
        }
    }
}

#[test]
fn over_http_a_listen_stream_sees_a_task_go_from_working_to_completed() {
    let front = HttpQemu::start();
    let request = call(
        "1",
        "sample_temperature",
        value!({"samples": 5, "intervalMs": 500}),
        true,
    );
    let created = checked("CreateTaskResult", &front.post(&request));
    let task = created["taskId"].as_str().unwrap().to_owned();
    let listen = value!({"jsonrpc": "2.0", "id": "watch", "method": "subscriptions/listen",
        "params": {"notifications": {"taskIds": [task, "no-such-task"]}, "_meta": meta(true)}});
    let mut events = Events::open(front.port, "subscriptions/listen", &listen);
    let tag = value!({"io.modelcontextprotocol/subscriptionId": "watch"});
    let ack = events.next();
    assert_eq!(
        ack,
        value!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                "params": {"notifications": {"taskIds": [task]}, "_meta": tag}}),
        "only the task the bridge holds is agreed to"
    );
    let mut statuses = Vec::new();
    while statuses.last().map(String::as_str) != Some("completed") {
        let note = events.next();
        schemas()
            .0
            .check_def("draft", "TaskStatusNotification", &note)
            .unwrap_or_else(|e| panic!("{e}\n{note}"));
        assert_eq!(note["params"]["taskId"], task.as_str(), "{note}");
        assert_eq!(note["params"]["_meta"], tag, "{note}");
        statuses.push(note["params"]["status"].as_str().unwrap().to_owned());
        if statuses.last().map(String::as_str) == Some("completed") {
            assert_eq!(
                note["params"]["result"]["structuredContent"]["samples"], 5,
                "{note}"
            );
        }
    }
    assert_eq!(statuses, ["working", "completed"]);
    // Without the extension, taskIds are refused.
    let mut bare = listen.clone();
    bare["params"]["_meta"] = meta(false);
    let host = format!("127.0.0.1:{}", front.port);
    let headers = [
        ("Host", host.as_str()),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "subscriptions/listen"),
    ];
    let body = bare.to_string();
    let r = http_support::request(front.port, "POST", "/mcp", &headers, body.as_bytes());
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"]["code"], -32021, "{}", r.text());
}
