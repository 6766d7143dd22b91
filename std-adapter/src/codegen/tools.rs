//! The tools of a `tools/list` result as a module to emit: names, types, docs and the output
//! schema each function checks.

use std::ops::Range;

use serde_json::Value;

use super::model::{Builder, Model, Ty};
use super::names::{Case, Namer};
use super::CodegenError;
use crate::wire::wrapping;

/// The first revision whose tools may have a non-object output root.
pub const FIRST_ANY_ROOT_REVISION: &str = "2026-07-28";

/// What a tool returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// The value's type.
    pub ty: Ty,
    /// The value's schema (for a legacy listing's wrapped schema, the schema inside the wrapper).
    pub schema: Value,
    /// Whether a legacy peer wraps the value as `{"result": value}` (the schema's root `type` is
    /// not `"object"`), so the function unwraps it.
    pub wrapped: bool,
}

/// One tool, ready to emit.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The tool's name on the wire.
    pub name: String,
    /// The function's name in the target language, unique in the module.
    pub function: String,
    /// The type name stem (`SetLed`; types are `SetLedInput`, `SetLedOutput`).
    pub pascal: String,
    /// `title` (or `annotations.title`).
    pub title: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// The annotations in words (`reads only`, …).
    pub hints: Vec<&'static str>,
    /// The input object ([`Model::objects`] index).
    pub input: usize,
    /// The output, when the tool has an `outputSchema`.
    pub output: Option<Output>,
    /// The named types made for this tool: [`Model::objects`], [`Model::enums`] and
    /// [`Model::unions`] index ranges.
    pub types: [Range<usize>; 3],
}

/// What a module is generated from.
#[derive(Debug, Clone, PartialEq)]
pub struct Module {
    /// The tools in listing order.
    pub tools: Vec<ToolSpec>,
    /// Their named types.
    pub model: Model,
}

/// How one language names things.
#[derive(Debug, Clone, Copy)]
pub struct Naming<'a> {
    /// The functions' case.
    pub function_case: Case,
    /// Separator before a clash's number (`_` or empty).
    pub clash_separator: &'a str,
    /// Names functions may not take (the module's helpers, keywords).
    pub reserved_functions: &'a [&'a str],
    /// The language's keywords and how one is turned into a usable name (`class` → `class_`,
    /// `r#match`), before clashes are numbered.
    pub keywords: &'a [&'a str],
    /// Writes a keyword as a name.
    pub escape_keyword: fn(&str) -> String,
    /// Type names types may not take (the module's helpers, builtins).
    pub reserved_types: &'a [&'a str],
}

impl Naming<'_> {
    /// `name`, escaped when it is a keyword.
    pub fn escape(&self, name: String) -> String {
        if self.keywords.contains(&name.as_str()) {
            (self.escape_keyword)(&name)
        } else {
            name
        }
    }
}

/// `name_`: how Python and JavaScript code write a keyword as a name.
pub fn trailing_underscore(name: &str) -> String {
    format!("{name}_")
}

/// The tools of `listing`: a `tools/list` result (`{"tools": […]}`), a list of such pages, or a
/// bare list of tools. Tools with the same name after the first are refused.
pub fn tools_of(listing: &Value) -> Result<Vec<Value>, CodegenError> {
    let listing = listing.get("result").unwrap_or(listing);
    let tools: Vec<Value> = match listing {
        Value::Object(page) => match page.get("tools") {
            Some(Value::Array(tools)) => tools.clone(),
            _ => {
                return Err(CodegenError::NotAListing(
                    "an object without a `tools` array".into(),
                ))
            }
        },
        Value::Array(items)
            if items.iter().all(|i| i.get("tools").is_some()) && !items.is_empty() =>
        {
            let mut tools = Vec::new();
            for page in items {
                match page.get("tools") {
                    Some(Value::Array(page_tools)) => tools.extend(page_tools.iter().cloned()),
                    _ => {
                        return Err(CodegenError::NotAListing(
                            "a page whose `tools` is not an array".into(),
                        ))
                    }
                }
            }
            tools
        }
        Value::Array(tools) => tools.clone(),
        _ => {
            return Err(CodegenError::NotAListing(
                "neither an object nor an array".into(),
            ))
        }
    };
    let mut seen = std::collections::BTreeSet::new();
    for (index, tool) in tools.iter().enumerate() {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            return Err(CodegenError::BadTool {
                index,
                reason: "no string `name`".into(),
            });
        };
        if !seen.insert(name) {
            return Err(CodegenError::BadTool {
                index,
                reason: format!("`{name}` is listed twice"),
            });
        }
        if !tool.get("inputSchema").is_some_and(Value::is_object) {
            return Err(CodegenError::BadTool {
                index,
                reason: format!("`{name}` has no object `inputSchema`"),
            });
        }
    }
    Ok(tools)
}

