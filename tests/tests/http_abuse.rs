//! Hostile and careless clients of `embedded-mcp bridge --http`, on loopback: none of them can
//! lock a good client out. In each test the attack runs while a good client (initialize,
//! tools/list, tools/call, each on a fresh connection) must be served within [`PROMPT`], and
//! where the attack sends bytes the bridge's memory is checked to stay bounded.
//!
//! Counts and sizes are kept small (CI budget); each test prints what it measured (run with
//! `--nocapture`; benches/HTTP-FRONT.md records a run).
#![cfg(unix)]

mod http_support;

use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use http_support::*;
use serde_json::{json, Value};

/// How soon a good client must be served, each of its requests.
const PROMPT: Duration = Duration::from_secs(2);

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

/// A good client's job, each request on a fresh connection; returns the slowest request.
fn good_client(b: &HttpBridge) -> Duration {
    let mut slowest = Duration::ZERO;
    let mut timed = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        slowest = slowest.max(t.elapsed());
    };
    let mut session = String::new();
    timed(&mut || session = b.open_session("2025-11-25"));
    timed(&mut || {
        let r = b.post(
            &[("Mcp-Session-Id", &session)],
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        );
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["result"]["tools"][0]["name"], "echo");
    });
    timed(&mut || {
        let r = b.post(
            &[("Mcp-Session-Id", &session)],
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"n":3}}}"#,
        );
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["result"]["content"][0]["text"], r#"{"n":3}"#);
    });
    slowest
}

/// Runs the good client `rounds` times while an attack runs; asserts each was prompt.
fn served_promptly(b: &HttpBridge, rounds: usize, what: &str) {
    for round in 0..rounds {
        let slowest = good_client(b);
        eprintln!("{what}: good client round {round}: slowest request {slowest:?}");
        assert!(slowest < PROMPT, "{what}: a good request took {slowest:?}");
    }
}

/// Growth of the bridge's memory since `before` (KiB), where `/proc` tells.
fn rss_growth(b: &HttpBridge, before: Option<u64>) -> Option<u64> {
    Some(b.rss_kib()?.saturating_sub(before?))
}

#[test]
fn an_endless_head_line_gets_431_and_memory_stays_bounded() {
    let b = HttpBridge::start(&[]);
    let before = b.rss_kib();
    let mut s = TcpStream::connect(("127.0.0.1", b.port)).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
    s.set_read_timeout(Some(TIMEOUT)).unwrap();
    s.write_all(b"GET /mcp HTTP/1.1\r\nX-Long: ").unwrap();
    // 8 MiB of one header line without a newline.
    let chunk = vec![b'a'; 64 * 1024];
    let mut sent = 0;
    while sent < 8 << 20 {
        match s.write(&chunk) {
            Ok(n) => sent += n,
            Err(_) => break,
        }
    }
    let growth = rss_growth(&b, before);
    eprintln!("endless head: sent {sent} B; bridge RSS grew by {growth:?} KiB");
    assert_eq!(
        sent,
        8 << 20,
        "the bridge read what was sent (lingering close)"
    );
    let r = read_response(&mut BufReader::new(s));
    assert_eq!(r.status, 431, "{}", r.text());
    if let Some(growth) = growth {
        assert!(growth < 4 * 1024, "RSS grew by {growth} KiB");
    }
    served_promptly(&b, 1, "after an endless head");
}

/// Opens `n` connections that each send `start` and then trickle one byte of `trickle` every
/// 50 ms until the returned flag is set.
fn trickle(port: u16, n: usize, start: String, trickle: u8) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let mut conns: Vec<TcpStream> = (0..n)
        .filter_map(|_| TcpStream::connect(("127.0.0.1", port)).ok())
        .collect();
    for c in &mut conns {
        let _ = c.set_write_timeout(Some(Duration::from_millis(100)));
        let _ = c.write_all(start.as_bytes());
    }
    let flag = stop.clone();
    std::thread::spawn(move || {
        // Bounded: stops with the flag or after 60 s, whichever comes first.
        let t = Instant::now();
        while !flag.load(Ordering::SeqCst) && t.elapsed() < Duration::from_secs(60) {
            for c in &mut conns {
                let _ = c.write(&[trickle]);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    stop
}

#[test]
fn hundreds_of_trickling_heads_do_not_lock_out_a_good_client() {
    let b = HttpBridge::start(&[]);
    let before = b.rss_kib();
    // More than the default bound of open connections (512): the longest-waiting give way.
    let stop = trickle(
        b.port,
        600,
        format!("POST /mcp HTTP/1.1\r\nHost: {}\r\nX-Slow: ", b.host()),
        b'a',
    );
    std::thread::sleep(Duration::from_millis(300));
    served_promptly(&b, 3, "600 trickling heads");
    eprintln!(
        "600 trickling heads: bridge RSS grew by {:?} KiB",
        rss_growth(&b, before)
    );
    stop.store(true, Ordering::SeqCst);
}

#[test]
fn trickled_bodies_do_not_lock_out_a_good_client() {
    let b = HttpBridge::start(&[]);
    let stop = trickle(
        b.port,
        200,
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n[",
            b.host()
        ),
        b' ',
    );
    std::thread::sleep(Duration::from_millis(300));
    served_promptly(&b, 3, "200 trickled bodies");
    stop.store(true, Ordering::SeqCst);
}

/// Writes `body` in chunked transfer encoding, in pieces of `piece` bytes.
fn write_chunked(out: &mut impl Write, head: &str, body: &[u8], piece: usize) {
    out.write_all(head.as_bytes()).unwrap();
    for part in body.chunks(piece) {
        out.write_all(format!("{:x}\r\n", part.len()).as_bytes())
            .unwrap();
        out.write_all(part).unwrap();
        out.write_all(b"\r\n").unwrap();
    }
    out.write_all(b"0\r\n\r\n").unwrap();
    out.flush().unwrap();
}

#[test]
fn a_chunked_body_is_accepted_and_an_over_long_one_gets_413() {
    let b = HttpBridge::start(&[]);
    let session = b.open_session("2025-11-25");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nMcp-Session-Id: {session}\r\nTransfer-Encoding: chunked\r\n\r\n",
        b.host()
    );
    let call = r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"echo","arguments":{"chunked":true}}}"#;
    let mut conn = Conn::open(b.port);
    write_chunked(&mut conn.stream, &head, call.as_bytes(), 7);
    let r = conn.read();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.text(),
        r#"{"id":"c","jsonrpc":"2.0","result":{"content":[{"text":"{\"chunked\":true}","type":"text"}]}}"#
    );
    // The same connection goes on (keep-alive after a chunked body).
    write_chunked(&mut conn.stream, &head, PING.as_bytes(), 100);
    assert_eq!(conn.read().status, 200);
    // Over the bound while chunked: 413, read by a client that sent it all.
    let mut s = TcpStream::connect(("127.0.0.1", b.port)).unwrap();
    s.set_read_timeout(Some(TIMEOUT)).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut big = PING.as_bytes().to_vec();
    big.resize(2 << 20, b' ');
    write_chunked(&mut s, &head, &big, 64 * 1024);
    let r = read_response(&mut BufReader::new(s));
    assert_eq!(r.status, 413, "{}", r.text());
    served_promptly(&b, 1, "after chunked bodies");
}

