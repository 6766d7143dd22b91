//! The remote gateway link against a far side that speaks only legacy Streamable HTTP (no
//! `server/discover`: a 404 with -32601, as a 2025 server answers): a fake server in this test,
//! on loopback, that records every request. A hub (`bridge::run` in process, `--device
//! far=http://…/mcp#token-file=…`) must open one session with the router's own `initialize`,
//! carry `Mcp-Session-Id`, `MCP-Protocol-Version` and the bearer token on every later request,
//! pass a call's progress before its result, pass the session's GET stream (list changes) to
//! its host, and answer a call whose server went away with an error naming it. A wrong token
//! is an open that fails (401), and the far side never sees a request without one.

mod bridge_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bridge_support::{config, temp_path, Bridge, TIMEOUT};
use embedded_mcp_std::bridge::{BridgeConfig, HubDevice};
use embedded_mcp_std::device::{Endpoint, RemoteConfig};
use serde_json::{json, Value};

const TOKEN: &str = "s3cret-token";

/// One request the fake server got.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn rpc_method(&self) -> String {
        serde_json::from_str::<Value>(&self.body)
            .ok()
            .and_then(|v| v["method"].as_str().map(str::to_owned))
            .unwrap_or_default()
    }
}

/// A legacy-only MCP Streamable HTTP server: one connection per request (`Connection: close`).
struct LegacyServer {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    /// Sends a line on the session's GET stream.
    push: Arc<Mutex<Option<Sender<String>>>>,
    /// Lists a third tool from now on.
    grown: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
}

