//! Replicas behind nginx, in front of remote gateways (issue 39), everything on loopback:
//!
//! - two gateways, `embedded-mcp bridge --http` each in front of a QEMU firmware (qemu-sensors,
//!   a Cortex-M3, as hub device `sensors`; qemu-riscv, RISC-V `virt`, as `riscv`);
//! - two top-level replicas, each `bridge --http --device bench1=http://GATEWAY1/mcp --device
//!   bench2=http://GATEWAY2/mcp --allowed-host NGINX`;
//! - nginx from Debian in front, configured as BRIDGE.md's recipe ("Replicas behind nginx"):
//!   2026-07-28 requests spread with no affinity, legacy sessions pinned by `Mcp-Session-Id`.
//!
//! A gateway is also served over TLS (nginx, a certificate made by openssl): a hub linking it
//! with `https://…#ca-file=` calls it, one trusting only the platform's roots does not connect.
//!
//! A client (this test, speaking HTTP itself) lists both gateways' nested tools, calls each,
//! gets a person's approval through the top hub's shim in a legacy session, sees its calls go
//! on when one replica is killed, and sees a gateway that dies mid-call give that call a clear
//! error, its tools withdrawn with `list_changed` and restored when it comes back. With
//! `EMCP_PYTHON_SDK` naming a Python that has the official SDK (2.x), the same topology also
//! serves `tests/clients/gateway_client.py` (streamable HTTP, 2026-07-28 and legacy) before the
//! replica is killed: `tests/clients/run.sh` runs it so (its venv is made there, after the cargo
//! tests in CI).
//! Every process (bridges, QEMU, nginx) is stopped on drop, also when the test fails.
#![cfg(unix)]

mod http_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use embedded_mcp_tests::child_log::{collect_stderr, listening_port};
use embedded_mcp_tests::nginx::Nginx;
use embedded_mcp_tests::qemu::{example_firmware, Board};
use http_support::{bridge_binary, TIMEOUT};
use serde_json::{json, Value};

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

/// A bridge process (its stderr kept); killed and waited for on drop (its QEMU goes with it).
struct Bridge {
    child: Child,
    port: u16,
    log: Arc<Mutex<String>>,
}

