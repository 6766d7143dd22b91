//! The HTTP front's own bounds, set small through `HttpConfig` on a front run in this process
//! (the CLI keeps the defaults): the head deadline (also the keep-alive idle bound), the body
//! deadline (408), and the connection bound, where a waiting connection gives way to a newcomer
//! and streams, bounded apart, never take the table.
#![cfg(unix)]

mod http_support;

use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use embedded_mcp_std::bridge::http::{serve_on, HttpConfig};
use embedded_mcp_std::bridge::BridgeConfig;
use embedded_mcp_std::device::{Endpoint, Logger};
use http_support::*;

const SHORT: Duration = Duration::from_millis(300);

/// A front with small bounds in front of a scripted device, on a thread of its own (it serves
/// until the test process ends); returns its port and the device.
fn front(max_connections: usize) -> (u16, ScriptedDevice) {
    let device = ScriptedDevice::start();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut http = HttpConfig::new(listener.local_addr().unwrap());
    http.head_timeout = SHORT;
    http.body_timeout = SHORT;
    http.max_connections = max_connections;
    let mut bridge = BridgeConfig::new(Endpoint::Tcp(format!("127.0.0.1:{}", device.port)));
    bridge.timeout = Duration::from_secs(5);
    let log = Logger::to_writer(0, "t", Box::new(std::io::sink()));
    std::thread::spawn(move || serve_on(listener, bridge, http, log));
    let start = Instant::now();
    while !device
        .lines()
        .iter()
        .any(|l| l.contains(r#""method":"tools/list""#))
    {
        assert!(start.elapsed() < TIMEOUT, "the front did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    (port, device)
}

/// Waits until the server closes `s`; returns how long that took (`None`: not within 5 s).
fn closed_after(s: &mut TcpStream) -> Option<Duration> {
    let start = Instant::now();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = [0u8; 256];
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) if start.elapsed() < Duration::from_secs(5) => {
                return Some(start.elapsed())
            }
            Ok(_) => continue,
            _ => return None,
        }
    }
}

fn ping(port: u16) -> Response {
    let host = format!("127.0.0.1:{port}");
    request(
        port,
        "POST",
        "/mcp",
        &[
            ("Host", &host),
            ("Content-Type", "application/json"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/list"),
        ],
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    )
}

#[test]
fn a_head_or_an_idle_keep_alive_past_the_deadline_is_closed() {
    let (port, _device) = front(64);
    let mut slow = TcpStream::connect(("127.0.0.1", port)).unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: x").unwrap();
    let waited = closed_after(&mut slow).expect("closed");
    assert!(waited >= SHORT / 2 && waited < SHORT * 5, "{waited:?}");
    // A keep-alive connection that stays idle after an answer is closed too.
    let mut conn = Conn::open(port);
    let host = format!("127.0.0.1:{port}");
    assert_eq!(conn.request("DELETE", &[("Host", &host)], b"").status, 405);
    assert!(closed_after(&mut conn.stream).is_some());
    assert_eq!(ping(port).status, 200);
}

#[test]
fn a_body_past_its_deadline_gets_408() {
    let (port, device) = front(64);
    let before = device.lines().len();
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(TIMEOUT)).unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
    );
    s.write_all(head.as_bytes()).unwrap();
    let r = read_response(&mut BufReader::new(s));
    assert_eq!(r.status, 408, "{}", r.text());
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request timeout: the body did not arrive in time"}}"#
    );
    assert_eq!(r.header("connection"), Some("close"));
    assert_eq!(device.lines().len(), before, "nothing reached the device");
}

#[test]
fn waiting_connections_give_way_and_streams_never_take_the_table() {
    let (port, _device) = front(4);
    let host = format!("127.0.0.1:{port}");
    // Four idle connections fill the table; a newcomer is served, the oldest idle one closed.
    let mut idle: Vec<TcpStream> = (0..4)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(ping(port).status, 200);
    assert!(closed_after(&mut idle[0]).is_some(), "the oldest gave way");
    drop(idle);
    // Streams are bounded apart from the table (a quarter of it: one here), so they never
    // take every connection: the first GET stream opens, the next ones are turned away (503,
    // everyone's bound), and a newcomer is served while the stream goes on.
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let mut statuses = Vec::new();
    let mut streams = Vec::new();
    for _ in 0..4 {
        let r = request(
            port,
            "POST",
            "/mcp",
            &[("Host", &host), ("Content-Type", "application/json")],
            init.as_bytes(),
        );
        let session = r.header("mcp-session-id").unwrap().to_owned();
        let mut conn = TcpStream::connect(("127.0.0.1", port)).unwrap();
        conn.set_read_timeout(Some(TIMEOUT)).unwrap();
        let get = format!(
            "GET /mcp HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\n\r\n"
        );
        conn.write_all(get.as_bytes()).unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(&mut BufReader::new(&conn), &mut line).unwrap();
        statuses.push(line.split(' ').nth(1).unwrap_or("").to_owned());
        streams.push(conn);
    }
    assert_eq!(statuses, ["200", "503", "503", "503"]);
    let r = ping(port);
    assert_eq!(r.status, 200, "{}", r.text());
    // The stream ends: another may open.
    drop(streams);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(ping(port).status, 200);
}
