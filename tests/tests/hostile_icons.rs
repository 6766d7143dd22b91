//! Icons with unsafe schemes (`javascript:`, `file:`, `ftp:`, `ws:`, `http:` and friends): the
//! core refuses them in tool and server definitions, and the bridge drops them from whatever a
//! device sends (tool lists, `initialize`'s `serverInfo`, the 2026-07-28 `_meta` server info),
//! keeping every other byte. MCP allows `https:` and `data:` only.

use embedded_mcp::server::{
    is_allowed_icon_src, DefinitionError, Icon, SchemaStorage, Server, ServerInfo, StaticError,
    Tool, ToolError,
};
use embedded_mcp::server::{Call, Done, Output};
use embedded_mcp_std::bridge::rewrite::{drop_unsafe_icons, icon_src_allowed};

/// Sources that must be refused: the five schemes MCP names, case and spacing tricks, and
/// other schemes.
const UNSAFE: [&str; 16] = [
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    "file:///etc/passwd",
    "FILE:///c:/windows/win.ini",
    "ftp://example.com/i.png",
    "ws://example.com/i",
    "wss://example.com/i",
    "http://example.com/i.png",
    "HTTP://example.com/i.png",
    " https://example.com/leading-space.png",
    "//example.com/scheme-relative.png",
    "vbscript:msgbox(1)",
    "blob:https://example.com/x",
    "httpsx://example.com/i.png",
    "data",
    "",
];

const SAFE: [&str; 4] = [
    "https://example.com/i.png",
    "HTTPS://example.com/I.PNG",
    "data:image/png;base64,iVBORw0KGgo=",
    "DATA:image/svg+xml;base64,PHN2Zy8+",
];

fn handler(_: &Call<'_>, _: Output<'_>) -> Result<Done, ToolError> {
    Err(ToolError::NotImplemented)
}

type H = fn(&Call<'_>, Output<'_>) -> Result<Done, ToolError>;

#[test]
fn core_and_bridge_agree_on_which_sources_are_safe() {
    for src in UNSAFE {
        assert!(!is_allowed_icon_src(src), "core allowed {src:?}");
        assert!(!icon_src_allowed(src), "bridge allowed {src:?}");
    }
    for src in SAFE {
        assert!(is_allowed_icon_src(src), "core refused {src:?}");
        assert!(icon_src_allowed(src), "bridge refused {src:?}");
    }
}

#[test]
fn the_core_refuses_unsafe_icons_in_tool_and_server_definitions() {
    for src in UNSAFE {
        // Leaked so the definitions can be `'static`, as firmware's are.
        let icons: &'static [Icon] = Box::leak(Box::new([
            Icon::new("https://example.com/ok.png"),
            Icon::new(Box::leak(src.to_owned().into_boxed_str())),
        ]));
        let tool = Tool::new("t", r#"{"type":"object"}"#).icons(icons);
        assert_eq!(
            tool.check_static(),
            Err(StaticError::IconScheme { icon: 1 }),
            "{src:?}"
        );
        let tools: &'static [Tool; 2] =
            Box::leak(Box::new([Tool::new("ok", r#"{"type":"object"}"#), tool]));
        let storage = Box::leak(Box::new(SchemaStorage::<2, 4, 8, 16>::new()));
        let refused = Server::new(ServerInfo::new("s", "1"), tools, storage, handler as H)
            .err()
            .unwrap_or_else(|| panic!("a tool icon {src:?} was accepted"));
        assert_eq!(
            refused,
            DefinitionError::Static {
                tool: 1,
                error: StaticError::IconScheme { icon: 1 }
            }
        );
        assert_eq!(
            refused.to_string(),
            "tool 1: icon 1: src must be an https: URL or a data: URI"
        );

        let ok_tools: &'static [Tool; 1] =
            Box::leak(Box::new([Tool::new("ok", r#"{"type":"object"}"#)]));
        let storage = Box::leak(Box::new(SchemaStorage::<1, 4, 8, 16>::new()));
        let info = ServerInfo::new("s", "1").icons(icons);
        let refused = Server::new(info, ok_tools, storage, handler as H)
            .err()
            .unwrap_or_else(|| panic!("a server icon {src:?} was accepted"));
        assert_eq!(refused, DefinitionError::ServerIconScheme { icon: 1 });
    }
    for src in SAFE {
        let icons: &'static [Icon] = Box::leak(Box::new([Icon::new(src)]));
        assert_eq!(Tool::new("t", "{}").icons(icons).check_static(), Ok(()));
    }
}

fn quoted(src: &str) -> String {
    serde_json::to_string(src).unwrap()
}

#[test]
fn the_bridge_drops_unsafe_icons_wherever_a_device_sends_them() {
    for src in UNSAFE {
        let bad = format!("{{\"src\":{},\"mimeType\":\"image/png\"}}", quoted(src));
        let good = r#"{"src":"https://example.com/ok.png"}"#;
        let data = r#"{"src":"data:image/png;base64,AA=="}"#;
        // A tools/list page: the bad icon goes, every other byte stays (spacing included).
        let list = format!(
            r#"{{"jsonrpc":"2.0","id":7,"result":{{"tools":[{{"name":"a","inputSchema":{{"type":"object"}},"icons":[{good}, {bad} ,{data}]}},{{"name":"b","icons":[{bad}],"inputSchema":{{"type":"object"}}}}]}}}}"#
        );
        let mut dropped = Vec::new();
        let out = drop_unsafe_icons(list.as_bytes(), &mut dropped).expect("JSON");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"result":{{"tools":[{{"name":"a","inputSchema":{{"type":"object"}},"icons":[{good},{data}]}},{{"name":"b","icons":[],"inputSchema":{{"type":"object"}}}}]}}}}"#
            ),
            "{src:?}"
        );
        assert_eq!(dropped.len(), 2, "{src:?}");
        assert!(dropped.iter().all(|d| d.src == src), "{dropped:?}");

        // initialize's serverInfo, and the 2026-07-28 server info in _meta.
        let init = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"protocolVersion":"2025-11-25","serverInfo":{{"name":"d","version":"1","icons":[{bad},{good}]}},"_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"d","version":"1","icons":[{bad}]}}}}}}}}"#
        );
        let mut dropped = Vec::new();
        let out = drop_unsafe_icons(init.as_bytes(), &mut dropped).expect("JSON");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{{"protocolVersion":"2025-11-25","serverInfo":{{"name":"d","version":"1","icons":[{good}]}},"_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"d","version":"1","icons":[]}}}}}}}}"#
            ),
            "{src:?}"
        );
        assert_eq!(dropped.len(), 2);
    }
}

#[test]
fn icons_that_are_not_objects_with_a_string_src_are_dropped_too() {
    let line = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","icons":[{"src":42},"https://x/i.png",{"mimeType":"image/png"},null,{"src":"https://x/ok.png"}]}]}}"#;
    let mut dropped = Vec::new();
    let out = drop_unsafe_icons(line, &mut dropped).expect("JSON");
    assert_eq!(
        String::from_utf8(out).unwrap(),
        r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","icons":[{"src":"https://x/ok.png"}]}]}}"#
    );
    assert_eq!(dropped.len(), 4);
}
