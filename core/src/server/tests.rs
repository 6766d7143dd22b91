//! Unit tests of the engine (the scripted conversations are in `tests/tests/engine_*.rs`).

use std::string::String;
use std::vec::Vec;

use super::*;
use crate::protocol::Version;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

static TOOLS: [Tool; 2] = [
    Tool::new("echo", r#"{"type":"object"}"#),
    Tool::new("list", r#"{"type":"object"}"#).output_schema(r#"{"type":"array"}"#),
];

fn handler(call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
    match call.name() {
        "echo" => Ok(out.text("hi")),
        "list" => Ok(out.structured(&[1, 2])),
        _ => Err(ToolError::NotImplemented),
    }
}

type H = fn(&Call<'_>, Output<'_>) -> Result<Done, ToolError>;

fn storage<const N: usize>() -> &'static mut SchemaStorage<N, 8, 32, 64> {
    std::boxed::Box::leak(std::boxed::Box::new(SchemaStorage::new()))
}

fn server() -> Server<'static, H, 2> {
    Server::new(ServerInfo::new("t", "1"), &TOOLS, storage(), handler as H).unwrap()
}

fn ask(server: &mut Server<'static, H, 2>, line: &str) -> Option<String> {
    let mut out = [0u8; 1024];
    let n = server.handle_line(line.as_bytes(), &mut out)?;
    assert_eq!(out[n - 1], b'\n');
    Some(String::from_utf8(out[..n - 1].to_vec()).unwrap())
}