/// Builds the module for `tools` listed at protocol `revision`.
pub fn module(tools: &[Value], revision: &str, naming: &Naming<'_>) -> Module {
    let mut model = Model::default();
    let mut functions = Namer::new(naming.reserved_functions);
    let mut stems = Namer::new(&[]);
    let mut type_names = Namer::new(naming.reserved_types);
    let legacy = revision < FIRST_ANY_ROOT_REVISION;
    let mut specs = Vec::new();
    for tool in tools {
        let name = tool["name"].as_str().unwrap_or_default().to_owned();
        let fallback = match naming.function_case {
            Case::Pascal => "Tool",
            Case::ScreamingSnake => "TOOL",
            Case::Snake | Case::Camel => "tool",
        };
        let function = functions.claim(
            &naming.escape(naming.function_case.apply(&name, fallback)),
            naming.clash_separator,
        );
        let starts = [model.objects.len(), model.enums.len(), model.unions.len()];
        let pascal = stems.claim(&Case::Pascal.apply(&name, "Tool"), "");
        let input_schema = &tool["inputSchema"];
        let input = Builder::new(&mut model, &mut type_names, input_schema)
            .sharing_enums_from(starts[1])
            .root_object(&format!("{pascal}Input"));
        let output = tool
            .get("outputSchema")
            .filter(|s| s.is_object())
            .map(|listed| {
                let (schema, wrapped) = match legacy.then(|| unwrapped(listed)).flatten() {
                    Some(inner) => (inner.clone(), true),
                    None => (
                        listed.clone(),
                        listed.get("type").and_then(Value::as_str) != Some("object"),
                    ),
                };
                let ty = Builder::new(&mut model, &mut type_names, &schema)
                    .sharing_enums_from(starts[1])
                    .ty(&schema, &format!("{pascal}Output"));
                Output {
                    ty,
                    schema,
                    wrapped,
                }
            });
        let text = |key: &str| tool.get(key).and_then(Value::as_str).map(str::to_owned);
        specs.push(ToolSpec {
            title: text("title").or_else(|| {
                tool.pointer("/annotations/title")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            }),
            description: text("description"),
            hints: hints(tool.get("annotations")),
            name,
            function,
            pascal,
            input,
            output,
            types: [
                starts[0]..model.objects.len(),
                starts[1]..model.enums.len(),
                starts[2]..model.unions.len(),
            ],
        });
    }
    Module {
        tools: specs,
        model,
    }
}

/// The schema inside a legacy wrapper `{"type":"object","properties":{"result":S},
/// "required":["result"]}` whose `S` has a root `type` other than `"object"` (what the engine
/// and the official SDKs list for a non-object output to a legacy peer).
fn unwrapped(schema: &Value) -> Option<&Value> {
    let map = schema.as_object()?;
    let shape = map.len() == 3
        && map.get("type")? == "object"
        && map.get("required")? == &serde_json::json!([wrapping::MEMBER]);
    let properties = map.get("properties")?.as_object()?;
    let inner = properties.get(wrapping::MEMBER)?;
    let object_root = inner.get("type").and_then(Value::as_str) == Some("object");
    (shape && properties.len() == 1 && wrapping::is_wrapped(object_root)).then_some(inner)
}

