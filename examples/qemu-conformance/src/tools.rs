//! The fixture tools, as the conformance suite's reference server
//! (`examples/servers/typescript/everything-server.ts`) defines them: the same names,
//! descriptions and argument schemas; [`crate::fixtures`] answers them.
//!
//! Tools without arguments have the reference's `{"type":"object","properties":{}}`.

use embedded_mcp::schema::McpSchema;
use embedded_mcp::server::{ServerInfo, TaskSupport, Tool};

use crate::tasks::{CONFIRM_DELETE_ARGUMENTS, GREET_ARGUMENTS, SLOW_COMPUTE_ARGUMENTS};

/// Who this server is.
pub const SERVER_INFO: ServerInfo = ServerInfo::new("qemu-conformance", env!("CARGO_PKG_VERSION"))
    .title("MCP conformance fixtures");

/// `inputSchema` of the tools without arguments.
pub const NO_ARGUMENTS: &str = r#"{"type":"object","properties":{}}"#;

/// `inputSchema` of `json_schema_2020_12_tool` (the suite's `JSON_SCHEMA_2020_12_FIXTURE`).
pub const SCHEMA_2020_12: &str = r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}"##;

/// `inputSchema` of `test_elicitation`.
pub const MESSAGE_ARGUMENT: &str = r#"{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}"#;

/// The arguments of `test_custom_headers`: the derive writes `x-mcp-header` for the marked
/// fields, so a 2026-07-28 client mirrors them in `Mcp-Param-Region`, `Mcp-Param-Priority` and
/// `Mcp-Param-Verbose`, and the bridge checks them against the body.
#[derive(embedded_mcp::McpSchema)]
#[allow(dead_code)] // Only its schema is used: the handler echoes the raw arguments.
pub struct CustomHeaders<'a> {
    /// The region, mirrored in `Mcp-Param-Region`.
    #[mcp(header = "Region")]
    pub region: &'a str,
    /// A priority, mirrored in `Mcp-Param-Priority`.
    #[mcp(header = "Priority")]
    pub priority: Option<u8>,
    /// Verbose output, mirrored in `Mcp-Param-Verbose`.
    #[mcp(header = "Verbose")]
    pub verbose: Option<bool>,
    /// Not mirrored.
    pub query: Option<&'a str>,
}

/// Number of tools.
pub const TOOL_COUNT: usize = 31;

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
    // The reference's stateless diagnostic that needs a capability the suite does not declare.
    plain("test_missing_capability", "Test tool requiring sampling"),
    // 2026-07-28 multi-round-trip requests (src/asks.rs).
    plain(
        "test_input_required_result_elicitation",
        "MRTR: returns InputRequiredResult with elicitation request",
    ),
    plain(
        "test_input_required_result_sampling",
        "MRTR: returns InputRequiredResult with sampling request",
    ),
    plain(
        "test_input_required_result_list_roots",
        "MRTR: returns InputRequiredResult with roots/list request",
    ),
    plain(
        "test_input_required_result_request_state",
        "MRTR: returns InputRequiredResult with requestState",
    ),
    plain(
        "test_input_required_result_multiple_inputs",
        "MRTR: returns InputRequiredResult with multiple input requests",
    ),
    plain(
        "test_input_required_result_multi_round",
        "MRTR: multi-round InputRequiredResult workflow",
    ),
    plain(
        "test_input_required_result_tampered_state",
        "MRTR: HMAC-signed requestState integrity test",
    ),
    plain(
        "test_input_required_result_capabilities",
        "MRTR: respects client capabilities in inputRequests",
    ),
    // 2025-11-25 elicitation, asked with input_required (the bridge asks a legacy host).
    Tool::new("test_elicitation", MESSAGE_ARGUMENT)
        .description("Tests server-initiated elicitation (user input request)"),
    plain(
        "test_elicitation_sep1034_defaults",
        "Tests elicitation with default values per SEP-1034",
    ),
    plain(
        "test_elicitation_sep1330_enums",
        "Tests elicitation with enum schema improvements per SEP-1330",
    ),
    // SEP-2243 custom headers: the first tool with x-mcp-header marks.
    Tool::new("test_custom_headers", CustomHeaders::INPUT_SCHEMA).description(
        "A tool with x-mcp-header annotations to test custom header mirroring and validation",
    ),
    // The tasks extension's fixtures (src/tasks.rs): every one but `greet` marks how it runs
    // as a task (`execution.taskSupport`), which the bridge reads from `tools/list`.
    // `test_tool_with_task` asks for its input before it becomes a task (`_meta`
    // `embedded-mcp/askFirst`): its first call is an ordinary one, and only the retry that
    // carries the answers runs as a task (tasks-mrtr-composition).
    Tool::new("greet", GREET_ARGUMENTS).description("Sync only: greets by name"),
    Tool::new("slow_compute", SLOW_COMPUTE_ARGUMENTS)
        .description("Task-supporting: sleeps `seconds`, then returns a result naming `label`")
        .task_support(TaskSupport::Optional),
    plain(
        "failing_job",
        "Task required: a tool execution error after about a second",
    )
    .task_support(TaskSupport::Required),
    plain(
        "protocol_error_job",
        "Task-supporting: fails with a protocol error (-32603)",
    )
    .task_support(TaskSupport::Optional),
    Tool::new("confirm_delete", CONFIRM_DELETE_ARGUMENTS)
        .description("Task-supporting: asks for one confirmation, then answers")
        .task_support(TaskSupport::Optional),
    plain(
        "multi_input",
        "Task-supporting: asks two questions at once, then answers",
    )
    .task_support(TaskSupport::Optional),
    plain(
        "test_tool_with_task",
        "Task required: asks for user_name, then greets",
    )
    .task_support(TaskSupport::Required)
    .meta(r#"{"embedded-mcp/askFirst":true}"#),
];

// The name rules, checked at compile time (the server checks them again with the schemas).
const _: () = {
    let mut i = 0;
    while i < TOOL_COUNT {
        assert!(TOOLS[i].check_static().is_ok());
        i += 1;
    }
};
