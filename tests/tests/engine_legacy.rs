//! Scripted legacy conversations (2025-11-25 and 2025-06-18): every method, byte-exact
//! responses, every response checked against the official schema of the negotiated revision.

mod engine_support;

use embedded_mcp::transport::LineReader;
use engine_support::*;

const INIT_25_11: &str =
    r#""protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}"#;

/// Sends `line`; expects exactly `want` (byte for byte, without the LF), schema-checked.
fn expect(server: &mut Server, version: &str, method: &str, line: &str, want: &str) {
    let got = exchange(server, version, method, line);
    assert_eq!(got, want, "request: {line}");
}

type Server = embedded_mcp::server::Server<'static, Device, 8>;

#[test]
fn conversation_2025_11_25() {
    let v = "2025-11-25";
    let mut s = device(usize::MAX);
    expect(
        &mut s,
        v,
        "initialize",
        &req("1", "initialize", INIT_25_11),
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false},"logging":{}},"serverInfo":{"name":"sim-sensors","version":"0.1.0","title":"Simulated sensors"},"instructions":"Read sensors with read_temperature; set_led changes the LED."}}"#,
    );
    assert_eq!(
        ask(
            &mut s,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        ),
        None
    );
    expect(
        &mut s,
        v,
        "ping",
        &req("\"p\\\"1\"", "ping", ""),
        r#"{"jsonrpc":"2.0","id":"p\"1","result":{}}"#,
    );
    // An object output.
    expect(
        &mut s,
        v,
        "tools/call",
        &req(
            "2",
            "tools/call",
            r#""name":"read_temperature","arguments":{"sensor":2}"#,
        ),
        r#"{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"sensor":2,"celsius":23.5},"content":[{"type":"text","text":"{\"sensor\":2,\"celsius\":23.5}"}]}}"#,
    );
    // No arguments at all: `{}` is checked and deserialised (the sensor defaults to 0).
    expect(
        &mut s,
        v,
        "tools/call",
        &req("3", "tools/call", r#""name":"read_temperature""#),
        r#"{"jsonrpc":"2.0","id":3,"result":{"structuredContent":{"sensor":0,"celsius":21.5},"content":[{"type":"text","text":"{\"sensor\":0,\"celsius\":21.5}"}]}}"#,
    );
    // Non-object outputs are wrapped for legacy peers: an array and an integer.
    expect(
        &mut s,
        v,
        "tools/call",
        &req(
            "4",
            "tools/call",
            r#""name":"read_history","arguments":{"count":3}"#,
        ),
        r#"{"jsonrpc":"2.0","id":4,"result":{"structuredContent":{"result":[21.75,22.0,22.25]},"content":[{"type":"text","text":"{\"result\":[21.75,22.0,22.25]}"}]}}"#,
    );
    expect(
        &mut s,
        v,
        "tools/call",
        &req("5", "tools/call", r#""name":"sample_count""#),
        r#"{"jsonrpc":"2.0","id":5,"result":{"structuredContent":{"result":4},"content":[{"type":"text","text":"{\"result\":4}"}]}}"#,
    );
    // An actuator inside and outside its bounds (the handler never sees bad arguments).
    expect(
        &mut s,
        v,
        "tools/call",
        &req(
            "6",
            "tools/call",
            r#""name":"set_led","arguments":{"brightness":70}"#,
        ),
        r#"{"jsonrpc":"2.0","id":6,"result":{"structuredContent":{"brightness":70},"content":[{"type":"text","text":"{\"brightness\":70}"}]}}"#,
    );
    expect(
        &mut s,
        v,
        "tools/call",
        &req(
            "7",
            "tools/call",
            r#""name":"set_led","arguments":{"brightness":150}"#,
        ),
        r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Invalid arguments for tool set_led: /brightness: 150 is greater than the maximum 100"}],"isError":true}}"#,
    );
    expect(
        &mut s,
        v,
        "tools/call",
        &req("8", "tools/call", r#""name":"set_led","arguments":{}"#),
        r#"{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"Invalid arguments for tool set_led: (root): missing required property \"brightness\""}],"isError":true}}"#,
    );
    assert_eq!(
        s.handler().led,
        70,
        "the rejected calls did not reach the handler"
    );
    // The handler's own failure, output that breaks its schema, a result too large.
    expect(
        &mut s,
        v,
        "tools/call",
        &req("9", "tools/call", r#""name":"calibrate""#),
        r#"{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"calibration failed: no reference sensor attached"}],"isError":true}}"#,
    );
    expect(
        &mut s,
        v,
        "tools/call",
        &req("10", "tools/call", r#""name":"buggy_reading""#),
        r#"{"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"Tool buggy_reading produced output that violates its outputSchema: (root): missing required property \"celsius\""}],"isError":true}}"#,
    );
    expect(
        &mut s,
        v,
        "tools/call",
        &req("11", "tools/call", r#""name":"dump""#),
        r#"{"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"Tool dump produced a result too large for the device's output buffer (16470 bytes needed, 4060 available)"}],"isError":true}}"#,
    );
    // Protocol errors.
    expect(
        &mut s,
        v,
        "tools/call",
        &req("12", "tools/call", r#""name":"nope""#),
        r#"{"jsonrpc":"2.0","id":12,"error":{"code":-32602,"message":"Unknown tool: nope"}}"#,
    );
    expect(
        &mut s,
        v,
        "tools/call",
        &req("13", "tools/call", r#""name":"set_led","arguments":[70]"#),
        r#"{"jsonrpc":"2.0","id":13,"error":{"code":-32602,"message":"Invalid params: \"arguments\" must be an object"}}"#,
    );
    expect(
        &mut s,
        v,
        "tools/call",
        &req("14", "tools/call", r#""arguments":{}"#),
        r#"{"jsonrpc":"2.0","id":14,"error":{"code":-32602,"message":"Invalid params: \"name\" must be a string"}}"#,
    );
    expect(
        &mut s,
        v,
        "resources/list",
        &req("15", "resources/list", ""),
        r#"{"jsonrpc":"2.0","id":15,"error":{"code":-32601,"message":"Method not found"}}"#,
    );
    expect(
        &mut s,
        v,
        "ping",
        r#"{"id":16,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":16,"error":{"code":-32600,"message":"Invalid request: \"jsonrpc\" must be \"2.0\""}}"#,
    );
    // Ids that cannot be echoed: the error has no id (2025-11-25 allows that).
    expect(
        &mut s,
        v,
        "ping",
        r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: \"id\" must be a string or an integer"}}"#,
    );
    expect(
        &mut s,
        v,
        "ping",
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: a message must be a JSON object (batches are not supported)"}}"#,
    );
    // Notifications, responses and garbage are never answered.
    for silent in [
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"user"}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/unknown"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        "not json at all",
        r#"{"jsonrpc":"2.0","id":17,"method":"ping""#,
        "",
    ] {
        assert_eq!(ask(&mut s, silent), None, "{silent}");
    }
    // Still serving after all that.
    expect(
        &mut s,
        v,
        "ping",
        &req("18", "ping", ""),
        r#"{"jsonrpc":"2.0","id":18,"result":{}}"#,
    );
    let stats = s.stats();
    assert_eq!((stats.unparsable, stats.invalid), (3, 4), "{stats:?}");
}

#[test]
fn legacy_pagination_across_three_or_more_pages() {
    for version in ["2025-11-25", "2025-06-18"] {
        let budget = 900;
        let mut s = device(budget);
        let init = format!(
            r#""protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}"#
        );
        exchange(
            &mut s,
            version,
            "initialize",
            &req("0", "initialize", &init),
        );
        let mut names = Vec::new();
        let mut cursors = Vec::new();
        let mut cursor: Option<String> = None;
        for page in 1.. {
            let params = cursor
                .as_ref()
                .map(|c| format!(r#""cursor":"{c}""#))
                .unwrap_or_default();
            let r = exchange(
                &mut s,
                version,
                "tools/list",
                &req(&page.to_string(), "tools/list", &params),
            );
            assert!(
                r.len() < budget,
                "a page fits the budget ({} bytes)",
                r.len()
            );
            let v = json(&r);
            let tools = v["result"]["tools"].as_array().unwrap();
            assert!(!tools.is_empty());
            for t in tools {
                names.push(t["name"].as_str().unwrap().to_owned());
                // Legacy peers see non-object output schemas wrapped, and no icons in 2025-06-18.
                if t["name"] == "read_history" {
                    assert_eq!(
                        t["outputSchema"],
                        serde_json::json!({"type":"object","properties":{"result":{"type":"array","items":{"type":"number"},"maxItems":8}},"required":["result"]})
                    );
                }
                if t["name"] == "device_info" {
                    assert_eq!(t.get("icons").is_some(), version == "2025-11-25");
                    assert_eq!(
                        t["_meta"],
                        serde_json::json!({"com.example/board":"rp2040"})
                    );
                }
            }
            assert!(v["result"].get("ttlMs").is_none() && v["result"].get("resultType").is_none());
            match v["result"].get("nextCursor") {
                Some(c) => {
                    cursor = Some(c.as_str().unwrap().to_owned());
                    cursors.push(c.as_str().unwrap().to_owned());
                }
                None => {
                    assert!(page >= 3, "{version}: {page} pages, expected at least 3");
                    break;
                }
            }
        }
        let all: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
        assert_eq!(names, all, "every tool once, in order");
        // The same cursor gives the same page (deterministic order).
        let again = ask(
            &mut s,
            &req("99", "tools/list", &format!(r#""cursor":"{}""#, cursors[0])),
        )
        .unwrap();
        assert!(again.contains(r#""name":""#));
        // Cursors are opaque but checked: edited, foreign or mistyped ones are -32602.
        let mut edited = cursors[0].clone().into_bytes();
        edited[3] = if edited[3] == b'0' { b'1' } else { b'0' };
        for bad in [
            format!(r#""cursor":"{}""#, String::from_utf8(edited).unwrap()),
            r#""cursor":"next-page-cursor""#.to_owned(),
            r#""cursor":"""#.to_owned(),
            r#""cursor":3"#.to_owned(),
            r#""cursor":"000000000000""#.to_owned(),
        ] {
            expect(
                &mut s,
                version,
                "tools/list",
                &req("100", "tools/list", &bad),
                r#"{"jsonrpc":"2.0","id":100,"error":{"code":-32602,"message":"Invalid cursor"}}"#,
            );
        }
    }
}

#[test]
fn first_page_byte_exact() {
    let mut s = device(700);
    exchange(
        &mut s,
        "2025-11-25",
        "initialize",
        &req("1", "initialize", INIT_25_11),
    );
    expect(
        &mut s,
        "2025-11-25",
        "tools/list",
        &req("2", "tools/list", ""),
        r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"read_temperature","title":"Read temperature","description":"Temperature of one sensor, in degrees Celsius","inputSchema":{"type":"object","properties":{"sensor":{"type":"integer","minimum":0,"maximum":3}},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"sensor":{"type":"integer"},"celsius":{"type":"number"}},"required":["sensor","celsius"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}}],"nextCursor":"0001e1e7e543"}}"#,
    );
}

#[test]
fn conversation_2025_06_18() {
    let v = "2025-06-18";
    let mut s = device(usize::MAX);
    expect(
        &mut s,
        v,
        "initialize",
        &req(
            "1",
            "initialize",
            r#""protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}"#,
        ),
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":false},"logging":{}},"serverInfo":{"name":"sim-sensors","version":"0.1.0","title":"Simulated sensors"},"instructions":"Read sensors with read_temperature; set_led changes the LED."}}"#,
    );
    let list = exchange(&mut s, v, "tools/list", &req("2", "tools/list", ""));
    assert!(!list.contains("icons"), "no icons for 2025-06-18");
    expect(
        &mut s,
        v,
        "tools/call",
        &req(
            "3",
            "tools/call",
            r#""name":"read_history","arguments":{"count":1}"#,
        ),
        r#"{"jsonrpc":"2.0","id":3,"result":{"structuredContent":{"result":[22.25]},"content":[{"type":"text","text":"{\"result\":[22.25]}"}]}}"#,
    );
    expect(
        &mut s,
        v,
        "ping",
        &req("4", "ping", ""),
        r#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
    );
}

#[test]
fn initialize_negotiates() {
    for (asked, got) in [
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2025-03-26", "2025-11-25"),
        ("2024-11-05", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("banana", "2025-11-25"),
    ] {
        let mut s = device(usize::MAX);
        let init = format!(
            r#""protocolVersion":"{asked}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}"#
        );
        let r = exchange(&mut s, got, "initialize", &req("1", "initialize", &init));
        assert!(
            r.contains(&format!(r#""protocolVersion":"{got}""#)),
            "{asked}: {r}"
        );
    }
    // Without a version: -32602.
    let mut s = device(usize::MAX);
    expect(
        &mut s,
        "2025-11-25",
        "initialize",
        &req("1", "initialize", r#""capabilities":{}"#),
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: \"protocolVersion\" must be a string"}}"#,
    );
    // Tools before any handshake or per-request version: -32602.
    let r = exchange(
        &mut s,
        "2025-11-25",
        "tools/list",
        &req("2", "tools/list", ""),
    );
    assert!(r.contains("-32602"), "{r}");
    // A new initialize (a host that reconnected) renegotiates.
    let mut s = device(usize::MAX);
    exchange(
        &mut s,
        "2025-11-25",
        "initialize",
        &req("1", "initialize", INIT_25_11),
    );
    let r = exchange(
        &mut s,
        "2025-06-18",
        "initialize",
        &req(
            "2",
            "initialize",
            r#""protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}"#,
        ),
    );
    assert!(r.contains("2025-06-18"));
    assert_eq!(
        s.session(),
        Some(embedded_mcp::protocol::Version::V2025_06_18)
    );
}

#[test]
fn ids_are_echoed_exactly() {
    let mut s = device(usize::MAX);
    for id in [
        "0",
        "-1",
        "123456789012345678901234567890",
        r#""""#,
        r#""a\"b\\c\u00e9\ud83d\ude00""#,
        "\"\u{e9}\u{1F600}\"",
    ] {
        let r = exchange(&mut s, "2025-11-25", "ping", &req(id, "ping", ""));
        assert_eq!(r, format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#));
    }
    // Longer than MAX_ID_LEN: refused without echo.
    let long = format!("\"{}\"", "x".repeat(embedded_mcp::server::MAX_ID_LEN));
    let r = exchange(&mut s, "2025-11-25", "ping", &req(&long, "ping", ""));
    assert_eq!(
        r,
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request: the id is longer than the device accepts"}}"#
    );
    // Fractions and other types are not ids.
    for bad in ["1.5", "1e3", "true", "{}", "[]"] {
        let r = exchange(&mut s, "2025-11-25", "ping", &req(bad, "ping", ""));
        assert!(
            r.starts_with(r#"{"jsonrpc":"2.0","error":{"code":-32600"#),
            "{bad}: {r}"
        );
    }
}

#[test]
fn too_deep_and_overlong_requests_get_an_error_when_their_id_is_readable() {
    let mut s = device(usize::MAX);
    exchange(
        &mut s,
        "2025-11-25",
        "initialize",
        &req("1", "initialize", INIT_25_11),
    );
    let deep = format!(
        r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"set_led","arguments":{{"x":{}1{}}}}},"id":"deep"}}"#,
        "[".repeat(40),
        "]".repeat(40)
    );
    expect(
        &mut s,
        "2025-11-25",
        "tools/call",
        &deep,
        r#"{"jsonrpc":"2.0","id":"deep","error":{"code":-32600,"message":"Invalid request: the message is nested deeper than the device accepts"}}"#,
    );
    // Without a readable id: dropped like any unreadable line.
    assert_eq!(
        ask(&mut s, &format!("{}1{}", "[".repeat(40), "]".repeat(40))),
        None
    );
    // Overlong lines through the serve loop (input buffer of 256 bytes).
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{{"name":"set_led","arguments":{{"pad":"{}"}}}}}}"#,
        "z".repeat(400)
    );
    let input = format!("{big}\n{}\n", req("78", "ping", ""));
    let mut reader = LineReader::<_, 256>::new(input.as_bytes());
    let mut written = Collect::default();
    let mut out = vec![0u8; OUT];
    s.serve(&mut reader, &mut written, &mut out).unwrap();
    let text = String::from_utf8(written.0).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            r#"{"jsonrpc":"2.0","id":77,"error":{"code":-32600,"message":"Invalid request: the message is longer than the device's input buffer"}}"#,
            r#"{"jsonrpc":"2.0","id":78,"result":{}}"#,
        ]
    );
    check("2025-11-25", "tools/call", lines[0]);
}

#[test]
fn pipelined_requests_are_answered_in_order_once_each() {
    let mut s = device(usize::MAX);
    let mut input = String::new();
    input.push_str(&req("1", "initialize", INIT_25_11));
    input.push_str("\r\n");
    input.push_str(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    input.push('\n');
    input.push_str("garbage\n\n");
    for i in 2..40 {
        let line = match i % 4 {
            0 => req(&i.to_string(), "ping", ""),
            1 => req(
                &i.to_string(),
                "tools/call",
                r#""name":"read_temperature","arguments":{"sensor":1}"#,
            ),
            2 => req(&i.to_string(), "tools/list", ""),
            _ => req(
                &i.to_string(),
                "tools/call",
                r#""name":"set_led","arguments":{"brightness":101}"#,
            ),
        };
        input.push_str(&line);
        input.push('\n');
    }
    // A partial request at the end of the stream is not a message.
    input.push_str(&req("40", "ping", ""));
    let mut reader = LineReader::<_, 1024>::new(input.as_bytes());
    let mut written = Collect::default();
    let mut out = vec![0u8; OUT];
    s.serve(&mut reader, &mut written, &mut out).unwrap();
    let text = String::from_utf8(written.0).unwrap();
    assert!(text.ends_with('\n'));
    let ids: Vec<u64> = text
        .lines()
        .map(|l| {
            let v = json(l);
            let method = match v["id"].as_u64().unwrap() {
                1 => "initialize",
                i if i % 4 == 0 => "ping",
                i if i % 4 == 2 => "tools/list",
                _ => "tools/call",
            };
            check("2025-11-25", method, l);
            v["id"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(ids, (1..40).collect::<Vec<_>>());
}