impl Bridge {
    /// Starts `bridge --http 127.0.0.1:PORT ARGS` (PORT 0: any) and waits until it listens.
    fn start(port: u16, args: &[String]) -> Self {
        let mut child = Command::new(bridge_binary())
            .args(["bridge", "--http", &format!("127.0.0.1:{port}"), "-vv"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start a bridge");
        let log = collect_stderr(&mut child);
        let since = Instant::now();
        let port = loop {
            let text = log.lock().unwrap().clone();
            if let Some(port) = listening_port(&text) {
                break port;
            }
            if since.elapsed() > TIMEOUT || child.try_wait().unwrap().is_some() {
                let _ = child.kill();
                panic!("the bridge did not start:\n{text}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Self { child, port, log }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// How many `tools/call` requests reached this bridge from its HTTP clients.
    fn calls_served(&self) -> usize {
        let log = self.log.lock().unwrap();
        log.lines()
            .filter(|l| {
                !l.contains(": bench") && l.contains("from host") && l.contains("tools/call")
            })
            .count()
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A folder of this test's own, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("emcp-gateway-nginx-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A TLS server in front of one gateway (`https://` links), its certificate made by openssl for
/// `127.0.0.1` (not a CA: it is its own trust anchor for `#ca-file=`).
fn tls_front(dir: &Path, port: u16, gateway: u16) -> String {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let made = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
        ])
        .args(["-nodes", "-days", "2", "-subj", "/CN=embedded-mcp-test"])
        .args(["-addext", "subjectAltName=IP:127.0.0.1"])
        .args(["-addext", "basicConstraints=critical,CA:FALSE"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stdin(Stdio::null())
        .output()
        .expect("run openssl");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    format!(
        r#"  server {{
    listen 127.0.0.1:{port} ssl;
    ssl_certificate {};
    ssl_certificate_key {};
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $http_host;
    proxy_buffering off;
    location = /mcp {{ proxy_pass http://127.0.0.1:{gateway}; }}
  }}"#,
        cert.display(),
        key.display()
    )
}

/// The `http { }` body of BRIDGE.md's recipe, on loopback ports.
fn recipe(front: u16, replicas: &[u16]) -> String {
    let servers: String = replicas
        .iter()
        .map(|p| format!("    server 127.0.0.1:{p};\n"))
        .collect();
    format!(
        r#"  log_format mcp '$request_method $status $http_mcp_method "$http_mcp_name" upstream=$upstream_addr status=$upstream_status';
  access_log ACCESS mcp;
  upstream mcp_spread {{
{servers}    keepalive 16;
  }}
  upstream mcp_sessions {{
    hash $http_mcp_session_id consistent;
{servers}    keepalive 16;
  }}
  server {{
    listen 127.0.0.1:{front};
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $http_host;
    proxy_buffering off;
    proxy_read_timeout 1h;
    location = /mcp {{
      if ($http_mcp_session_id) {{ rewrite ^ /mcp-session last; }}
      proxy_pass http://mcp_spread;
    }}
    location = /mcp-session {{
      internal;
      proxy_pass http://mcp_sessions/mcp;
      proxy_next_upstream error timeout http_404 non_idempotent;
    }}
  }}"#
    )
}

/// The client, talking to nginx.
struct Client {
    port: u16,
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": MODERN,
           "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}})
}

impl Client {
    /// Sends a POST on a fresh connection; its answer is read with [`Answer`].
    fn send(&self, headers: &[(&str, &str)], body: &Value) -> Answer {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        let body = body.to_string();
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            self.port,
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        Answer::read(BufReader::new(stream))
    }

    /// A 2026-07-28 request (its headers made from the body).
    fn modern(&self, id: u64, method: &str, mut params: Value) -> Answer {
        params["_meta"] = meta();
        let name = params["name"].as_str().map(str::to_owned);
        let mut headers = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", method)];
        if let Some(name) = &name {
            headers.push(("Mcp-Name", name));
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&headers, &body)
    }

    fn tool_names(&self) -> Vec<String> {
        let mut answer = self.modern(1, "tools/list", json!({}));
        assert_eq!(answer.status, 200);
        let list = answer.next();
        list["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{list}"))
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    }

    /// A 2026-07-28 call's final answer.
    fn call(&self, tool: &str, arguments: Value) -> Value {
        let mut answer = self.modern(
            7,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        );
        assert_eq!(answer.status, 200, "{tool}");
        answer.response()
    }
}

/// An answer being read: its status, headers, and the messages (SSE events or a JSON body) as
/// they come.
struct Answer {
    input: BufReader<TcpStream>,
    status: u16,
    headers: Vec<(String, String)>,
    pending: String,
}

impl Answer {
    fn read(mut input: BufReader<TcpStream>) -> Self {
        let mut line = String::new();
        input.read_line(&mut line).unwrap();
        let status = line.split(' ').nth(1).unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            line.clear();
            input.read_line(&mut line).unwrap();
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let (n, v) = l.split_once(':').unwrap();
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
        Self {
            input,
            status,
            headers,
            pending: String::new(),
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The next message: an event's data, or the JSON body.
    fn next(&mut self) -> Value {
        let chunked = self.header("transfer-encoding") == Some("chunked");
        if self.header("content-type") == Some("application/json") {
            let body = if chunked {
                let mut all = Vec::new();
                while let Some(chunk) = self.chunk() {
                    all.extend_from_slice(&chunk);
                }
                all
            } else {
                let len = self
                    .header("content-length")
                    .unwrap_or("0")
                    .parse()
                    .unwrap();
                let mut body = vec![0; len];
                self.input.read_exact(&mut body).unwrap();
                body
            };
            return serde_json::from_slice(&body).unwrap();
        }
        loop {
            if let Some(end) = self.pending.find("\n\n") {
                let event: String = self.pending.drain(..end + 2).collect();
                let data: String = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data: "))
                    .collect();
                if !data.is_empty() {
                    return serde_json::from_str(&data).unwrap();
                }
                continue;
            }
            let chunk = self
                .chunk()
                .expect("the stream ended before its next message");
            self.pending.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// The next chunk of a chunked body; `None` at its end.
    fn chunk(&mut self) -> Option<Vec<u8>> {
        let mut size = String::new();
        self.input.read_line(&mut size).unwrap();
        let size = usize::from_str_radix(size.trim_end(), 16).unwrap();
        let mut chunk = vec![0; size + 2];
        self.input.read_exact(&mut chunk).unwrap();
        chunk.truncate(size);
        (size > 0).then_some(chunk)
    }

    /// The messages up to the response (progress and logs skipped), the response.
    fn response(&mut self) -> Value {
        loop {
            let message = self.next();
            if message.get("id").is_some() {
                return message;
            }
        }
    }
}

fn structured(answer: &Value) -> &Value {
    assert!(
        answer["result"]["isError"] != json!(true),
        "a tool error: {answer}"
    );
    &answer["result"]["structuredContent"]
}

/// Waits (bounded) until the tool list through nginx satisfies `done`.
fn wait_tools(client: &Client, what: &str, done: impl Fn(&[String]) -> bool) -> Vec<String> {
    let since = Instant::now();
    loop {
        let names = client.tool_names();
        if done(&names) {
            return names;
        }
        assert!(since.elapsed() < TIMEOUT, "{what}: {names:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn replicas_behind_nginx_front_two_gateways_and_outlive_a_replica_and_a_gateway() {
    static SENSORS: OnceLock<PathBuf> = OnceLock::new();
    static RISCV: OnceLock<PathBuf> = OnceLock::new();
    let sensors = example_firmware("qemu-sensors", Board::Lm3s6965evb, &SENSORS);
    let riscv = example_firmware("qemu-riscv", Board::RiscvVirt, &RISCV);
    let scratch = Scratch::new();

    let gateway1_args = vec![
        "--device".to_owned(),
        format!("sensors=qemu:{}", sensors.display()),
    ];
    let mut gateway1 = Bridge::start(0, &gateway1_args);
    let tls = free_port();
    let gateway2 = Bridge::start(
        0,
        &[
            "--device".into(),
            format!("riscv=qemu:{}", riscv.display()),
            "--allowed-host".into(),
            format!("127.0.0.1:{tls}"),
        ],
    );
    let front = free_port();
    let replica_args = vec![
        "--device".to_owned(),
        format!("bench1={}", gateway1.url()),
        "--device".into(),
        format!("bench2={}", gateway2.url()),
        "--allowed-host".into(),
        format!("127.0.0.1:{front}"),
    ];
    let mut replicas: Vec<Option<Bridge>> = (0..2)
        .map(|_| Some(Bridge::start(0, &replica_args)))
        .collect();
    let ports: Vec<u16> = replicas.iter().flatten().map(|r| r.port).collect();
    let config = recipe(front, &ports).replace(
        "ACCESS",
        &scratch.0.join("access.log").display().to_string(),
    ) + "\n"
        + &tls_front(&scratch.0, tls, gateway2.port);
    let _nginx = Nginx::start(&scratch.0, &config, front).unwrap_or_else(|e| panic!("{e}"));
    let client = Client { port: front };

    // Both gateways' tools, nested under the link's name and the far hub's.
    let names = wait_tools(&client, "both gateways listed", |names| {
        names.iter().any(|n| n == "bench1.sensors.read_temperature")
            && names.iter().any(|n| n == "bench2.riscv.read_temperature")
    });
    assert_eq!(names.len(), 12, "{names:?}");

    // Each gateway's board answers its own calls; 2026-07-28 calls spread over both replicas.
    for _ in 0..3 {
        let one = client.call("bench1.sensors.device_info", json!({}));
        assert_eq!(structured(&one)["firmware"], "qemu-sensors", "{one}");
        let two = client.call("bench2.riscv.device_info", json!({}));
        assert_eq!(structured(&two)["firmware"], "qemu-riscv", "{two}");
    }
    let served: Vec<usize> = replicas
        .iter()
        .flatten()
        .map(Bridge::calls_served)
        .collect();
    assert_eq!(served.iter().sum::<usize>(), 6, "{served:?}");
    assert!(served.iter().all(|&n| n > 0), "no affinity: {served:?}");

    // A legacy session (pinned by its id) gets a person's approval through the top hub's shim:
    // the device's input_required becomes elicitation/create on the call's stream.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {"elicitation": {}},
                   "clientInfo": {"name": "gateway-test", "version": "1"}}});
    let mut opened = client.send(&[], &init);
    assert_eq!(opened.status, 200);
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    assert_eq!(opened.next()["result"]["protocolVersion"], LEGACY);
    let in_session = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", LEGACY),
    ];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(client.send(&in_session, &initialized).status, 202);
    let relay = json!({"jsonrpc": "2.0", "id": "on", "method": "tools/call",
        "params": {"name": "bench2.riscv.set_relay", "arguments": {"relay": 1, "on": true}}});
    let mut call = client.send(&in_session, &relay);
    assert_eq!(call.status, 200);
    let ask = call.next();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let yes = json!({"jsonrpc": "2.0", "id": ask["id"],
        "result": {"action": "accept", "content": {"approve": true}}});
    assert_eq!(client.send(&in_session, &yes).status, 202);
    let done = call.response();
    assert_eq!(done["id"], "on", "{done}");
    assert_eq!(
        structured(&done),
        &json!({"relay": 1, "on": true, "wasOn": false}),
        "{done}"
    );
    let info = client.call("bench2.riscv.device_info", json!({}));
    assert_eq!(structured(&info)["relays"], json!([false, true]), "{info}");

    // More sessions: whichever replica each one's hash picks first, its requests reach it (a
    // replica that does not know a session answers 404 and nginx passes the request on).
    for n in 0..6 {
        let mut opened = client.send(&[], &init);
        let session = opened
            .header("mcp-session-id")
            .expect("a session")
            .to_owned();
        opened.next();
        let in_session = [
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", LEGACY),
        ];
        let list = json!({"jsonrpc": "2.0", "id": n, "method": "tools/list"});
        let mut listed = client.send(&in_session, &list);
        assert_eq!(listed.status, 200, "session {n}");
        assert_eq!(
            listed.next()["result"]["tools"].as_array().map(Vec::len),
            Some(12)
        );
    }
    let log = std::fs::read_to_string(scratch.0.join("access.log")).unwrap();
    let passed_on = log.lines().filter(|l| l.contains("status=404, ")).count();
    eprintln!("session requests passed on after a 404: {passed_on}");

    // The official Python SDK through nginx, when a Python with it is named (run.sh does).
    if let Ok(python) = std::env::var("EMCP_PYTHON_SDK") {
        let script = embedded_mcp_tests::project_root().join("tests/clients/gateway_client.py");
        let out = Command::new(python)
            .arg(script)
            .arg(format!("http://127.0.0.1:{front}/mcp"))
            .stdin(Stdio::null())
            .output()
            .expect("run the Python SDK client");
        let text = String::from_utf8_lossy(&out.stdout);
        eprintln!("{text}{}", String::from_utf8_lossy(&out.stderr));
        assert!(
            out.status.success(),
            "the Python SDK client failed:\n{text}"
        );
    }

    // https:// (rustls): a gateway behind TLS, trusted through its certificate file; without
    // it the platform's roots do not know the issuer and the link does not open.
    let cert = scratch.0.join("cert.pem");
    let secure = Bridge::start(
        0,
        &[
            "--device".into(),
            format!("tls=https://127.0.0.1:{tls}/mcp#ca-file={}", cert.display()),
        ],
    );
    let direct = Client { port: secure.port };
    let info = direct.call("tls.riscv.device_info", json!({}));
    assert_eq!(structured(&info)["firmware"], "qemu-riscv", "{info}");
    let untrusted = Bridge::start(
        0,
        &[
            "--device".into(),
            format!("tls=https://127.0.0.1:{tls}/mcp"),
        ],
    );
    let since = Instant::now();
    while !untrusted
        .log
        .lock()
        .unwrap()
        .contains("invalid peer certificate: UnknownIssuer")
    {
        assert!(
            since.elapsed() < TIMEOUT,
            "{}",
            untrusted.log.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    drop((secure, untrusted));

    // A task (the tasks extension) whose call crosses the link: the hub that linked the
    // gateway holds the task, the gateway and its device see an ordinary call.
    let tasking = Bridge::start(
        0,
        &[
            "--device".into(),
            format!("bench1={}", gateway1.url()),
            "--task-tools".into(),
            "bench1.sensors.sample_temperature".into(),
        ],
    );
    let direct = Client { port: tasking.port };
    let with_tasks = |mut params: Value| {
        params["_meta"] = meta();
        params["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"] =
            json!({"io.modelcontextprotocol/tasks": {}});
        params
    };
    let body = json!({"jsonrpc": "2.0", "id": 60, "method": "tools/call", "params": with_tasks(
        json!({"name": "bench1.sensors.sample_temperature", "arguments": {"samples": 3}}))});
    let headers = [
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "bench1.sensors.sample_temperature"),
    ];
    let created = direct.send(&headers, &body).response();
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    let since = Instant::now();
    let finished = loop {
        let get = json!({"jsonrpc": "2.0", "id": 61, "method": "tasks/get",
            "params": with_tasks(json!({"taskId": task}))});
        let headers = [
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tasks/get"),
            ("Mcp-Name", task.as_str()),
        ];
        let got = direct.send(&headers, &get).response();
        if got["result"]["status"] != "working" {
            break got;
        }
        assert!(since.elapsed() < TIMEOUT, "{got}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(finished["result"]["status"], "completed", "{finished}");
    assert_eq!(
        finished["result"]["result"]["structuredContent"]["samples"], 3,
        "{finished}"
    );
    drop(tasking);

    // One replica killed: the calls go on (nginx passes a request it could not hand to the
    // dead replica to the other one).
    drop(replicas[0].take());
    for n in 0..6 {
        let tool = if n % 2 == 0 {
            "bench1.sensors.read_temperature"
        } else {
            "bench2.riscv.read_temperature"
        };
        let answer = client.call(tool, json!({}));
        assert!(structured(&answer)["value"].is_number(), "{answer}");
    }

    // A 2026-07-28 client cancels by closing its stream: nginx closes its request to the replica,
    // the replica's router cancels, its link closes the stream to the gateway, and the gateway
    // tells the device.
    let headers = [
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "bench1.sensors.sample_temperature"),
    ];
    let slow = |id: u64| {
        let mut params = json!({"name": "bench1.sensors.sample_temperature",
            "arguments": {"samples": 10, "intervalMs": 300}, "_meta": meta()});
        params["_meta"]["progressToken"] = json!(id);
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    };
    let mut abandoned = client.send(&headers, &slow(80));
    assert_eq!(
        abandoned.next()["method"],
        "notifications/progress",
        "the call runs"
    );
    drop(abandoned);
    let since = Instant::now();
    while !gateway1
        .log
        .lock()
        .unwrap()
        .lines()
        .any(|l| l.contains("to device") && l.contains("notifications/cancelled"))
    {
        assert!(
            since.elapsed() < TIMEOUT,
            "the cancel never reached the device"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    // A gateway dies mid-call: the call gets an error naming it, its tools are withdrawn with
    // list_changed on a listen stream, and come back with another list_changed when it does.
    let mut listen = client.modern(
        90,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    assert_eq!(listen.status, 200);
    assert_eq!(
        listen.next()["method"],
        "notifications/subscriptions/acknowledged"
    );
    let mut running = client.send(&headers, &slow(8));
    assert_eq!(running.status, 200);
    assert_eq!(
        running.next()["method"],
        "notifications/progress",
        "the call runs"
    );
    let killed_at = Instant::now();
    let _ = gateway1.child.kill();
    let _ = gateway1.child.wait();
    let failed = running.response();
    assert_eq!(failed["error"]["code"], -32000, "{failed}");
    let why = failed["error"]["message"].as_str().unwrap();
    assert!(why.contains("the gateway went away"), "{why}");
    assert_eq!(listen.next()["method"], "notifications/tools/list_changed");
    let withdrawn = killed_at.elapsed();
    let names = client.tool_names();
    assert!(names.iter().all(|n| !n.starts_with("bench1.")), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("bench2.")), "{names:?}");
    let other = client.call("bench2.riscv.read_temperature", json!({}));
    assert!(structured(&other)["value"].is_number(), "{other}");

    gateway1 = Bridge::start(gateway1.port, &gateway1_args);
    assert_eq!(listen.next()["method"], "notifications/tools/list_changed");
    let restored = killed_at.elapsed();
    let names = client.tool_names();
    assert!(
        names.iter().any(|n| n == "bench1.sensors.read_temperature"),
        "{names:?}"
    );
    let back = client.call("bench1.sensors.device_info", json!({}));
    assert_eq!(structured(&back)["firmware"], "qemu-sensors", "{back}");
    eprintln!("gateway killed: tools withdrawn after {withdrawn:?}, restored after {restored:?}");
    drop(gateway1);
}