#[test]
fn a_client_still_sending_an_over_long_body_reads_its_413() {
    let b = HttpBridge::start(&[]);
    let body = vec![b' '; 2 << 20];
    for attempt in 0..3 {
        let mut s = TcpStream::connect(("127.0.0.1", b.port)).unwrap();
        s.set_read_timeout(Some(TIMEOUT)).unwrap();
        s.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            b.host(),
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        // The whole body goes out (the bridge reads it and drops it)...
        let sent = s.write_all(&body);
        assert!(sent.is_ok(), "attempt {attempt}: {sent:?}");
        // ...and the 413 is there to read, not a reset.
        let r = read_response(&mut BufReader::new(s));
        assert_eq!(r.status, 413, "attempt {attempt}: {}", r.text());
        assert_eq!(r.header("connection"), Some("close"));
    }
}

#[test]
fn sixteen_keep_alive_clients_each_answer_once_to_the_right_client() {
    const CLIENTS: usize = 16;
    const CALLS: usize = 25;
    let b = Arc::new(HttpBridge::start(&[]));
    let barrier = Arc::new(Barrier::new(CLIENTS));
    let threads: Vec<_> = (0..CLIENTS)
        .map(|client| {
            let (b, barrier) = (b.clone(), barrier.clone());
            std::thread::spawn(move || {
                let modern = client % 2 == 1;
                let session = (!modern).then(|| b.open_session("2025-11-25"));
                let host = b.host();
                let mut conn = Conn::open(b.port);
                barrier.wait();
                for call in 0..CALLS {
                    let mut headers = vec![
                        ("Host", host.as_str()),
                        ("Content-Type", "application/json"),
                    ];
                    let mut params = json!({"name": "echo", "arguments": {"c": client, "n": call}});
                    match &session {
                        Some(s) => headers.push(("Mcp-Session-Id", s)),
                        None => {
                            params["_meta"] = modern_meta();
                            headers.extend([
                                ("MCP-Protocol-Version", "2026-07-28"),
                                ("Mcp-Method", "tools/call"),
                                ("Mcp-Name", "echo"),
                            ]);
                        }
                    }
                    let body = json!({"jsonrpc": "2.0", "id": call, "method": "tools/call", "params": params});
                    let r = conn.request("POST", &headers, body.to_string().as_bytes());
                    assert_eq!(r.status, 200, "{}", r.text());
                    let v = r.json();
                    assert_eq!(v["id"], call);
                    let text = v["result"]["content"][0]["text"].as_str().unwrap();
                    let args: Value = serde_json::from_str(text).unwrap();
                    assert_eq!(args, json!({"c": client, "n": call}), "another's answer");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let calls = b
        .device
        .lines()
        .iter()
        .filter(|l| l.contains(r#""method":"tools/call""#))
        .count();
    assert_eq!(calls, CLIENTS * CALLS, "each call reached the device once");
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    let b = HttpBridge::start(&[]);
    let session = b.open_session("2025-11-25");
    let host = b.host();
    let headers = [
        ("Host", host.as_str()),
        ("Content-Type", "application/json"),
        ("Mcp-Session-Id", session.as_str()),
    ];
    let mut conn = Conn::open(b.port);
    let mut all = Vec::new();
    for id in 1..=3 {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"i":{id}}}}}}}"#
        );
        write_request(&mut all, "POST", "/mcp", &headers, call.as_bytes());
    }
    // Three requests in one write.
    conn.stream.write_all(&all).unwrap();
    for id in 1..=3 {
        let r = conn.read();
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["id"], id);
    }
}