#[test]
fn definitions_are_checked() {
    static BAD_NAME: [Tool; 1] = [Tool::new("a b", r#"{"type":"object"}"#)];
    static DUP: [Tool; 2] = [
        Tool::new("a", r#"{"type":"object"}"#),
        Tool::new("a", r#"{"type":"object"}"#),
    ];
    static NOT_OBJECT: [Tool; 1] = [Tool::new("a", r#"{"type":"string"}"#)];
    static NOT_JSON: [Tool; 1] = [Tool::new("a", r#"{"type":"object""#)];
    static OUT_BOOL: [Tool; 1] = [Tool::new("a", r#"{"type":"object"}"#).output_schema("true")];
    static ICON: [Tool; 1] =
        [Tool::new("a", r#"{"type":"object"}"#).icons(&[Icon::new("javascript:x")])];
    static META_BAD: [Tool; 1] = [Tool::new("a", r#"{"type":"object"}"#).meta("[]")];
    let info = ServerInfo::new("t", "1");
    let h = handler as H;
    assert!(matches!(
        Server::new(info, &BAD_NAME, storage(), h).unwrap_err(),
        DefinitionError::Static {
            tool: 0,
            error: StaticError::InvalidName
        }
    ));
    assert_eq!(
        Server::new(info, &DUP, storage(), h).unwrap_err(),
        DefinitionError::DuplicateName { tool: 1, first: 0 }
    );
    assert_eq!(
        Server::new(info, &NOT_OBJECT, storage(), h).unwrap_err(),
        DefinitionError::SchemaNotObject {
            tool: 0,
            role: SchemaRole::Input
        }
    );
    assert!(matches!(
        Server::new(info, &NOT_JSON, storage(), h).unwrap_err(),
        DefinitionError::SchemaNotJson {
            tool: 0,
            role: SchemaRole::Input,
            ..
        }
    ));
    assert_eq!(
        Server::new(info, &OUT_BOOL, storage(), h).unwrap_err(),
        DefinitionError::SchemaNotObject {
            tool: 0,
            role: SchemaRole::Output
        }
    );
    assert!(matches!(
        Server::new(info, &ICON, storage(), h).unwrap_err(),
        DefinitionError::Static {
            tool: 0,
            error: StaticError::IconScheme { icon: 0 }
        }
    ));
    assert_eq!(
        Server::new(info, &META_BAD, storage(), h).unwrap_err(),
        DefinitionError::MetaNotObject { tool: 0 }
    );
    static REFUSED: [Tool; 1] = [Tool::new(
        "a",
        r#"{"type":"object","properties":{"x":{"$ref":"https://example.com/s"}}}"#,
    )];
    // Refusing a schema is the compiler's work: with the `validator` feature off nothing is
    // compiled, and the engine (documented as trusting its handlers) serves the schema as text.
    #[cfg(feature = "validator")]
    assert!(matches!(
        Server::new(info, &REFUSED, storage(), h).unwrap_err(),
        DefinitionError::SchemaRefused {
            tool: 0,
            role: SchemaRole::Input,
            ..
        }
    ));
    #[cfg(not(feature = "validator"))]
    assert!(Server::new(info, &REFUSED, storage(), h).is_ok());
    static SERVER_ICONS: [Icon; 1] = [Icon::new("http://plain")];
    assert_eq!(
        Server::new(info.icons(&SERVER_ICONS), &TOOLS, storage(), h).unwrap_err(),
        DefinitionError::ServerIconScheme { icon: 0 }
    );
}

#[test]
fn era_selection() {
    let mut s = server();
    // No handshake, no `_meta`: refused.
    let r = ask(&mut s, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).unwrap();
    assert!(r.contains("-32602"), "{r}");
    // 2026 per request.
    let r = ask(
        &mut s,
        &std::format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{{META},"name":"list"}}}}"#
        ),
    )
    .unwrap();
    assert_eq!(
        r,
        r#"{"jsonrpc":"2.0","id":2,"result":{"structuredContent":[1,2],"content":[{"type":"text","text":"[1,2]"}],"resultType":"complete"}}"#
    );
    // Legacy after initialize: wrapped.
    let r = ask(&mut s, r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#).unwrap();
    assert!(r.contains(r#""protocolVersion":"2025-06-18""#), "{r}");
    let r = ask(
        &mut s,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list"}}"#,
    )
    .unwrap();
    assert_eq!(
        r,
        r#"{"jsonrpc":"2.0","id":4,"result":{"structuredContent":{"result":[1,2]},"content":[{"type":"text","text":"{\"result\":[1,2]}"}]}}"#
    );
    assert_eq!(s.session(), Some(Version::V2025_06_18));
}

#[test]
fn small_output_buffers_never_truncate() {
    let mut s = server();
    let line = std::format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{{META},"name":"list"}}}}"#
    );
    let mut full = [0u8; 512];
    let n = s.handle_line(line.as_bytes(), &mut full).unwrap();
    let mut seen = Vec::new();
    for cap in 0..n {
        let mut out = std::vec![0u8; cap];
        match s.handle_line(line.as_bytes(), &mut out) {
            None => seen.push("none"),
            Some(m) => {
                let v: serde_json::Value = serde_json::from_slice(&out[..m]).unwrap();
                assert_eq!(out[m - 1], b'\n');
                seen.push(if v.get("error").is_some() {
                    "error"
                } else {
                    "result"
                });
            }
        }
    }
    // Too small for anything, then the internal error, then an isError result, never garbage.
    assert_eq!(seen.first(), Some(&"none"));
    assert!(seen.contains(&"error"));
    assert!(s.required_output_len() > 100);
}

#[test]
fn a_tool_message_longer_than_the_buffer_becomes_the_short_one() {
    static ONE: [Tool; 1] = [Tool::new("fail", r#"{"type":"object"}"#)];
    fn fail(_: &Call<'_>, _: Output<'_>) -> Result<Done, ToolError> {
        Err(ToolError::Message(LONG))
    }
    const LONG: &str = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
    let mut server = Server::new(ServerInfo::new("t", "1"), &ONE, storage(), fail as H).unwrap();
    let line = std::format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"fail",{META}}}}}"#
    );
    let mut out = [0u8; 300];
    let n = server.handle_line(line.as_bytes(), &mut out).unwrap();
    assert_eq!(
        core::str::from_utf8(&out[..n]).unwrap(),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Tool failed; its message does not fit the output buffer\"}],\"isError\":true,\"resultType\":\"complete\"}}\n"
    );
}

#[test]
fn the_actuator_preset_is_destructive_on_the_wire() {
    static ACT: Tool =
        Tool::new("set_pump", r#"{"type":"object"}"#).annotations(Annotations::ACTUATOR);
    let mut count = crate::json::CountingSink::default();
    super::list::write_tool(&mut count, &ACT, Version::V2025_11_25, false).unwrap();
    let mut buf = std::vec![0u8; count.count];
    let mut sink = crate::json::SliceSink::new(&mut buf);
    super::list::write_tool(&mut sink, &ACT, Version::V2025_11_25, false).unwrap();
    assert_eq!(
        core::str::from_utf8(&buf).unwrap(),
        r#"{"name":"set_pump","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":true,"openWorldHint":false}}"#
    );
}

#[test]
fn an_internal_error_is_a_json_rpc_error_and_the_next_call_is_served() {
    static TWO: [Tool; 2] = [
        Tool::new("broken", r#"{"type":"object"}"#),
        Tool::new("echo", r#"{"type":"object"}"#),
    ];
    fn tools(call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
        match call.name() {
            "broken" => Ok(out.internal_error("the sensor bus faulted")),
            _ => Ok(out.text("hi")),
        }
    }
    let mut server = Server::new(ServerInfo::new("t", "1"), &TWO, storage(), tools as H).unwrap();
    let mut call = |id: u32, name: &str| {
        let line = std::format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}",{META}}}}}"#
        );
        let mut out = [0u8; 300];
        let n = server.handle_line(line.as_bytes(), &mut out).unwrap();
        String::from_utf8(out[..n].to_vec()).unwrap()
    };
    assert_eq!(
        call(1, "broken"),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,\"message\":\"the sensor bus faulted\"}}\n"
    );
    assert_eq!(
        call(2, "echo"),
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"resultType\":\"complete\"}}\n"
    );
}
