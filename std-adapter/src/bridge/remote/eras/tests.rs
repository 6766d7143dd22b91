use super::*;
use crate::bridge::remote::param_headers::Marks;

fn discovery() -> Discovery {
    read_discovery(
        br#"{"jsonrpc":"2.0","id":"embedded-mcp-gateway-discover","result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"far","version":"1"}},"ttlMs":0}}"#,
    )
    .unwrap()
}

fn post(plan: Plan) -> Post {
    match plan {
        Plan::Post(post) => post,
        other => panic!("not a post: {other:?}"),
    }
}

#[test]
fn the_probe_and_the_listen_request_byte_for_byte() {
    let meta = format!(
        r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"embedded-mcp-gateway-link","version":"{}"}}}}"#,
        env!("CARGO_PKG_VERSION")
    );
    let p = discover_post();
    assert_eq!(
        String::from_utf8(p.body).unwrap(),
        format!(
            r#"{{"jsonrpc":"2.0","id":"embedded-mcp-gateway-discover","method":"server/discover","params":{{{meta}}}}}"#
        )
    );
    assert_eq!(
        p.headers,
        vec![
            ("mcp-protocol-version", "2026-07-28".into()),
            ("mcp-method", "server/discover".into())
        ]
    );
    let p = listen_post();
    assert_eq!(
        String::from_utf8(p.body).unwrap(),
        format!(
            r#"{{"jsonrpc":"2.0","id":"embedded-mcp-gateway-listen","method":"subscriptions/listen","params":{{"notifications":{{"toolsListChanged":true}},{meta}}}}}"#
        )
    );
}

#[test]
fn discovery_needs_2026_among_the_versions() {
    let d = discovery();
    assert_eq!(d.capabilities, r#"{"tools":{"listChanged":true}}"#);
    assert_eq!(d.server_info, r#"{"name":"far","version":"1"}"#);
    assert!(read_discovery(
        br#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2025-11-25"]}}"#
    )
    .is_none());
    assert!(
        read_discovery(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#)
            .is_none()
    );
}

#[test]
fn initialize_is_answered_from_the_discovery_and_initialized_dropped() {
    let plan = plan_modern(
        br#"{"jsonrpc":"2.0","id":"hub-1","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#,
        &discovery(),
        &Marks::default(),
    );
    assert_eq!(
        plan,
        Plan::Answer(br#"{"jsonrpc":"2.0","id":"hub-1","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"far","version":"1"}}}"#.to_vec())
    );
    let line = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(
        plan_modern(line, &discovery(), &Marks::default()),
        Plan::Drop
    );
}

#[test]
fn a_modern_call_goes_as_it_is_with_its_headers() {
    let line = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sensors.read","arguments":{"n":123456789012345678901234567890.10},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"progressToken":7}}}"#;
    let p = post(plan_modern(line, &discovery(), &Marks::default()));
    assert_eq!(p.body, line.to_vec());
    assert!(!p.to_legacy);
    assert_eq!(p.id.unwrap().key, "7");
    assert_eq!(
        p.headers,
        vec![
            ("mcp-protocol-version", "2026-07-28".into()),
            ("mcp-method", "tools/call".into()),
            ("mcp-name", "sensors.read".into())
        ]
    );
}

#[test]
fn a_legacy_request_gets_the_2026_meta_and_its_answer_the_legacy_form() {
    let line = br#"{"jsonrpc":"2.0","id":"hub-2","method":"tools/call","params":{"_meta":{"embedded-mcp/lean":true},"name":"n\u00e9","arguments":{}}}"#;
    let p = post(plan_modern(line, &discovery(), &Marks::default()));
    assert_eq!(
        String::from_utf8(p.body).unwrap(),
        r#"{"jsonrpc":"2.0","id":"hub-2","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"embedded-mcp/lean":true},"name":"n\u00e9","arguments":{}}}"#
    );
    assert!(p.to_legacy);
    assert_eq!(p.headers[2], ("mcp-name", "=?base64?bsOp?=".into()));
    let answer = br#"{"jsonrpc":"2.0","id":"hub-2","result":{"resultType":"complete","content":[{"type":"text","text":"[1,2]"}],"structuredContent":[1,2]}}"#;
    assert!(is_answer_to(answer, "\"hub-2\""));
    assert!(!is_answer_to(answer, "\"hub-3\""));
    assert_eq!(
        String::from_utf8(legacy_answer(answer)).unwrap(),
        r#"{"jsonrpc":"2.0","id":"hub-2","result":{"content":[{"type":"text","text":"{\"result\":[1,2]}"}],"structuredContent":{"result":[1,2]}}}"#
    );
    let error = br#"{"jsonrpc":"2.0","id":"hub-2","error":{"code":-32602,"message":"x"}}"#;
    assert_eq!(legacy_answer(error), error.to_vec());
}

#[test]
fn a_cancel_names_the_stream_to_close() {
    let line = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"hub-2","reason":"timeout"}}"#;
    assert_eq!(
        plan_modern(line, &discovery(), &Marks::default()),
        Plan::Cancel("\"hub-2\"".into())
    );
}

#[test]
fn a_legacy_session_sends_lines_as_they_are_with_its_headers() {
    let session = Session {
        id: Some("abc".into()),
        version: Some("2025-11-25".into()),
        opened: true,
    };
    let line = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#;
    let p = post(plan_legacy(line, &session));
    assert_eq!(p.body, line.to_vec());
    assert!(p.id.is_none());
    assert_eq!(
        p.headers,
        vec![
            ("mcp-session-id", "abc".into()),
            ("mcp-protocol-version", "2025-11-25".into())
        ]
    );
    assert_eq!(
        agreed_version(br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}"#),
        Some("2025-06-18".into())
    );
}

#[test]
fn a_listen_stream_gives_list_changed_without_its_tag() {
    let tagged = br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"embedded-mcp-gateway-listen"}}}"#;
    assert_eq!(
        listen_event(tagged),
        Some(br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.to_vec())
    );
    let ack =
        br#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{}}"#;
    assert_eq!(listen_event(ack), None);
}
