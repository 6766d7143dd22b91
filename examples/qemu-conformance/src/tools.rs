//! The fixture tools, as the conformance suite's reference server
//! (`examples/servers/typescript/everything-server.ts`) defines them: the same names,
//! descriptions and argument schemas; [`crate::fixtures`] answers them.
//!
//! Tools without arguments have the reference's `{"type":"object","properties":{}}`.

use embedded_mcp::server::{ServerInfo, Tool};

/// Who this server is.
pub const SERVER_INFO: ServerInfo = ServerInfo::new("qemu-conformance", env!("CARGO_PKG_VERSION"))
    .title("MCP conformance fixtures");

/// `inputSchema` of the tools without arguments.
pub const NO_ARGUMENTS: &str = r#"{"type":"object","properties":{}}"#;

/// `inputSchema` of `json_schema_2020_12_tool` (the suite's `JSON_SCHEMA_2020_12_FIXTURE`).
pub const SCHEMA_2020_12: &str = r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}"##;

/// Number of tools.
pub const TOOL_COUNT: usize = 11;

const fn plain(name: &'static str, description: &'static str) -> Tool {
    Tool::new(name, NO_ARGUMENTS).description(description)
}

/// All tools, in `tools/list` order.
pub static TOOLS: [Tool; TOOL_COUNT] = [
    plain("test_simple_text", "Tests simple text content response"),
    plain("test_image_content", "Tests image content response"),
    plain("test_audio_content", "Tests audio content response"),
    plain(
        "test_embedded_resource",
        "Tests embedded resource content response",
    ),
    plain(
        "test_multiple_content_types",
        "Tests response with multiple content types (text, image, resource)",
    ),
    plain(
        "test_tool_with_logging",
        "Tests tool that emits log messages during execution",
    ),
    plain(
        "test_tool_with_progress",
        "Tests tool that reports progress notifications",
    ),
    plain("test_error_handling", "Tests error response handling"),
    Tool::new("json_schema_2020_12_tool", SCHEMA_2020_12)
        .description("Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)"),
    // The reference's stateless (2026-07-28) diagnostics a tools device can serve.
    plain(
        "test_streaming_elicitation",
        "Tests that a request's stream carries only its notifications and its result",
    ),
    plain(
        "test_logging_tool",
        "Tests that a request without a log level gets no log messages",
    ),
];

// The name rules, checked at compile time (the server checks them again with the schemas).
const _: () = {
    let mut i = 0;
    while i < TOOL_COUNT {
        assert!(TOOLS[i].check_static().is_ok());
        i += 1;
    }
};
