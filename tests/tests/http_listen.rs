//! A legacy session's GET stream on `embedded-mcp bridge --http`: the device's messages tied
//! to no request (`notifications/tools/list_changed`, a log line sent after its request was
//! answered) arrive there as SSE events, the session's log level applies, DELETE ends the
//! stream, and a GET without a session, of an unknown session or not accepting SSE is refused.
#![cfg(unix)]

mod http_support;

use std::io::{BufRead, BufReader};
use std::net::TcpStream;

use http_support::*;
use serde_json::{json, Value};

/// An open GET stream: the response head has been read.
struct Stream {
    input: BufReader<TcpStream>,
}

impl Stream {
    fn open(b: &HttpBridge, session: &str) -> Self {
        let mut stream = TcpStream::connect(("127.0.0.1", b.port)).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        let host = b.host();
        write_request(
            &mut stream,
            "GET",
            "/mcp",
            &[
                ("Host", &host),
                ("Accept", "text/event-stream"),
                ("Mcp-Session-Id", session),
            ],
            b"",
        );
        let mut input = BufReader::new(stream);
        let mut head = Vec::new();
        loop {
            let mut line = String::new();
            input.read_line(&mut line).unwrap();
            if line == "\r\n" {
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

    /// The next event's JSON; `None` when the stream ended (the last chunk).
    fn next(&mut self) -> Option<Value> {
        loop {
            let mut line = String::new();
            if self.input.read_line(&mut line).unwrap() == 0 {
                return None;
            }
            if line == "0\r\n" {
                return None;
            }
            if let Some(data) = line.strip_prefix("data: ") {
                return Some(serde_json::from_str(data.trim_end()).unwrap());
            }
        }
    }
}

fn call(b: &HttpBridge, session: &str, id: u32, level: &str) {
    let r = b.post(
        &[("Mcp-Session-Id", session)],
        &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "announce", "arguments": {"level": level}}})
        .to_string(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["result"]["content"][0]["text"], "announced");
}

#[test]
fn unrelated_messages_reach_the_session_stream() {
    let b = HttpBridge::start(&[]);
    let session = b.open_session("2025-11-25");
    let mut stream = Stream::open(&b, &session);

    call(&b, &session, 1, "info");
    assert_eq!(
        stream.next(),
        Some(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))
    );
    assert_eq!(
        stream.next(),
        Some(json!({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "data": "between requests"}}))
    );

    // At level "warning" the info line is held back, the error line is not.
    let r = b.post(
        &[("Mcp-Session-Id", &session)],
        r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"warning"}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    call(&b, &session, 3, "info");
    call(&b, &session, 4, "error");
    let method = |v: Option<Value>| v.unwrap()["method"].as_str().unwrap().to_owned();
    assert_eq!(method(stream.next()), "notifications/tools/list_changed");
    assert_eq!(method(stream.next()), "notifications/tools/list_changed");
    assert_eq!(
        stream.next().unwrap()["params"]["level"],
        "error",
        "the info line passed the warning level"
    );

    // DELETE ends the session and its stream.
    let host = b.host();
    let r = request(
        b.port,
        "DELETE",
        "/mcp",
        &[("Host", &host), ("Mcp-Session-Id", &session)],
        b"",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(stream.next(), None);
}

#[test]
fn get_needs_a_live_session_and_accepting_sse() {
    let b = HttpBridge::start(&[]);
    let host = b.host();
    let get = |headers: &[(&str, &str)]| {
        let mut all = vec![("Host", host.as_str())];
        all.extend_from_slice(headers);
        request(b.port, "GET", "/mcp", &all, b"")
    };
    let r = get(&[("Accept", "text/event-stream")]);
    assert_eq!(
        (r.status, r.header("allow")),
        (405, Some("POST")),
        "{}",
        r.text()
    );
    let r = get(&[("Accept", "text/event-stream"), ("Mcp-Session-Id", "nope")]);
    assert_eq!(r.status, 404, "{}", r.text());
    let session = b.open_session("2025-11-25");
    let r = get(&[("Accept", "application/json"), ("Mcp-Session-Id", &session)]);
    assert_eq!(r.status, 406, "{}", r.text());
    assert_eq!(r.json()["error"]["code"], -32600);
}
