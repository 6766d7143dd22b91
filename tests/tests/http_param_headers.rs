//! `Mcp-Param-*` on `embedded-mcp bridge --http` (2026-07-28): the scripted device's `route`
//! tool marks `region` and `shards` with `x-mcp-header`, so every call of it must carry
//! `Mcp-Param-Region` and `Mcp-Param-Shards` equal to those arguments. A call whose headers
//! disagree is a 400 with -32020 and never reaches the device. The front lists nothing itself:
//! it reads the device's one tool catalog, filled by one listing after the handshake and
//! renewed once when the device says its list changed.
#![cfg(unix)]

mod http_support;

use http_support::*;
use serde_json::{json, Value};

fn call(id: u32, name: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments, "_meta": modern_meta()}})
    .to_string()
}

fn headers<'a>(name: &'a str, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut h = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", name),
    ];
    h.extend_from_slice(extra);
    h
}

/// The `tools/call` lines the device received.
fn calls_at_device(b: &HttpBridge) -> Vec<String> {
    b.device
        .lines()
        .into_iter()
        .filter(|l| l.contains(r#""method":"tools/call""#))
        .collect()
}

#[test]
fn param_headers_must_mirror_the_marked_arguments() {
    let b = HttpBridge::start(&[]);
    let args = json!({"region": "eu-west", "shards": 4, "note": "free text"});

    let ok = b.post(
        &headers(
            "route",
            &[("Mcp-Param-Region", "eu-west"), ("mcp-param-shards", "4")],
        ),
        &call(1, "route", args.clone()),
    );
    assert_eq!(ok.status, 200, "{}", ok.text());
    assert_eq!(ok.json()["id"], 1, "{}", ok.text());
    assert!(ok.json()["error"].is_null(), "{}", ok.text());

    // Non-ASCII values travel base64-encoded.
    let encoded = b.post(
        &headers(
            "route",
            &[
                ("Mcp-Param-Region", "=?base64?w6l0w6k=?="),
                ("Mcp-Param-Shards", "1"),
            ],
        ),
        &call(2, "route", json!({"region": "été", "shards": 1})),
    );
    assert_eq!(encoded.status, 200, "{}", encoded.text());

    let refused = [
        (
            vec![("Mcp-Param-Region", "eu-east"), ("Mcp-Param-Shards", "4")],
            "Header mismatch: Mcp-Param-Region differs from the argument /region",
        ),
        (
            vec![("Mcp-Param-Region", "eu-west")],
            "Header mismatch: Mcp-Param-Shards is required: the argument /shards is set",
        ),
    ];
    for (i, (extra, message)) in refused.iter().enumerate() {
        let id = 10 + i as u32;
        let r = b.post(&headers("route", extra), &call(id, "route", args.clone()));
        assert_eq!(r.status, 400, "{extra:?}: {}", r.text());
        assert_eq!(
            r.json(),
            json!({"jsonrpc": "2.0", "id": id,
                   "error": {"code": -32020, "message": message}}),
            "{extra:?}"
        );
    }
    // A repeated header (sent as it is: `post` replaces headers of the same name).
    let host = b.host();
    let mut repeated = headers(
        "route",
        &[
            ("Host", host.as_str()),
            ("Content-Type", "application/json"),
            ("Accept", "application/json"),
            ("Mcp-Param-Region", "eu-west"),
            ("Mcp-Param-Shards", "4"),
        ],
    );
    repeated.push(("Mcp-Param-Shards", "4"));
    let r = request(
        b.port,
        "POST",
        "/mcp",
        &repeated,
        call(12, "route", args.clone()).as_bytes(),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(
        r.json()["error"]["message"],
        "Header mismatch: Mcp-Param-Shards is repeated"
    );

    // A header for an argument the call does not set.
    let r = b.post(
        &headers("route", &[("Mcp-Param-Shards", "2")]),
        &call(20, "route", json!({"region": null})),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(
        r.json()["error"]["message"],
        "Header mismatch: Mcp-Param-Shards is sent but the argument /shards is absent"
    );

    // A tool without marks needs no Mcp-Param header.
    let echo = b.post(&headers("echo", &[]), &call(30, "echo", json!({"x": 1})));
    assert_eq!(echo.status, 200, "{}", echo.text());

    // Only the three good calls reached the device; it was listed once.
    let calls = calls_at_device(&b);
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_eq!(lists_at_device(&b), 1, "{:?}", b.device.lines());
}

/// The `tools/list` requests the device received.
fn lists_at_device(b: &HttpBridge) -> usize {
    let lines = b.device.lines();
    lines
        .iter()
        .filter(|l| l.contains(r#""method":"tools/list""#))
        .count()
}

#[test]
fn a_list_change_renews_the_catalog_once_and_the_checks_go_on() {
    let b = HttpBridge::start(&[]);
    assert_eq!(lists_at_device(&b), 1, "{:?}", b.device.lines());
    // `announce` answers, then says its tool list changed.
    let r = b.post(&headers("announce", &[]), &call(1, "announce", json!({})));
    assert_eq!(r.status, 200, "{}", r.text());
    let start = std::time::Instant::now();
    while lists_at_device(&b) < 2 {
        assert!(
            start.elapsed() < TIMEOUT,
            "no renewal: {:?}",
            b.device.lines()
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let args = json!({"region": "eu-west", "shards": 4});
    for id in 2..5 {
        let r = b.post(
            &headers(
                "route",
                &[("Mcp-Param-Region", "eu-east"), ("Mcp-Param-Shards", "4")],
            ),
            &call(id, "route", args.clone()),
        );
        assert_eq!(r.status, 400, "{}", r.text());
        let r = b.post(
            &headers(
                "route",
                &[("Mcp-Param-Region", "eu-west"), ("Mcp-Param-Shards", "4")],
            ),
            &call(id + 10, "route", args.clone()),
        );
        assert_eq!(r.status, 200, "{}", r.text());
    }
    assert_eq!(lists_at_device(&b), 2, "{:?}", b.device.lines());
    assert_eq!(calls_at_device(&b).len(), 4);
}
