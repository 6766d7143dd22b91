//! The server the engine target fuzzes: tools that reach every path of `tools/call` (schema
//! validation of arguments and output, legacy wrapping, handler errors, results too large for
//! the buffer, pagination), with a stateless handler so two servers fed the same lines answer
//! the same bytes.

use embedded_mcp::server::{
    Annotations, Call, Config, Done, Icon, Output, SchemaStorage, Server, ServerInfo, Theme, Tool,
    ToolError,
};
use serde::{Deserialize, Serialize};

/// Longest request line accepted by the fuzzed server, LF included.
pub const LINE: usize = 256;

/// Nesting accepted in a request.
pub const MAX_DEPTH: u8 = 16;

static ICONS: [Icon; 2] = [
    Icon::new("https://example.com/icon.png")
        .mime_type("image/png")
        .sizes(&["48x48"])
        .theme(Theme::Dark),
    Icon::new("data:image/png;base64,iVBORw0KGgo="),
];

/// The tools, in listing order.
pub static TOOLS: [Tool; 8] = [
    Tool::new("echo", r#"{"type":"object"}"#).description("Returns its arguments as text"),
    Tool::new(
        "add",
        r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer","minimum":-1000000,"maximum":1000000}},"required":["a","b"],"additionalProperties":false}"#,
    )
    .title("Add")
    .output_schema(r#"{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}"#)
    .annotations(Annotations::SENSOR),
    Tool::new(
        "sort",
        r#"{"type":"object","properties":{"values":{"type":"array","items":{"type":"number"},"maxItems":8,"uniqueItems":true}},"required":["values"]}"#,
    )
    .output_schema(r#"{"type":"array","items":{"type":"number"}}"#),
    Tool::new(
        "label",
        r#"{"type":"object","properties":{"name":{"type":"string","pattern":"^[a-z][a-z0-9_]{0,7}$"},"kind":{"enum":["a","b",1,null]},"either":{"anyOf":[{"type":"integer"},{"type":"string","maxLength":3}]},"one":{"oneOf":[{"minimum":5},{"maximum":10}]}},"required":["name"],"dependentRequired":{"kind":["either"]}}"#,
    )
    .output_schema(r#"{"type":"string","maxLength":8}"#)
    .icons(&ICONS)
    .meta(r#"{"com.example/x": [1, {"y": null}]}"#),
    Tool::new("fail", r#"{"type":"object"}"#).description("Always fails"),
    Tool::new("bad_output", r#"{"type":"object"}"#)
        .output_schema(r#"{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}"#),
    Tool::new("big", r#"{"type":"object"}"#).description("A result larger than any buffer"),
    Tool::new(
        "nested",
        r##"{"type":"object","properties":{"tree":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"},"v":{"type":"integer"}}}}}"##,
    )
    .output_schema(r#"{"type":"object"}"#),
];

#[derive(Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Serialize)]
struct Sum {
    sum: i64,
}

#[derive(Deserialize)]
struct SortArgs {
    values: Vec<f64>,
}

#[derive(Deserialize)]
struct LabelArgs<'a> {
    #[serde(borrow)]
    name: &'a str,
}

#[derive(Serialize)]
struct Wrong<'a> {
    x: &'a str,
}

/// The tool implementations; no state, so answers depend on the request alone.
pub fn handler(call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
    match call.name() {
        "echo" => Ok(out.text(call.arguments().raw())),
        "add" => {
            let args: AddArgs = call.parse(&mut [])?;
            Ok(out.structured(&Sum {
                sum: args.a.saturating_add(args.b),
            }))
        }
        "sort" => {
            let mut args: SortArgs = call.parse(&mut [])?;
            args.values.sort_by(f64::total_cmp);
            Ok(out.structured(&args.values))
        }
        "label" => {
            let mut scratch = [0u8; 64];
            let args: LabelArgs<'_> = call.parse(&mut scratch)?;
            Ok(out.structured(args.name))
        }
        "fail" => Err(ToolError::Message("the tool failed")),
        "bad_output" => Ok(out.structured(&Wrong {
            x: "not an integer",
        })),
        "big" => Ok(out.text(&"x".repeat(8192))),
        "nested" => Ok(out.structured(&std::collections::BTreeMap::<&str, u8>::new())),
        _ => Err(ToolError::NotImplemented),
    }
}

/// The handler's type.
pub type Handler = fn(&Call<'_>, Output<'_>) -> Result<Done, ToolError>;

/// The fuzzed server type.
pub type FuzzServer = Server<'static, Handler, 8>;

/// Builds the server (its schema storage is leaked: build it once per process).
pub fn server() -> FuzzServer {
    let storage = Box::leak(Box::new(SchemaStorage::<8, 24, 64, 192>::new()));
    let config = Config {
        // Small pages: `tools/list` needs several, with cursors.
        page_bytes: 700,
        max_depth: MAX_DEPTH,
        ..Config::DEFAULT
    };
    let info = ServerInfo::new("fuzz", "0.0.0")
        .title("Fuzzed server")
        .instructions("Nothing here is real.");
    Server::with_config(info, &TOOLS, storage, handler as Handler, config)
        .expect("the fuzz server's definitions are valid")
}
