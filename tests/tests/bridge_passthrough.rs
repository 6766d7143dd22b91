//! The bridge passes MCP messages through byte for byte, in both protocol eras, and changes only
//! what it must: results that break their output schema (an `isError` result naming the field
//! and the rule) and icons whose `src` is not `https:` or `data:`.
//!
//! The device is the scripted fake of `tests/clients/fake_device.rs` on a unix socket; the bridge
//! runs in-process with pipes as its stdin/stdout. Every stdout line is checked to be a JSON-RPC
//! message by the harness.
#![cfg(unix)]

mod bridge_support;

use std::time::Duration;

use bridge_support::*;
use embedded_mcp_std::bridge::lean_hop::{for_device, Hop};
use embedded_mcp_std::bridge::{OnInvalid, Pages};
use embedded_mcp_std::device::Endpoint;

/// A bridge keeping the device's own pages (`--pages device`): these tests look at each page.
fn start() -> (SocketDevice, Bridge) {
    let dev = SocketDevice::start();
    let mut c = config(Endpoint::Unix(dev.path.clone()));
    c.pages = Pages::Device;
    let bridge = Bridge::start(c);
    (dev, bridge)
}

fn start_with(on_invalid: OnInvalid) -> (SocketDevice, Bridge) {
    let dev = SocketDevice::start();
    let mut c = config(Endpoint::Unix(dev.path.clone()));
    c.on_invalid = on_invalid;
    (dev, Bridge::start(c))
}

/// `request` as the lean hop may send it, with or without the client's info (BRIDGE.md, "The
/// lean hop"; it edits only `_meta`).
fn hop_forms(request: &str) -> Vec<String> {
    [true, false]
        .map(|client_info| {
            let hop = Hop {
                client_info,
                call_capabilities: false,
            };
            for_device(request.as_bytes(), hop)
                .line
                .map_or(request.to_owned(), |l| String::from_utf8(l).unwrap())
        })
        .to_vec()
}

/// The line the device wrote in answer to `request` (each request it got has one answer).
fn device_answer(dev: &SocketDevice, request: &str) -> String {
    let conn = dev.conn(0);
    let forms = hop_forms(request);
    let at = conn
        .received
        .iter()
        .filter(|l| !l.contains("\"notifications/"))
        .position(|l| forms.contains(l))
        .unwrap_or_else(|| {
            panic!(
                "the device never received {request}; it got {:?}",
                conn.received
            )
        });
    conn.sent[at].clone()
}

