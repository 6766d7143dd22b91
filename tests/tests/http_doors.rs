//! The doors of `embedded-mcp bridge --http`: `Host`, `Origin`, the bearer token, the body
//! bound, and bad methods, paths, bodies and headers. Each refusal is a 4xx with a JSON-RPC error
//! body, and none reaches the device (its received lines are compared at the end).
#![cfg(unix)]

mod http_support;

use std::io::BufReader;
use std::net::TcpStream;

use http_support::*;
use serde_json::json;

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

fn list_modern(id: u32) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/list","params":{"_meta": modern_meta()}})
        .to_string()
}

const MODERN: [(&str, &str); 2] = [
    ("MCP-Protocol-Version", "2026-07-28"),
    ("Mcp-Method", "tools/list"),
];

/// Lines the device got, without the start (the front's initialize and initialized, then the
/// router's one listing of the device's tools).
fn device_lines_after_handshake(b: &HttpBridge) -> Vec<String> {
    let lines = b.device.lines();
    assert!(lines[0].contains(r#""method":"initialize""#), "{lines:?}");
    assert!(lines[1].contains("notifications/initialized"), "{lines:?}");
    assert_eq!(
        lines[2],
        r#"{"id":"embedded-mcp-bridge-1","jsonrpc":"2.0","method":"tools/list","params":{}}"#
    );
    lines[3..].to_vec()
}

#[test]
fn host_and_origin_are_checked_before_anything_else() {
    let b = HttpBridge::start(&[]);
    let session = b.open_session("2025-11-25");
    // A DNS-rebinding attempt: foreign Host and Origin.
    let r = b.post(
        &[
            ("Host", "evil.example.com"),
            ("Origin", "http://evil.example.com"),
        ],
        PING,
    );
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Forbidden: the Host header does not name this server"}}"#
    );
    // The right port matters.
    let r = b.post(&[("Host", "127.0.0.1:1")], PING);
    assert_eq!(r.status, 403);
    // No Host at all.
    let r = request(
        b.port,
        "POST",
        "/mcp",
        &[("Content-Type", "application/json")],
        PING.as_bytes(),
    );
    assert_eq!(r.status, 403);
    // A foreign Origin with the right Host.
    let r = b.post(
        &[
            ("Origin", "http://evil.example.com"),
            ("Mcp-Session-Id", &session),
        ],
        PING,
    );
    assert_eq!(r.status, 403);
    assert!(r.text().contains("Origin is not allowed"), "{}", r.text());
    // localhost and [::1] name this server too, and its own Origin is welcome.
    let localhost = format!("localhost:{}", b.port);
    let origin = format!("http://localhost:{}", b.port);
    let r = b.post(
        &[
            ("Host", &localhost),
            ("Origin", &origin),
            ("Mcp-Session-Id", &session),
        ],
        PING,
    );
    // The device's bytes, with the client's id put back where the bridge's was.
    assert_eq!(
        (r.status, r.text().as_str()),
        (200, r#"{"jsonrpc":"2.0", "id":1 ,"result":{ }}"#)
    );
    let v6 = format!("[::1]:{}", b.port);
    let r = b.post(&[("Host", &v6), ("Mcp-Session-Id", &session)], PING);
    assert_eq!(r.status, 200);
    // Only the two accepted pings reached the device.
    let lines = device_lines_after_handshake(&b);
    assert_eq!(lines.len(), 2, "{lines:?}");
}

#[test]
fn allowed_origin_lets_a_browser_in() {
    let b = HttpBridge::start(&["--allowed-origin", "https://app.example.com"]);
    let r = b.post(&[("Origin", "https://app.example.com")], &list_modern(1));
    assert_eq!(
        r.status, 400,
        "no Mcp-Method: past the doors, refused by the 2026 checks"
    );
    let r = b.post(
        &[("Origin", "https://app.example.com"), MODERN[0], MODERN[1]],
        &list_modern(1),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = b.post(
        &[
            ("Origin", "https://other.example.com"),
            MODERN[0],
            MODERN[1],
        ],
        &list_modern(1),
    );
    assert_eq!(r.status, 403);
}

#[test]
fn bearer_token_is_required_compared_and_never_logged() {
    let path = std::env::temp_dir().join(format!("emcp-http-token-{}", std::process::id()));
    std::fs::write(&path, "s3cret-token-value\n").unwrap();
    let b = HttpBridge::start(&["--token-file", path.to_str().unwrap()]);
    let _ = std::fs::remove_file(&path);
    let r = b.post(&[MODERN[0], MODERN[1]], &list_modern(1));
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("www-authenticate"),
        Some(r#"Bearer realm="embedded-mcp""#)
    );
    let r = b.post(
        &[
            ("Authorization", "Bearer s3cret-token-valu"),
            MODERN[0],
            MODERN[1],
        ],
        &list_modern(2),
    );
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("www-authenticate"),
        Some(r#"Bearer realm="embedded-mcp", error="invalid_token""#)
    );
    let r = b.post(
        &[
            ("Authorization", "Basic s3cret-token-value"),
            MODERN[0],
            MODERN[1],
        ],
        &list_modern(3),
    );
    assert_eq!(r.status, 401);
    let r = b.post(
        &[
            ("Authorization", "Bearer s3cret-token-value"),
            MODERN[0],
            MODERN[1],
        ],
        &list_modern(4),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["id"], 4);
    // Only the accepted request reached the device; the token is nowhere in the log (-vv).
    let lines = device_lines_after_handshake(&b);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(!b.log().contains("s3cret"), "{}", b.log());
}

#[test]
fn a_body_over_one_mib_gets_413_and_the_server_goes_on() {
    let b = HttpBridge::start(&[]);
    let host = b.host();
    // Only the head is sent: the answer comes before the body would be read.
    let mut stream = TcpStream::connect(("127.0.0.1", b.port)).unwrap();
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        (1 << 20) + 1
    );
    std::io::Write::write_all(&mut stream, head.as_bytes()).unwrap();
    let r = read_response(&mut BufReader::new(stream));
    assert_eq!(r.status, 413);
    assert_eq!(r.header("connection"), Some("close"));
    // Exactly 1 MiB is fine (whitespace around a request is valid JSON).
    let mut body = PING.as_bytes().to_vec();
    body.resize(1 << 20, b' ');
    let session = b.open_session("2025-11-25");
    let r = request(
        b.port,
        "POST",
        "/mcp",
        &[
            ("Host", &host),
            ("Content-Type", "application/json"),
            ("Mcp-Session-Id", &session),
        ],
        &body,
    );
    assert_eq!(r.status, 200, "{}", r.text());
}

/// Headers, body, expected status and JSON-RPC error code.
type Case<'a> = (Vec<(&'a str, &'a str)>, String, u16, i64);

#[test]
fn bad_methods_paths_bodies_and_headers_get_4xx_and_nothing_else() {
    let b = HttpBridge::start(&[]);
    let host = b.host();
    let session = b.open_session("2025-11-25");
    let status =
        |method: &str, path: &str| request(b.port, method, path, &[("Host", &host)], b"").status;
    assert_eq!(status("GET", "/mcp"), 405);
    assert_eq!(status("PUT", "/mcp"), 405);
    assert_eq!(
        status("DELETE", "/mcp"),
        405,
        "no session: nothing to delete"
    );
    assert_eq!(status("POST", "/other"), 404);
    let cases: Vec<Case<'_>> = vec![
        (vec![], "{oops".into(), 400, -32700),
        (vec![("Content-Type", "text/plain")], PING.into(), 415, -32600),
        (vec![("Accept", "text/html")], PING.into(), 406, -32600),
        // Legacy request without a session, and with an unknown one.
        (vec![], PING.into(), 400, -32600),
        (vec![("Mcp-Session-Id", "0123")], PING.into(), 404, -32600),
        // An unsupported MCP-Protocol-Version in a session.
        (vec![("Mcp-Session-Id", &session), ("MCP-Protocol-Version", "1999-01-01")], PING.into(), 400, -32600),
        // 2026-07-28: missing _meta, missing and wrong Mcp-Method, removed and unknown methods.
        (MODERN.to_vec(), r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}"#.into(), 400, -32602),
        (vec![MODERN[0]], list_modern(7), 400, -32020),
        (vec![MODERN[0], ("Mcp-Method", "tools/call")], list_modern(7), 400, -32020),
        (
            vec![MODERN[0], ("Mcp-Method", "ping")],
            json!({"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta": modern_meta()}}).to_string(),
            404,
            -32601,
        ),
        (
            vec![MODERN[0], ("Mcp-Method", "initialize")],
            json!({"jsonrpc":"2.0","id":7,"method":"initialize","params":{"_meta": modern_meta()}}).to_string(),
            404,
            -32601,
        ),
        (
            vec![MODERN[0], ("Mcp-Method", "tools/call"), ("Mcp-Name", "other")],
            json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","_meta": modern_meta()}}).to_string(),
            400,
            -32020,
        ),
    ];
    for (headers, body, want_status, want_code) in &cases {
        let r = b.post(headers, body);
        assert_eq!(r.status, *want_status, "{headers:?} {body}: {}", r.text());
        assert_eq!(
            r.json()["error"]["code"],
            *want_code,
            "{headers:?} {body}: {}",
            r.text()
        );
    }
    // The device's unknown-method error on the stateless wire becomes 404.
    let r = b.post(
        &[MODERN[0], ("Mcp-Method", "unknown/method")],
        &json!({"jsonrpc":"2.0","id":"u","method":"unknown/method","params":{"_meta": modern_meta()}}).to_string(),
    );
    assert_eq!(
        (r.status, r.json()["id"].clone()),
        (404, json!("u")),
        "{}",
        r.text()
    );
    // Only that last request reached the device.
    let lines = device_lines_after_handshake(&b);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("unknown/method"));
}

#[test]
fn sessions_end_with_delete() {
    let b = HttpBridge::start(&[]);
    let host = b.host();
    let session = b.open_session("2025-11-25");
    assert_eq!(session.len(), 32);
    assert!(session.bytes().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(
        session,
        b.open_session("2025-11-25"),
        "ids are unguessable, never reused"
    );
    let delete = |id: &str| {
        request(
            b.port,
            "DELETE",
            "/mcp",
            &[("Host", &host), ("Mcp-Session-Id", id)],
            b"",
        )
        .status
    };
    assert_eq!(delete(&session), 200);
    assert_eq!(delete(&session), 404);
    let r = b.post(&[("Mcp-Session-Id", &session)], PING);
    assert_eq!(r.status, 404);
}
