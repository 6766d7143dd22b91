//! Scripted 2026-07-28 conversations: per-request `_meta`, `server/discover`, `resultType`,
//! `ttlMs`/`cacheScope`, structured content of any JSON type, -32022; byte-exact responses, each
//! checked against the official 2026-07-28 schema.

mod engine_support;

use embedded_mcp::server::{CacheScope, Config, SchemaStorage, Server};
use embedded_mcp::transport::LineReader;
use engine_support::*;

const V: &str = "2026-07-28";

type Device8 = Server<'static, Device, 8>;

fn expect(server: &mut Device8, method: &str, line: &str, want: &str) {
    let got = exchange(server, V, method, line);
    assert_eq!(got, want, "request: {line}");
}

#[test]
fn conversation() {
    let mut s = device(usize::MAX);
    expect(
        &mut s,
        "server/discover",
        &req26("1", "server/discover", ""),
        r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28","2025-11-25","2025-06-18"],"capabilities":{"tools":{"listChanged":false},"logging":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"sim-sensors","version":"0.1.0","title":"Simulated sensors"}},"instructions":"Read sensors with read_temperature; set_led changes the LED.","ttlMs":300000,"cacheScope":"public","resultType":"complete"}}"#,
    );
    expect(
        &mut s,
        "tools/call",
        &req26(
            "2",
            "tools/call",
            r#""name":"read_temperature","arguments":{"sensor":3}"#,
        ),
        r#"{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"sensor":3,"celsius":24.5},"content":[{"type":"text","text":"{\"sensor\":3,\"celsius\":24.5}"}],"resultType":"complete"}}"#,
    );
    // Any JSON type as structured content, not wrapped: an array and an integer.
    expect(
        &mut s,
        "tools/call",
        &req26(
            "3",
            "tools/call",
            r#""name":"read_history","arguments":{"count":2}"#,
        ),
        r#"{"jsonrpc":"2.0","id":3,"result":{"structuredContent":[22.0,22.25],"content":[{"type":"text","text":"[22.0,22.25]"}],"resultType":"complete"}}"#,
    );
    expect(
        &mut s,
        "tools/call",
        &req26("\"c\"", "tools/call", r#""name":"sample_count""#),
        r#"{"jsonrpc":"2.0","id":"c","result":{"structuredContent":3,"content":[{"type":"text","text":"3"}],"resultType":"complete"}}"#,
    );
    expect(
        &mut s,
        "tools/call",
        &req26(
            "4",
            "tools/call",
            r#""name":"read_history","arguments":{"count":9}"#,
        ),
        r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"Invalid arguments for tool read_history: /count: 9 is greater than the maximum 8"}],"isError":true,"resultType":"complete"}}"#,
    );
    expect(
        &mut s,
        "tools/call",
        &req26("5", "tools/call", r#""name":"calibrate""#),
        r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"calibration failed: no reference sensor attached"}],"isError":true,"resultType":"complete"}}"#,
    );
    expect(
        &mut s,
        "tools/call",
        &req26("6", "tools/call", r#""name":"buggy_reading""#),
        r#"{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"Tool buggy_reading produced output that violates its outputSchema: (root): missing required property \"celsius\""}],"isError":true,"resultType":"complete"}}"#,
    );
    expect(
        &mut s,
        "tools/call",
        &req26("7", "tools/call", r#""name":"missing""#),
        r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool: missing"}}"#,
    );
    // `ping` does not exist in 2026-07-28; nor do methods the server never had.
    expect(
        &mut s,
        "ping",
        &req26("8", "ping", ""),
        r#"{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"Method not found: ping does not exist in 2026-07-28"}}"#,
    );
    expect(
        &mut s,
        "prompts/list",
        &req26("9", "prompts/list", ""),
        r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"Method not found"}}"#,
    );
    // Missing or broken per-request metadata.
    expect(
        &mut s,
        "tools/list",
        &req("10", "tools/list", ""),
        r#"{"jsonrpc":"2.0","id":10,"error":{"code":-32602,"message":"Invalid params: _meta[\"io.modelcontextprotocol/protocolVersion\"] and [\"io.modelcontextprotocol/clientCapabilities\"] are required (or send initialize first)"}}"#,
    );
    expect(
        &mut s,
        "server/discover",
        &req(
            "11",
            "server/discover",
            r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#,
        ),
        r#"{"jsonrpc":"2.0","id":11,"error":{"code":-32602,"message":"Invalid params: _meta[\"io.modelcontextprotocol/clientCapabilities\"] is required"}}"#,
    );
    expect(
        &mut s,
        "tools/call",
        &req(
            "12",
            "tools/call",
            r#""_meta":{"io.modelcontextprotocol/protocolVersion":2026,"io.modelcontextprotocol/clientCapabilities":{}},"name":"sample_count""#,
        ),
        r#"{"jsonrpc":"2.0","id":12,"error":{"code":-32602,"message":"Invalid params: _meta[\"io.modelcontextprotocol/protocolVersion\"] must be a string"}}"#,
    );
    // Notifications carry no answer in this era either.
    assert_eq!(
        ask(
            &mut s,
            &format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{{META},"requestId":5}}}}"#
            )
        ),
        None
    );
}