#[test]
fn legacy_session_passes_through_byte_for_byte() {
    let (dev, mut b) = start();
    let init = b.initialize("2025-06-18");
    // The only change: the ftp: icon of serverInfo is gone.
    assert_eq!(
        init,
        r#"{"jsonrpc":"2.0", "id":0, "result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"fake-device","version":"1.0.0","icons":[{"src":"https://example.com/s.png"}]}}}"#
    );
    // Requests reach the device exactly as the host wrote them, ids included.
    let list1 = r#"{"jsonrpc":"2.0","id":"a\u0062","method":"tools/list"}"#;
    let page1 = b.request(list1);
    assert_eq!(page1, device_answer(&dev, list1));
    assert!(page1.contains(r#""nextCursor":"page-4""#));
    let list2 = r#"{"jsonrpc":"2.0","id":-1,"method":"tools/list","params":{"cursor":"page-4"}}"#;
    assert_eq!(b.request(list2), device_answer(&dev, list2));
    let list3 = r#"{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{"cursor":"page-8"}}"#;
    let page3 = b.request(list3);
    let sent3 = device_answer(&dev, list3);
    let unsafe_icons = r#",{"src":"javascript:alert(1)"},{"src":"file:///etc/passwd"},{"src":"http://example.com/i.png"}"#;
    assert!(sent3.contains(unsafe_icons), "{sent3}");
    assert_eq!(page3, sent3.replace(unsafe_icons, ""));
    // A large integer id and a result with unusual number and escape spellings pass untouched.
    let read = call("9007199254740993", "read_temp");
    let answer = b.request(&read);
    assert_eq!(answer, device_answer(&dev, &read));
    assert!(
        answer.contains(r#""id":9007199254740993"#)
            && answer.contains(r#""celsius":21.50,"sensor":"t\u0030""#)
    );
    let conn = dev.conn(0);
    assert_eq!(conn.received[0], initialize_request("2025-06-18"));
    assert_eq!(conn.received[1], INITIALIZED);
    assert_eq!(conn.received[2], list1);
    b.finish().unwrap();
}

#[test]
fn modern_session_passes_through_without_handshake() {
    let (dev, mut b) = start();
    let discover = format!(
        r#"{{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{{{MODERN_META}}}}}"#
    );
    let answer = b.request(&discover);
    // Byte for byte, but for the tasks extension the bridge serves (BRIDGE.md).
    let tasks = r#""capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}},"#;
    assert_eq!(
        answer,
        device_answer(&dev, &discover).replace(r#""capabilities":{"#, tasks)
    );
    assert!(answer.contains(r#""resultType":"complete""#));
    let list =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{MODERN_META}}}}}"#);
    let page = b.request(&list);
    assert_eq!(page, device_answer(&dev, &list));
    assert!(page.contains(r#""ttlMs":0,"cacheScope":"public","resultType":"complete""#));
    let read = call_modern("2", "read_temp");
    assert_eq!(b.request(&read), device_answer(&dev, &read));
    // A 2026 request for a version the device does not serve gets the device's -32022 as is.
    let old = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2024-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let refused = b.request(old);
    assert_eq!(refused, device_answer(&dev, old));
    assert!(refused.contains(r#""code":-32022"#));
    assert!(!dev
        .conn(0)
        .received
        .iter()
        .any(|l| l.contains("initialize")));
    b.finish().unwrap();
}

#[test]
fn schema_violation_becomes_an_is_error_result_naming_field_and_rule() {
    let (_dev, mut b) = start();
    b.initialize("2025-11-25");
    b.request(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    assert_eq!(
        b.request(&call("5", "bad_temp")),
        r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"The result of tool `bad_temp` does not match its outputSchema, so the embedded-mcp bridge withheld it: field `/structuredContent/celsius` broke rule `maximum` (schema path `/properties/celsius/maximum`): 999 is greater than the maximum of 125"}],"isError":true}}"#
    );
    assert_eq!(
        b.request(&call("\"w\"", "wrong_type")),
        r#"{"jsonrpc":"2.0","id":"w","result":{"content":[{"type":"text","text":"The result of tool `wrong_type` does not match its outputSchema, so the embedded-mcp bridge withheld it: field `/structuredContent/celsius` broke rule `type` (schema path `/properties/celsius/type`): \"warm\" is not of type \"number\""}],"isError":true}}"#
    );
    assert_eq!(
        b.request(&call("6", "no_structured")),
        r#"{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"The result of tool `no_structured` does not match its outputSchema, so the embedded-mcp bridge withheld it: field (the result itself) broke rule `structuredContent`: tool \"no_structured\" declares an outputSchema, so a successful result must carry structuredContent"}],"isError":true}}"#
    );
    // Tool errors are not validated; valid results pass.
    assert!(b
        .request(&call("7", "tool_error"))
        .contains(r#""text":"sensor t0 not responding"}],"isError":true}"#));
    assert!(b
        .request(&call("8", "read_temp"))
        .contains(r#""structuredContent":{"celsius":21.50"#));
    b.log
        .wait_for("field `/structuredContent/celsius` broke rule `maximum`");
    b.finish().unwrap();
}

#[test]
fn schema_violation_in_a_modern_session_carries_result_type() {
    let (_dev, mut b) = start();
    let list =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{MODERN_META}}}}}"#);
    b.request(&list);
    let answer = b.request(&call_modern("2", "bad_temp"));
    assert!(answer.starts_with(r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"The result of tool `bad_temp` does not match its outputSchema"#), "{answer}");
    assert!(
        answer.ends_with(
            r#"is greater than the maximum of 125"}],"isError":true,"resultType":"complete"}}"#
        ),
        "{answer}"
    );
    b.finish().unwrap();
}

#[test]
fn on_invalid_warn_forwards_and_logs_pass_forwards_silently() {
    for mode in [OnInvalid::Warn, OnInvalid::Pass] {
        let (dev, mut b) = start_with(mode);
        b.initialize("2025-11-25");
        b.request(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
        let bad = call("2", "bad_temp");
        let answer = b.request(&bad);
        assert_eq!(answer, device_answer(&dev, &bad), "{mode:?}");
        let log = b.log.text();
        match mode {
            OnInvalid::Warn => assert!(
                log.contains("forwarded anyway (--on-invalid=warn): The result of tool `bad_temp` does not match"),
                "{log}"
            ),
            _ => assert!(!log.contains("does not match"), "{log}"),
        }
        b.finish().unwrap();
    }
}

#[test]
fn bridge_fetches_schemas_itself_when_the_host_did_not_list() {
    let (dev, mut b) = start();
    b.initialize("2025-11-25");
    let answer = b.request(&call("1", "bad_temp"));
    assert!(
        answer.contains(r#""isError":true"#) && answer.contains("broke rule `maximum`"),
        "{answer}"
    );
    // The bridge listed all three pages under its own ids; none of that reached the host.
    let received = dev.conn(0).received;
    let own: Vec<&String> = received
        .iter()
        .filter(|l| l.contains("embedded-mcp-bridge-"))
        .collect();
    assert_eq!(
        own,
        vec![
            r#"{"id":"embedded-mcp-bridge-1","jsonrpc":"2.0","method":"tools/list","params":{}}"#,
            r#"{"id":"embedded-mcp-bridge-2","jsonrpc":"2.0","method":"tools/list","params":{"cursor":"page-4"}}"#,
            r#"{"id":"embedded-mcp-bridge-3","jsonrpc":"2.0","method":"tools/list","params":{"cursor":"page-8"}}"#,
        ]
    );
    assert_eq!(b.try_recv(Duration::from_millis(300)), None);
    // Known now: a second call is checked without another listing.
    assert!(b.request(&call("2", "read_temp")).contains("21.50"));
    assert_eq!(
        dev.conn(0)
            .received
            .iter()
            .filter(|l| l.contains("embedded-mcp-bridge-"))
            .count(),
        3
    );
    b.finish().unwrap();
}

#[test]
fn garbled_device_lines_are_logged_and_skipped() {
    let (dev, mut b) = start();
    b.initialize("2025-11-25");
    let garbage = call("1", "garbage");
    let answer = b.request(&garbage);
    assert!(answer.contains("after garbage"), "{answer}");
    assert_eq!(
        dev.conn(0)
            .sent
            .iter()
            .filter(|l| l.contains("not json"))
            .count(),
        1
    );
    b.log.wait_for("skipped a garbled line from the device");
    b.finish().unwrap();
}

#[test]
fn a_device_request_is_answered_by_the_bridge_and_never_reaches_the_host() {
    let (dev, mut b) = start();
    b.initialize("2025-11-25");
    // `ask_host` pings the host first and answers its call once the ping is answered.
    b.send(&call("1", "ask_host"));
    assert_eq!(
        b.recv(),
        r#"{"jsonrpc":"2.0", "id":1, "result":{"content":[{"type":"text","text":"the host answered"}]}}"#,
        "the ping never reached the host"
    );
    let refusal = r#"{"jsonrpc":"2.0","id":"dev-ping-1","error":{"code":-32601,"message":"Method not found: the embedded-mcp bridge does not pass a device's own requests (ping) to the host"}}"#;
    assert!(dev.conn(0).received.iter().any(|l| l == refusal));
    b.log.wait_for("answered the device's own request ping");
    b.finish().unwrap();
}

#[test]
fn cancelled_requests_are_forwarded_and_not_answered() {
    let dev = SocketDevice::start();
    let mut c = config(Endpoint::Unix(dev.path.clone()));
    c.timeout = Duration::from_millis(400);
    let mut b = Bridge::start(c);
    b.initialize("2025-11-25");
    b.send(&call("7", "hang"));
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}"#;
    b.send(cancel);
    dev.wait_received(0, 4);
    assert_eq!(dev.conn(0).received[3], cancel);
    // No timeout error follows for the cancelled request.
    assert_eq!(b.try_recv(Duration::from_millis(900)), None);
    assert!(b.request(&call("8", "read_temp")).contains("21.50"));
    b.finish().unwrap();
}

#[test]
fn host_garbage_and_invalid_messages_get_json_rpc_errors() {
    let (dev, mut b) = start();
    b.initialize("2025-11-25");
    assert_eq!(
        b.request("{not json"),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON"}}"#
    );
    assert_eq!(
        b.request("[1,2]"),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: not a JSON-RPC 2.0 request, notification or response"}}"#
    );
    // An id still in flight cannot be reused.
    b.send(&call("9", "hang"));
    assert_eq!(
        b.request(&call("9", "read_temp")),
        r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"Invalid request: this id is already used by a request in flight"}}"#
    );
    // Neither reached the device.
    assert!(!dev
        .conn(0)
        .received
        .iter()
        .any(|l| l.contains("not json") || l == "[1,2]"));
    b.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#);
    b.finish().unwrap();
}
