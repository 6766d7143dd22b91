//! What one client of `embedded-mcp bridge --http` cannot do to another (issue 35, the HTTP
//! side; the rules are the clients layer's, `bridge/clients/`), on loopback, each attack with a
//! good client served while it runs and the bridge's memory bounded:
//!
//! - 520 `subscriptions/listen` streams never read do not take the connection table (a stream
//!   is bounded per client and in all, apart from the connections being answered);
//! - 1,000 new sessions leave an idle session alone (sessions are bounded by memory);
//! - in a hub of two devices, each device's log reaches the call it is running, never another
//!   client's.
#![cfg(unix)]

mod http_support;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use http_support::*;
use serde_json::{json, Value};

/// How soon a good client must be served, each of its requests.
const PROMPT: Duration = Duration::from_secs(2);

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

/// A good client (a session, its tool list and a call, each on a fresh connection), each
/// request within [`PROMPT`].
fn good_client(b: &HttpBridge, what: &str) {
    let t = Instant::now();
    let session = b.open_session("2025-11-25");
    let list = b.post(
        &[("Mcp-Session-Id", &session)],
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    assert_eq!(list.status, 200, "{what}: {}", list.text());
    let call = b.post(
        &[("Mcp-Session-Id", &session)],
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"n":3}}}"#,
    );
    assert_eq!(call.status, 200, "{what}: {}", call.text());
    assert_eq!(call.json()["result"]["content"][0]["text"], r#"{"n":3}"#);
    let took = t.elapsed();
    eprintln!("{what}: the good client took {took:?}");
    assert!(took < PROMPT * 3, "{what}: the good client took {took:?}");
}

fn rss_growth(b: &HttpBridge, before: Option<u64>) -> Option<u64> {
    Some(b.rss_kib()?.saturating_sub(before?))
}

/// A listen stream opened and never read (the socket is kept open).
fn unread_listen(b: &HttpBridge) -> TcpStream {
    let body = json!({"jsonrpc": "2.0", "id": 8, "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": true}, "_meta": modern_meta()}})
    .to_string();
    let host = b.host();
    let mut s = TcpStream::connect(("127.0.0.1", b.port)).unwrap();
    write_request(
        &mut s,
        "POST",
        "/mcp",
        &[
            ("Host", &host),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "subscriptions/listen"),
        ],
        body.as_bytes(),
    );
    s
}

#[test]
fn five_hundred_twenty_unread_listen_streams_lock_nobody_out() {
    let b = HttpBridge::start(&[]);
    let before = b.rss_kib();
    let held: Vec<TcpStream> = (0..520).map(|_| unread_listen(&b)).collect();
    // Every one of them was answered (a stream, or a refusal): read the status line of each.
    let mut streams = 0;
    let mut refused = 0;
    for s in &held {
        s.set_read_timeout(Some(TIMEOUT)).unwrap();
        let mut line = String::new();
        BufReader::new(s).read_line(&mut line).unwrap();
        match line.split(' ').nth(1) {
            Some("200") => streams += 1,
            Some("429" | "503") => refused += 1,
            other => panic!("unexpected answer {other:?}: {line}"),
        }
    }
    eprintln!("520 listens: {streams} streams open, {refused} refused");
    assert_eq!(streams + refused, 520);
    assert!(streams <= 128, "streams are bounded: {streams}");
    good_client(&b, "520 unread listen streams");
    let grown = rss_growth(&b, before);
    eprintln!("memory growth: {grown:?} KiB");
    assert!(grown.is_none_or(|kib| kib < 32 * 1024), "{grown:?} KiB");
    drop(held);
}

#[test]
fn a_thousand_new_sessions_leave_an_idle_one_alone() {
    let b = HttpBridge::start(&[]);
    let idle = b.open_session("2025-11-25");
    let before = b.rss_kib();
    for n in 0..1000 {
        b.open_session("2025-11-25");
        if n % 250 == 0 {
            good_client(&b, "new sessions");
        }
    }
    let grown = rss_growth(&b, before);
    eprintln!("1,000 sessions: memory growth {grown:?} KiB");
    assert!(grown.is_none_or(|kib| kib < 16 * 1024), "{grown:?} KiB");
    let r = b.post(&[("Mcp-Session-Id", &idle)], PING);
    assert_eq!(r.status, 200, "the idle session was evicted: {}", r.text());
}