#[test]
fn unsupported_versions_get_32022_with_the_supported_list() {
    let mut s = device(usize::MAX);
    let line = req(
        "1",
        "tools/list",
        r#""_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}"#,
    );
    let want = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18"],"requested":"1900-01-01"}}}"#;
    expect(&mut s, "tools/list", &line, want);
    schemas()
        .check_def(V, "UnsupportedProtocolVersionError", &json(want))
        .unwrap();
    // A very long requested version is echoed cut, so the error stays small.
    let long = format!(
        r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"{}","io.modelcontextprotocol/clientCapabilities":{{}}}}"#,
        "9".repeat(5000)
    );
    let r = exchange(&mut s, V, "tools/list", &req("2", "tools/list", &long));
    schemas()
        .check_def(V, "UnsupportedProtocolVersionError", &json(&r))
        .unwrap();
    assert_eq!(
        json(&r)["error"]["data"]["requested"]
            .as_str()
            .unwrap()
            .len(),
        64
    );
}

#[test]
fn pagination_across_three_or_more_pages_with_cache_hints() {
    let budget = 1000;
    let mut s = device(budget);
    let mut cursor: Option<String> = None;
    let mut names = Vec::new();
    let mut pages = 0;
    loop {
        pages += 1;
        let extra = cursor
            .as_ref()
            .map(|c| format!(r#""cursor":"{c}""#))
            .unwrap_or_default();
        let r = exchange(
            &mut s,
            V,
            "tools/list",
            &req26(&pages.to_string(), "tools/list", &extra),
        );
        assert!(r.len() < budget);
        let v = json(&r);
        let result = &v["result"];
        assert_eq!(result["ttlMs"], 300000);
        assert_eq!(result["cacheScope"], "public");
        assert_eq!(result["resultType"], "complete");
        for t in result["tools"].as_array().unwrap() {
            names.push(t["name"].as_str().unwrap().to_owned());
            if t["name"] == "read_history" {
                // Not wrapped for 2026 peers.
                assert_eq!(
                    t["outputSchema"],
                    serde_json::json!({"type":"array","items":{"type":"number"},"maxItems":8})
                );
            }
            if t["name"] == "device_info" {
                assert_eq!(t["icons"][0]["src"], "data:image/png;base64,iVBORw0KGgo=");
            }
        }
        match result.get("nextCursor") {
            Some(c) => cursor = Some(c.as_str().unwrap().to_owned()),
            None => break,
        }
    }
    assert!(pages >= 3, "{pages} pages");
    let all: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
    assert_eq!(names, all);
    expect(
        &mut s,
        "tools/list",
        &req26("99", "tools/list", r#""cursor":"ffffffffffff""#),
        r#"{"jsonrpc":"2.0","id":99,"error":{"code":-32602,"message":"Invalid cursor"}}"#,
    );
}

#[test]
fn cache_hints_are_configurable() {
    let config = Config {
        ttl_ms: 0,
        cache_scope: CacheScope::Private,
        ..Config::DEFAULT
    };
    let storage = Box::leak(Box::new(SchemaStorage::<8, 16, 48, 128>::new()));
    let mut s = Server::with_config(INFO, &TOOLS, storage, Device::default(), config).unwrap();
    let r = exchange(&mut s, V, "tools/list", &req26("1", "tools/list", ""));
    assert!(
        r.ends_with(r#"],"ttlMs":0,"cacheScope":"private","resultType":"complete"}}"#),
        "{r}"
    );
    let r = exchange(
        &mut s,
        V,
        "server/discover",
        &req26("2", "server/discover", ""),
    );
    assert!(
        r.ends_with(r#""ttlMs":0,"cacheScope":"private","resultType":"complete"}}"#),
        "{r}"
    );
}

#[test]
fn eras_mix_per_request_on_one_stream() {
    let mut s = device(usize::MAX);
    // A legacy host initialized the stream...
    exchange(
        &mut s,
        "2025-11-25",
        "initialize",
        &req(
            "1",
            "initialize",
            r#""protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}"#,
        ),
    );
    let legacy = exchange(
        &mut s,
        "2025-11-25",
        "tools/call",
        &req(
            "2",
            "tools/call",
            r#""name":"read_history","arguments":{"count":1}"#,
        ),
    );
    assert!(
        legacy.contains(r#""structuredContent":{"result":[22.25]}"#),
        "{legacy}"
    );
    // ...and a request with 2026 metadata still gets 2026 semantics, for itself only.
    let modern = exchange(
        &mut s,
        V,
        "tools/call",
        &req26(
            "3",
            "tools/call",
            r#""name":"read_history","arguments":{"count":1}"#,
        ),
    );
    assert!(
        modern.contains(r#""structuredContent":[22.25]"#) && modern.contains("resultType"),
        "{modern}"
    );
    let legacy = exchange(
        &mut s,
        "2025-11-25",
        "tools/list",
        &req("4", "tools/list", ""),
    );
    assert!(!legacy.contains("resultType"));
    // `server/discover` needs the metadata even on an initialized stream.
    let r = exchange(
        &mut s,
        "2025-11-25",
        "tools/list",
        &req("5", "server/discover", ""),
    );
    assert!(r.contains("-32602"));
}

#[test]
fn async_serve_loop() {
    let mut s = device(usize::MAX);
    let input = format!(
        "{}\n{}\n{}\n",
        req26("1", "server/discover", ""),
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        req26("2", "tools/call", r#""name":"sample_count""#),
    );
    let mut reader = LineReader::<_, 512>::new(input.as_bytes());
    let mut written = Collect::default();
    let mut out = vec![0u8; OUT];
    block_on(s.serve_async(&mut reader, &mut written, &mut out)).unwrap();
    let text = String::from_utf8(written.0).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    check(V, "server/discover", lines[0]);
    assert_eq!(
        lines[1],
        r#"{"jsonrpc":"2.0","id":2,"result":{"structuredContent":1,"content":[{"type":"text","text":"1"}],"resultType":"complete"}}"#
    );
    check(V, "tools/call", lines[1]);
}