impl LegacyServer {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let push = Arc::new(Mutex::new(None));
        let stop = Arc::new(AtomicBool::new(false));
        let grown = Arc::new(AtomicBool::new(false));
        let (s, p, g, st) = (seen.clone(), push.clone(), grown.clone(), stop.clone());
        std::thread::spawn(move || {
            while !st.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (s, p, g, st) = (s.clone(), p.clone(), g.clone(), st.clone());
                        std::thread::spawn(move || serve(stream, &s, &p, &g, &st));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Self {
            port,
            seen,
            push,
            grown,
            stop,
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn wait_seen(&self, what: &str, done: impl Fn(&[Seen]) -> bool) -> Vec<Seen> {
        let since = Instant::now();
        loop {
            let seen = self.seen();
            if done(&seen) {
                return seen;
            }
            assert!(since.elapsed() < TIMEOUT, "{what}: {seen:#?}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for LegacyServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn respond(out: &mut TcpStream, status: &str, headers: &str, body: &str) {
    let head = format!(
        "HTTP/1.1 {status}\r\nConnection: close\r\nContent-Length: {}\r\n{headers}\r\n",
        body.len()
    );
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(body.as_bytes());
}

fn serve(
    stream: TcpStream,
    seen: &Mutex<Vec<Seen>>,
    push: &Mutex<Option<Sender<String>>>,
    grown: &AtomicBool,
    stop: &AtomicBool,
) {
    let mut out = stream.try_clone().unwrap();
    let mut input = BufReader::new(stream);
    let mut line = String::new();
    if input.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let method = line.split(' ').next().unwrap_or("").to_owned();
    let mut headers = Vec::new();
    loop {
        line.clear();
        if input.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((n, v)) = l.split_once(':') {
            headers.push((n.trim().to_owned(), v.trim().to_owned()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .map_or(0, |(_, v)| v.parse().unwrap());
    let mut body = vec![0; length];
    input.read_exact(&mut body).unwrap();
    let request = Seen {
        method,
        headers,
        body: String::from_utf8(body).unwrap(),
    };
    seen.lock().unwrap().push(request.clone());
    if request.header("authorization") != Some(&format!("Bearer {TOKEN}")) {
        return respond(
            &mut out,
            "401 Unauthorized",
            "WWW-Authenticate: Bearer\r\n",
            "",
        );
    }
    let json = "Content-Type: application/json\r\n";
    if request.method == "GET" {
        // The session's stream: lines pushed by the test, until the server stops.
        let (tx, rx) = channel();
        *push.lock().unwrap() = Some(tx);
        let _ = out.write_all(
            b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/event-stream\r\n\r\n",
        );
        while !stop.load(Ordering::SeqCst) {
            if let Ok(line) = rx.recv_timeout(Duration::from_millis(20)) {
                let _ = out.write_all(format!("event: message\ndata: {line}\n\n").as_bytes());
            }
        }
        return;
    }
    if request.method == "DELETE" {
        return respond(&mut out, "200 OK", "", "");
    }
    let message: Value = serde_json::from_str(&request.body).unwrap();
    let Some(id) = message.get("id") else {
        return respond(&mut out, "202 Accepted", "", "");
    };
    let result = |r: Value| json!({"jsonrpc": "2.0", "id": id, "result": r}).to_string();
    match message["method"].as_str().unwrap_or("") {
        "server/discover" => respond(
            &mut out,
            "404 Not Found",
            json,
            &json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}}).to_string(),
        ),
        "initialize" => respond(
            &mut out,
            "200 OK",
            &format!("{json}Mcp-Session-Id: s-1\r\n"),
            &result(json!({"protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {"listChanged": true}},
                "serverInfo": {"name": "legacy-far", "version": "1"}})),
        ),
        "tools/list" => {
            let mut tools = vec![
                json!({"name": "echo", "inputSchema": {"type": "object"}}),
                json!({"name": "slow", "inputSchema": {"type": "object"}}),
            ];
            if grown.load(Ordering::SeqCst) {
                tools.push(json!({"name": "third", "inputSchema": {"type": "object"}}));
            }
            respond(&mut out, "200 OK", json, &result(json!({ "tools": tools })))
        }
        "tools/call" if message["params"]["name"] == "huge" => {
            // An answer over the link's line limit (1 MiB).
            let text = "x".repeat(1 << 21);
            let body = result(json!({"content": [{"type": "text", "text": text}]}));
            respond(&mut out, "200 OK", json, &body)
        }
        "tools/call" if message["params"]["name"] == "echo" => {
            let token = &message["params"]["_meta"]["progressToken"];
            let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": token, "progress": 1, "total": 2}});
            let done = result(json!({"content": [{"type": "text", "text": "echoed"}]}));
            let _ = out.write_all(
                format!("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/event-stream\r\n\r\ndata: {progress}\n\n: a comment\n\nevent: message\r\ndata: {done}\r\n\r\n")
                    .as_bytes(),
            );
        }
        "tools/call" => {
            // `slow`: starts its stream and never answers; the server then goes away.
            let _ = out.write_all(
                b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/event-stream\r\n\r\n: working\n\n",
            );
            while !stop.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        _ => respond(&mut out, "200 OK", json, &result(json!({}))),
    }
}

fn hub_of(port: u16, token_file: &std::path::Path) -> BridgeConfig {
    let url = format!(
        "http://127.0.0.1:{port}/mcp#token-file={}",
        token_file.display()
    );
    let device = HubDevice {
        name: "far".into(),
        endpoint: Endpoint::Remote(RemoteConfig::parse(&url).unwrap()),
    };
    let base = config(device.endpoint.clone());
    BridgeConfig {
        devices: vec![device],
        ..base
    }
}

fn tool_names(bridge: &mut Bridge, id: u32) -> Vec<String> {
    let list: Value = serde_json::from_str(&bridge.request(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#
    )))
    .unwrap();
    list["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{list}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_legacy_far_side_gets_one_session_with_the_token_and_its_stream_reaches_the_host() {
    let server = LegacyServer::start();
    let token_file = temp_path("gateway-token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    let mut bridge = Bridge::start(hub_of(server.port, &token_file));
    bridge.initialize("2025-11-25");
    assert_eq!(tool_names(&mut bridge, 2), ["far.echo", "far.slow"]);

    // The probe, then the router's own initialize without a session, then the session on all.
    let seen = server.wait_seen("the session's GET stream", |s| {
        s.iter().any(|r| r.method == "GET")
    });
    assert_eq!(seen[0].rpc_method(), "server/discover");
    assert_eq!(seen[0].header("mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(seen[1].rpc_method(), "initialize");
    assert!(seen[1].header("mcp-session-id").is_none());
    for later in &seen[2..] {
        assert_eq!(later.header("mcp-session-id"), Some("s-1"), "{later:?}");
        assert_eq!(
            later.header("mcp-protocol-version"),
            Some("2025-11-25"),
            "{later:?}"
        );
    }
    assert!(seen
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer s3cret-token")));
    let initialize: Value = serde_json::from_str(&seen[1].body).unwrap();
    assert_eq!(initialize["params"]["protocolVersion"], "2025-11-25");

    // A call's progress before its result, each as the far side wrote it (ids as the host's).
    bridge.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"far.echo","arguments":{},"_meta":{"progressToken":"p"}}}"#);
    assert_eq!(
        bridge.recv(),
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"p","total":2}}"#
    );
    let done: Value = serde_json::from_str(&bridge.recv()).unwrap();
    assert_eq!(done["id"], 3);
    assert_eq!(done["result"]["content"][0]["text"], "echoed", "{done}");

    // An answer over the line limit is that call's error; the next call is served.
    let huge: Value = serde_json::from_str(&bridge.request(
        r#"{"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"far.huge","arguments":{}}}"#,
    ))
    .unwrap();
    assert_eq!(
        huge,
        json!({"jsonrpc": "2.0", "id": "h", "error": {"code": -32603,
            "message": "the gateway's answer is longer than the line limit (1048576 bytes)"}})
    );
    bridge.send(r#"{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"far.echo","arguments":{},"_meta":{"progressToken":"q"}}}"#);
    assert!(bridge.recv().contains("notifications/progress"));
    let again: Value = serde_json::from_str(&bridge.recv()).unwrap();
    assert_eq!(again["result"]["content"][0]["text"], "echoed", "{again}");

    // The session's GET stream: a list change reaches the hub, which lists again and tells
    // its host.
    server.grown.store(true, Ordering::SeqCst);
    let push = server.push.lock().unwrap().clone().expect("a GET stream");
    push.send(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.into())
        .unwrap();
    let changed = bridge.recv();
    assert_eq!(
        changed,
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#
    );
    assert_eq!(
        tool_names(&mut bridge, 5),
        ["far.echo", "far.slow", "far.third"]
    );

    // The far side goes away during a call: the call gets an error that names it.
    bridge.send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"far.slow","arguments":{}}}"#);
    server.wait_seen("the slow call", |s| {
        s.iter().any(|r| r.body.contains("\"slow\""))
    });
    drop(server);
    let failed: Value = serde_json::from_str(&bridge.recv()).unwrap();
    assert_eq!(failed["id"], 4, "{failed}");
    assert_eq!(failed["error"]["code"], -32000, "{failed}");
    let why = failed["error"]["message"].as_str().unwrap();
    assert!(why.contains("gateway"), "{why}");
    let _ = std::fs::remove_file(&token_file);
}

#[test]
fn a_wrong_token_is_a_link_that_does_not_open() {
    let server = LegacyServer::start();
    let token_file = temp_path("gateway-bad-token");
    std::fs::write(&token_file, "not-it").unwrap();
    let mut bridge = Bridge::start(hub_of(server.port, &token_file));
    bridge.initialize("2025-11-25");
    assert!(tool_names(&mut bridge, 2).is_empty());
    bridge.log.wait_for(
        "the gateway refused the link (HTTP 401 Unauthorized: the token is missing or wrong)",
    );
    let seen = server.seen();
    assert!(
        seen.iter().all(|r| r.rpc_method() == "server/discover"),
        "{seen:#?}"
    );
    let _ = std::fs::remove_file(&token_file);
}

mod http_support;

/// A 2026-07-28 far side (`bridge --http` before the scripted device, which marks two arguments
/// of `route` with `x-mcp-header`): a call reaches it statelessly with its `Mcp-Param-*`
/// headers (the far front refuses a call without them, 400 + -32020), from a legacy host (the
/// link puts the request in 2026-07-28 form and the answer back in the legacy one) and from a
/// 2026-07-28 host (its request as it is, its answer too), and a call's progress comes first.
#[test]
fn a_2026_far_side_gets_stateless_calls_with_their_param_headers() {
    let far = http_support::HttpBridge::start(&[]);
    let url = format!("http://127.0.0.1:{}/mcp", far.port);
    let device = HubDevice {
        name: "far".into(),
        endpoint: Endpoint::Remote(RemoteConfig::parse(&url).unwrap()),
    };
    let base = config(device.endpoint.clone());
    let mut bridge = Bridge::start(BridgeConfig {
        devices: vec![device],
        ..base
    });
    bridge.initialize("2025-11-25");
    assert_eq!(
        tool_names(&mut bridge, 2),
        ["far.echo", "far.steps", "far.route", "far.announce"]
    );
    let legacy: Value = serde_json::from_str(&bridge.request(
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"far.route","arguments":{"region":"eu wést","shards":2,"note":"n"}}}"#,
    ))
    .unwrap();
    assert_eq!(
        legacy,
        json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text",
            "text": r#"{"note":"n","region":"eu wést","shards":2}"#}]}}),
        "a legacy answer, without resultType"
    );
    let modern: Value = serde_json::from_str(&bridge.request(&format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"far.route","arguments":{{"region":"us","shards":7}},{}}}}}"#,
        bridge_support::MODERN_META
    )))
    .unwrap();
    assert_eq!(modern["result"]["resultType"], "complete", "{modern}");
    assert!(modern["result"]["isError"].is_null(), "{modern}");
    bridge.send(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"far.steps","arguments":{},"_meta":{"progressToken":9,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"}}}"#);
    let first: Value = serde_json::from_str(&bridge.recv()).unwrap();
    assert_eq!(first["method"], "notifications/progress", "{first}");
    assert_eq!(first["params"]["progressToken"], 9, "{first}");
    let mut last = first;
    while last.get("id").is_none() {
        last = serde_json::from_str(&bridge.recv()).unwrap();
    }
    assert_eq!(last["id"], 5);
    assert_eq!(last["result"]["content"][0]["text"], "done", "{last}");
    // The legacy host's call reached the device as a 2026-07-28 request (stateless).
    let lines = far.device.lines();
    let routed = lines
        .iter()
        .find(|l| l.contains("eu w"))
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert!(
        routed.contains(r#""io.modelcontextprotocol/protocolVersion":"2026-07-28""#),
        "{routed}"
    );
}