/// The annotations in words; the MCP defaults apply to hints left out of a present object.
fn hints(annotations: Option<&Value>) -> Vec<&'static str> {
    let Some(annotations) = annotations.filter(|a| a.is_object()) else {
        return Vec::new();
    };
    let flag = |key: &str, default: bool| {
        annotations
            .get(key)
            .and_then(Value::as_bool)
            .unwrap_or(default)
    };
    let mut words = Vec::new();
    if flag("readOnlyHint", false) {
        words.push("Reads only.");
    } else if flag("destructiveHint", true) {
        words.push("Destructive: may change the device.");
    } else {
        words.push("Changes the device, not destructively.");
    }
    if flag("idempotentHint", false) {
        words.push("Idempotent: repeating the call has no further effect.");
    }
    if !flag("openWorldHint", true) {
        words.push("Touches nothing outside the device.");
    }
    words
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const NAMING: Naming<'static> = Naming {
        function_case: Case::Camel,
        clash_separator: "",
        reserved_functions: &["callTool"],
        keywords: &["delete"],
        escape_keyword: trailing_underscore,
        reserved_types: &["ToolError"],
    };

    #[test]
    fn listings_in_three_shapes() {
        let tool = json!({"name": "a", "inputSchema": {"type": "object"}});
        assert_eq!(tools_of(&json!({"tools": [tool]})).unwrap().len(), 1);
        assert_eq!(
            tools_of(&json!([{"tools": [tool]}, {"tools": []}]))
                .unwrap()
                .len(),
            1
        );
        assert_eq!(tools_of(&json!([tool])).unwrap().len(), 1);
        assert_eq!(
            tools_of(&json!([tool, tool])).unwrap_err().to_string(),
            "tool 1: `a` is listed twice"
        );
        assert!(tools_of(&json!({"tool": []})).is_err());
    }

    #[test]
    fn legacy_wrappers_are_unwrapped_and_modern_roots_flagged() {
        let inner = json!({"type": "array", "items": {"type": "number"}});
        let wrapped =
            json!({"type": "object", "properties": {"result": inner}, "required": ["result"]});
        let tool = |schema: &Value| json!([{"name": "acc", "inputSchema": {"type": "object"}, "outputSchema": schema}]);
        let legacy = module(&tools_of(&tool(&wrapped)).unwrap(), "2025-11-25", &NAMING);
        let output = legacy.tools[0].output.as_ref().unwrap();
        assert_eq!((&output.schema, output.wrapped), (&inner, true));
        let modern = module(&tools_of(&tool(&inner)).unwrap(), "2026-07-28", &NAMING);
        assert_eq!(modern.tools[0].output, legacy.tools[0].output);
        // At 2026-07-28 a `{result: …}` object is an object, not a wrapper.
        let modern = module(&tools_of(&tool(&wrapped)).unwrap(), "2026-07-28", &NAMING);
        assert!(!modern.tools[0].output.as_ref().unwrap().wrapped);
    }

    #[test]
    fn clashing_and_odd_names_stay_distinct() {
        let tools = json!([
            {"name": "read-temp", "inputSchema": {"type": "object"}},
            {"name": "read_temp", "inputSchema": {"type": "object"}},
            {"name": "callTool", "inputSchema": {"type": "object"}},
            {"name": "tool-error", "inputSchema": {"type": "object"}},
            {"name": "delete", "inputSchema": {"type": "object"}},
        ]);
        let module = module(tools.as_array().unwrap(), "2025-11-25", &NAMING);
        let names: Vec<_> = module
            .tools
            .iter()
            .map(|t| (t.function.as_str(), t.pascal.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("readTemp", "ReadTemp"),
                ("readTemp2", "ReadTemp2"),
                ("callTool2", "CallTool"),
                ("toolError", "ToolError"),
                ("delete_", "Delete")
            ]
        );
    }

    #[test]
    fn annotations_in_words() {
        assert_eq!(
            hints(Some(&json!({"readOnlyHint": true, "openWorldHint": false}))),
            ["Reads only.", "Touches nothing outside the device."]
        );
        assert_eq!(
            hints(Some(&json!({}))),
            ["Destructive: may change the device."]
        );
        assert!(hints(None).is_empty());
    }
}
