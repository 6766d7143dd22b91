//! The MCP rules for tool results and arguments, as strict clients (the TypeScript and Python
//! SDKs) apply them.

use std::collections::HashMap;

use embedded_mcp::protocol::Version;
use serde_json::Value;

use super::{FullOptions, FullValidator, SchemaError, ValidationFailure};
use crate::wire::wrapping;

struct OutputSchema {
    compiled: Result<FullValidator, SchemaError>,
    /// Root declares `"type": "object"`; otherwise legacy peers see it wrapped.
    object_root: bool,
}

struct Tool {
    input: Result<FullValidator, SchemaError>,
    output: Option<OutputSchema>,
}

/// Checks `tools/call` results and arguments against the schemas a `tools/list` advertised.
///
/// Each schema is compiled once, at [`register_tools`](Self::register_tools), and cached per tool.
///
/// ```
/// use embedded_mcp_std::full::ToolChecker;
/// use serde_json::json;
///
/// let mut checker = ToolChecker::new();
/// let failed = checker.register_tools(&json!([{
///     "name": "read_temp",
///     "inputSchema": {"type": "object"},
///     "outputSchema": {"type": "object", "properties": {"celsius": {"type": "number"}},
///                      "required": ["celsius"]}
/// }]));
/// assert!(failed.is_empty());
/// let ok = json!({"content": [], "structuredContent": {"celsius": 21.5}});
/// assert!(checker.check_result("2025-11-25", "read_temp", &ok).is_ok());
/// let missing = json!({"content": [{"type": "text", "text": "21.5"}]});
/// assert!(checker.check_result("2025-11-25", "read_temp", &missing).is_err());
/// ```
pub struct ToolChecker {
    options: FullOptions,
    tools: HashMap<String, Tool>,
}

impl Default for ToolChecker {
    fn default() -> Self {
        Self::new()
    }
}

impl ToolChecker {
    /// No tools, [`FullOptions::default`] for compiling their schemas.
    pub fn new() -> Self {
        Self::with_options(FullOptions::default())
    }

    /// No tools, `options` for compiling their schemas.
    pub fn with_options(options: FullOptions) -> Self {
        Self {
            options,
            tools: HashMap::new(),
        }
    }