/// A device of the hub on a loopback port: one tool, `slow`, which logs `from NAME` after
/// `log_after` and answers after `answer_after`.
fn slow_device(name: &'static str, log_after: u64, answer_after: u64) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            std::thread::spawn(move || serve_slow(stream, name, log_after, answer_after));
        }
    });
    port
}

fn serve_slow(stream: TcpStream, name: &str, log_after: u64, answer_after: u64) {
    let mut out = stream.try_clone().unwrap();
    for line in BufReader::new(stream).lines() {
        let Ok(line) = line else { return };
        let msg: Value = serde_json::from_str(&line).unwrap();
        let (Some(id), Some(method)) = (msg.get("id").cloned(), msg["method"].as_str()) else {
            continue;
        };
        let result = match method {
            "initialize" => json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": name, "version": "1"}}),
            "tools/list" => json!({"tools": [{"name": "slow", "inputSchema": {"type": "object"}}]}),
            "tools/call" => {
                std::thread::sleep(Duration::from_millis(log_after));
                let log = json!({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "data": format!("from {name}")}});
                writeln!(out, "{log}").unwrap();
                std::thread::sleep(Duration::from_millis(answer_after));
                json!({"content": [{"type": "text", "text": name}]})
            }
            _ => json!({}),
        };
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
        writeln!(out, "{answer}").unwrap();
    }
}

#[test]
fn in_a_hub_each_devices_log_reaches_the_call_it_runs() {
    // Device a logs late in a long call; device b logs at once in a short one.
    let a = slow_device("a", 600, 50);
    let b = slow_device("b", 0, 100);
    let mut child = Command::new(bridge_binary())
        .args(["bridge", "--http", "127.0.0.1:0", "-v"])
        .args(["--device", &format!("a=tcp:127.0.0.1:{a}")])
        .args(["--device", &format!("b=tcp:127.0.0.1:{b}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the bridge");
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let port = stderr
        .lines()
        .map_while(Result::ok)
        .find_map(|l| {
            let at = l.find("listening: http://127.0.0.1:")?;
            let rest = &l[at + "listening: http://127.0.0.1:".len()..];
            rest.split('/').next()?.parse::<u16>().ok()
        })
        .expect("the bridge listens");
    let result = std::panic::catch_unwind(|| {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}})
        .to_string();
        let open = || {
            let r = post_in(port, None, &init);
            assert_eq!(r.status, 200, "{}", r.text());
            r.header("mcp-session-id").unwrap().to_owned()
        };
        let (y, x) = (open(), open());
        let call = |tool: &str| {
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": tool, "arguments": {}}})
            .to_string()
        };
        // Session Y calls a.slow, then client X calls b.slow while Y's call runs.
        let (y_answer, x_answer) = std::thread::scope(|scope| {
            let y_call = scope.spawn(|| post_in(port, Some(&y), &call("a.slow")));
            std::thread::sleep(Duration::from_millis(200));
            let x_answer = post_in(port, Some(&x), &call("b.slow"));
            (y_call.join().unwrap(), x_answer)
        });
        let logs = |r: &Response| -> Vec<String> {
            r.events()
                .iter()
                .filter(|e| e["method"] == "notifications/message")
                .map(|e| e["params"]["data"].as_str().unwrap_or("").to_owned())
                .collect()
        };
        assert_eq!(logs(&x_answer), ["from b"], "{}", x_answer.text());
        assert_eq!(logs(&y_answer), ["from a"], "{}", y_answer.text());
    });
    let _ = child.kill();
    let _ = child.wait();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// A POST in `session` (none: `initialize`) accepting an SSE answer, on a fresh connection.
fn post_in(port: u16, session: Option<&str>, body: &str) -> Response {
    let host = format!("127.0.0.1:{port}");
    let mut headers = vec![
        ("Host", host.as_str()),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    if let Some(session) = session {
        headers.push(("Mcp-Session-Id", session));
    }
    request(port, "POST", "/mcp", &headers, body.as_bytes())
}
