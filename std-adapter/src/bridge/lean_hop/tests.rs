use super::*;

const SDK_META: &str = r#""_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"sdk","version":"1.0"},"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{}},"experimental":{"x":{}}}}"#;

/// `for_device` with the client's info sent (`info`) and a call's capabilities kept.
fn edited(line: &str, info: bool) -> (String, ForDevice) {
    let out = for_device(line.as_bytes(), hop(info, true));
    let text = out
        .line
        .as_deref()
        .map_or(line.to_owned(), |l| String::from_utf8(l.to_vec()).unwrap());
    (text, out)
}

fn hop(client_info: bool, call_capabilities: bool) -> Hop {
    Hop {
        client_info,
        call_capabilities,
    }
}

#[test]
fn a_call_of_a_tool_that_never_asked_goes_without_capabilities() {
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{{SDK_META},"name":"t"}}}}"#
    );
    let out = for_device(line.as_bytes(), hop(false, false));
    assert_eq!(
        String::from_utf8(out.line.unwrap()).unwrap(),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28","embedded-mcp/lean":true},"name":"t"}}"#
    );
    assert!(out.capabilities_left_out);
    let none = line.replace(
        r#""roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{}},"#,
        "",
    );
    assert!(!for_device(none.as_bytes(), hop(false, false)).capabilities_left_out);
}

#[test]
fn a_2026_call_keeps_what_the_device_reads_and_asks_for_the_lean_result() {
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{{SDK_META},"name":"t","arguments":{{ "a" : 1.50 }}}}}}"#
    );
    let (text, out) = edited(&line, false);
    assert_eq!(
        text,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{}}},"embedded-mcp/lean":true},"name":"t","arguments":{ "a" : 1.50 }}}"#
    );
    assert!(out.lean && !out.client_info);
    // Once per link: the first request keeps the client's info.
    let (text, out) = edited(&line, true);
    assert!(text.contains(r#""io.modelcontextprotocol/clientInfo":{"name":"sdk","version":"1.0"}"#));
    assert!(out.client_info);
}

#[test]
fn a_2026_list_keeps_no_capability_and_leaves_the_empty_member_out() {
    let line =
        format!(r#"{{"jsonrpc":"2.0","id":"L","method":"tools/list","params":{{{SDK_META}}}}}"#);
    let (text, out) = edited(&line, false);
    assert_eq!(
        text,
        r#"{"jsonrpc":"2.0","id":"L","method":"tools/list","params":{"_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28","embedded-mcp/lean":true}}}"#
    );
    assert!(!out.lean);
    let call_without = line.replace("tools/list", "tools/call").replace(
        r#""roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{}},"#,
        "",
    );
    let (call_text, _) = edited(&call_without, false);
    assert!(!call_text.contains("clientCapabilities"), "{call_text}");
    // Already lean: nothing to edit.
    assert_eq!(
        for_device(text.as_bytes(), hop(false, true)),
        ForDevice::default()
    );
}

#[test]
fn a_legacy_call_gets_the_ask_in_front_of_its_params() {
    let (text, out) = edited(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}"#,
        true,
    );
    assert_eq!(
        text,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"embedded-mcp/lean":true},"name":"t","arguments":{}}}"#
    );
    assert!(out.lean);
    let (text, _) = edited(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p"},"name":"t"}}"#,
        true,
    );
    assert_eq!(
        text,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p","embedded-mcp/lean":true},"name":"t"}}"#
    );
}

#[test]
fn other_messages_go_as_they_are() {
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":7}}"#,
        "not json",
    ] {
        assert_eq!(
            for_device(line.as_bytes(), hop(false, true)),
            ForDevice::default(),
            "{line}"
        );
    }
}

#[test]
fn the_twin_comes_back_byte_for_byte() {
    let lean = r#"{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"s":"a\"b\u0001é"}}}"#;
    let full = r#"{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"s":"a\"b\u0001é"},"content":[{"type":"text","text":"{\"s\":\"a\\\"b\\u0001é\"}"}],"resultType":"complete"}}"#;
    assert_eq!(
        String::from_utf8(restore_for_host(lean.as_bytes(), true).unwrap()).unwrap(),
        full
    );
    let legacy = r#"{"jsonrpc":"2.0","id":"x","result":{"structuredContent":{"result":[1]}}}"#;
    assert_eq!(
        String::from_utf8(restore_for_host(legacy.as_bytes(), false).unwrap()).unwrap(),
        r#"{"jsonrpc":"2.0","id":"x","result":{"structuredContent":{"result":[1]},"content":[{"type":"text","text":"{\"result\":[1]}"}]}}"#
    );
    for other in [
        full,
        // A device's own formatting is never touched when it sent `content`.
        r#"{"jsonrpc":"2.0","id":1,"result":{ "structuredContent" : {"t":21.50}, "content":[] }}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"bad"}],"isError":true}}"#,
    ] {
        assert_eq!(restore_for_host(other.as_bytes(), true), None, "{other}");
    }
}