    /// Compiles and caches the `inputSchema` and `outputSchema` of each tool of a `tools/list`
    /// result's `tools` array (call again for further pages).
    ///
    /// Returns `(tool name, error)` for each schema that failed: input first, then output, so a
    /// tool may appear twice. Also reported: an entry without a string `name` (named `#<index>`),
    /// a duplicate name (the first registration stays), a missing `inputSchema` or one whose root
    /// does not declare `"type": "object"`. A tool whose schema failed stays registered and
    /// fails every check that needs that schema.
    pub fn register_tools(
        &mut self,
        tools_list_result_tools: &Value,
    ) -> Vec<(String, SchemaError)> {
        let Some(tools) = tools_list_result_tools.as_array() else {
            return vec![(
                String::new(),
                SchemaError::Invalid("the tools list is not an array".to_owned()),
            )];
        };
        let mut failed = Vec::new();
        for (index, tool) in tools.iter().enumerate() {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                failed.push((
                    format!("#{index}"),
                    SchemaError::Invalid(format!("tool #{index} has no string name")),
                ));
                continue;
            };
            if self.tools.contains_key(name) {
                failed.push((
                    name.to_owned(),
                    SchemaError::Invalid(format!("duplicate tool name {name:?}")),
                ));
                continue;
            }
            let input = match tool.get("inputSchema") {
                None => Err(SchemaError::Invalid(
                    "the tool has no inputSchema".to_owned(),
                )),
                Some(schema) if schema.get("type") != Some(&Value::from("object")) => {
                    Err(SchemaError::Invalid(
                        "inputSchema root must declare \"type\": \"object\"".to_owned(),
                    ))
                }
                Some(schema) => FullValidator::with_options(schema, &self.options),
            };
            if let Err(error) = &input {
                failed.push((name.to_owned(), error.clone()));
            }
            let output = tool.get("outputSchema").map(|schema| OutputSchema {
                compiled: FullValidator::with_options(schema, &self.options),
                object_root: schema.get("type") == Some(&Value::from("object")),
            });
            if let Some(OutputSchema {
                compiled: Err(error),
                ..
            }) = &output
            {
                failed.push((name.to_owned(), error.clone()));
            }
            self.tools.insert(name.to_owned(), Tool { input, output });
        }
        failed
    }

    fn tool(&self, tool: &str) -> Result<&Tool, ValidationFailure> {
        self.tools.get(tool).ok_or_else(|| {
            ValidationFailure::rule("tool", format!("tool {tool:?} was not registered"))
        })
    }

    /// Checks a `tools/call` result of `tool` as a strict client of `protocol_version` does.
    ///
    /// - `isError: true` results are not validated, nor are results whose `resultType` is not
    ///   `"complete"` (a 2026-07-28 `input_required` answer asks for input: it is no tool
    ///   output); a `resultType` that is not a string is refused.
    /// - In 2025-06-18 and 2025-11-25 `structuredContent`, when present, must be an object.
    /// - A tool with an `outputSchema` must return `structuredContent` (absent is an error;
    ///   `null` is a value, validated in 2026-07-28), and it must conform. For the legacy
    ///   revisions a root that does not declare `"type": "object"` is the wrapped schema
    ///   `{"type":"object","properties":{"result":S},"required":["result"]}`, so the value is
    ///   expected under `result`.
    ///
    /// Instance paths are relative to `result` (`/structuredContent/...`).
    pub fn check_result(
        &self,
        protocol_version: &str,
        tool: &str,
        result: &Value,
    ) -> Result<(), ValidationFailure> {
        // Legacy revisions: `structuredContent` must be an object, and their peers see a
        // non-object output schema wrapped as
        // `{"type":"object","properties":{"result":S},"required":["result"]}`. Later ones allow
        // any JSON value, `null` included.
        let Some(legacy) = Version::parse(protocol_version).map(Version::is_legacy) else {
            return Err(ValidationFailure::rule(
                "protocolVersion",
                format!("protocol version {protocol_version:?} is not one this checker knows"),
            ));
        };
        let entry = self.tool(tool)?;
        let Some(fields) = result.as_object() else {
            return Err(ValidationFailure::rule(
                "type",
                "a tools/call result must be an object".to_owned(),
            ));
        };
        match fields.get("resultType") {
            None => {}
            Some(Value::String(kind)) if kind == "complete" => {}
            Some(Value::String(_)) => return Ok(()),
            Some(_) => {
                return Err(ValidationFailure::rule(
                    "resultType",
                    "resultType must be a string".to_owned(),
                )
                .nested("/resultType", ""))
            }
        }
        match fields.get("isError") {
            None | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) => return Ok(()),
            Some(_) => {
                return Err(ValidationFailure::rule(
                    "isError",
                    "isError must be a boolean".to_owned(),
                )
                .nested("/isError", ""))
            }
        }
        let structured = fields.get("structuredContent");
        if legacy {
            if let Some(value) = structured.filter(|value| !value.is_object()) {
                return Err(ValidationFailure::rule(
                    "structuredContent",
                    format!(
                        "structuredContent must be an object in revision {protocol_version}, not {}",
                        type_name(value)
                    ),
                )
                .nested("/structuredContent", ""));
            }
        }
        let Some(output) = &entry.output else {
            return Ok(());
        };
        let validator = output.compiled.as_ref().map_err(|error| {
            ValidationFailure::rule(
                "outputSchema",
                format!("the outputSchema of tool {tool:?} did not compile: {error}"),
            )
        })?;
        let Some(structured) = structured else {
            return Err(ValidationFailure::rule(
                "structuredContent",
                format!(
                    "tool {tool:?} declares an outputSchema, so a successful result must carry structuredContent"
                ),
            ));
        };
        if legacy && wrapping::is_wrapped(output.object_root) {
            let Some(value) = structured.get(wrapping::MEMBER) else {
                return Err(ValidationFailure::rule(
                    "required",
                    format!(
                        "tool {tool:?} has a non-object outputSchema, which revision {protocol_version} wraps: structuredContent must carry \"result\""
                    ),
                )
                .nested("/structuredContent", "/required"));
            };
            return validator
                .validate(value)
                .map_err(|f| f.nested("/structuredContent/result", "/properties/result"));
        }
        validator
            .validate(structured)
            .map_err(|f| f.nested("/structuredContent", ""))
    }

    /// Checks the `arguments` of a `tools/call` to `tool` against its `inputSchema` (pass `{}`
    /// when the request has none). Instance paths are relative to `arguments`.
    pub fn check_arguments(&self, tool: &str, arguments: &Value) -> Result<(), ValidationFailure> {
        let entry = self.tool(tool)?;
        let validator = entry.input.as_ref().map_err(|error| {
            ValidationFailure::rule(
                "inputSchema",
                format!("the inputSchema of tool {tool:?} did not compile: {error}"),
            )
        })?;
        validator.validate(arguments)
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
