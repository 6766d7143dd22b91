//! The Python emitter: `TypedDict`s for objects, `Literal` aliases for enums, an `async def` per
//! tool with snake_case keyword arguments, checking the result with `jsonschema` (Draft
//! 2020-12). Formatted as black formats it; needs Python 3.11+.
//!
//! Results are `TypedDict`s: a checked `structuredContent` is already a `dict`, so the value is
//! returned as it came (no copy, no extra dependency), mypy checks every key a script reads, and
//! a nested input can be written as a plain literal that mypy checks against the same types.

use serde_json::Value;

use super::layout::{self, quoted};
use super::model::{Extra, Field, Model, ObjectDef, Ty};
use super::names::{is_plain_identifier, Case, Namer};
use super::tools::{self, Naming, ToolSpec};
use super::{field_doc, header_lines, tool_doc, Lang, Options};

/// black's default line length.
const WIDTH: usize = 88;

/// The helpers of the module (see `runtime/preamble.py`).
const PREAMBLE: &str = include_str!("runtime/preamble.py");

/// Python's keywords.
#[rustfmt::skip]
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Names the module's own code and its annotations use.
#[rustfmt::skip]
const MODULE_NAMES: &[&str] = &[
    "json", "jsonschema", "Any", "Generic", "Literal", "NotRequired", "Protocol", "TypeAlias",
    "TypedDict", "TypeVar", "cast", "ToolCaller", "ToolError", "OutputError", "str", "int", "float",
    "bool", "list", "dict", "annotations",
];

/// The Python module for `tools`.
pub fn emit(tools: &[Value], options: &Options) -> String {
    let reserved: Vec<&str> = KEYWORDS.iter().chain(MODULE_NAMES).copied().collect();
    let naming = Naming {
        function_case: Case::Snake,
        clash_separator: "_",
        reserved_functions: &reserved,
        reserved_types: &reserved,
        keywords: KEYWORDS,
        escape_keyword: tools::trailing_underscore,
    };
    let module = tools::module(tools, &options.revision, &naming);
    let mut header = header_lines(Lang::Python, options);
    header.extend([
        String::new(),
        "Needs the packages `mcp` and `jsonschema`; `mypy --strict` also needs their stubs,".into(),
        "`types-jsonschema` (pip install mcp jsonschema types-jsonschema).".into(),
    ]);
    let mut out = String::new();
    out.push_str(&docstring("", &header));
    out.push_str("\nfrom __future__ import annotations\n\nimport json\nfrom typing import (\n");
    for name in [
        "Any",
        "Generic",
        "Literal",
        "NotRequired",
        "Protocol",
        "TypeAlias",
        "TypedDict",
        "TypeVar",
        "cast",
    ] {
        out.push_str(&format!("    {name},\n"));
    }
    out.push_str(")\n\nimport jsonschema\n\n");
    out.push_str(PREAMBLE);
    for tool in &module.tools {
        emit_tool(&mut out, &module.model, tool);
    }
    out
}

fn emit_tool(out: &mut String, model: &Model, tool: &ToolSpec) {
    for id in tool.types[1].clone() {
        let e = &model.enums[id];
        let values: Vec<String> = e.values.iter().map(|v| quoted(v)).collect();
        let one = format!("{}: TypeAlias = Literal[{}]", e.name, values.join(", "));
        out.push_str("\n\n");
        if layout::width(&one) <= WIDTH {
            out.push_str(&one);
        } else {
            out.push_str(&layout::exploded(
                "",
                &format!("{}: TypeAlias = Literal[", e.name),
                &values,
                "]",
                "    ",
            ));
        }
        out.push('\n');
    }
    for id in tool.types[2].clone() {
        let union = &model.unions[id];
        let members: Vec<String> = union
            .variants
            .iter()
            .map(|(_, t)| py_type(model, t))
            .collect();
        let text = quoted(&members.join(" | "));
        let one = format!("{}: TypeAlias = {text}", union.name);
        let inner = format!("    {text}");
        out.push_str("\n\n");
        if layout::width(&one) > WIDTH && layout::width(&inner) <= WIDTH {
            // black puts a long right-hand side in parentheses when it then fits.
            out.push_str(&format!("{}: TypeAlias = (\n{inner}\n)\n", union.name));
        } else {
            out.push_str(&one);
            out.push('\n');
        }
    }
    for id in tool.types[0].clone() {
        let what = if id == tool.input {
            Some(format!("The arguments of `{}`, as a dict.", tool.name))
        } else if tool.output.as_ref().is_some_and(|o| o.ty == Ty::Object(id)) {
            Some(format!("The result of `{}`.", tool.name))
        } else {
            None
        };
        out.push_str("\n\n");
        emit_typed_dict(out, model, &model.objects[id], what);
    }
    let constant = format!("_{}", Case::ScreamingSnake.apply(&tool.pascal, "TOOL"));
    let (returns, schema, wrapped) = match &tool.output {
        Some(output) => (
            py_type(model, &output.ty),
            layout::json_literal(&output.schema),
            if output.wrapped { "True" } else { "False" },
        ),
        None => ("list[Any]".to_owned(), "None".to_owned(), "False"),
    };
    out.push_str("\n\n");
    out.push_str(&layout::exploded(
        "",
        &format!("{constant} = _Tool[{returns}]("),
        &[quoted(&tool.name), schema, wrapped.to_owned()],
        ")",
        "    ",
    ));
    out.push('\n');
    emit_function(out, model, tool, &constant, &returns);
}

/// One keyword argument.
struct Param<'a> {
    name: String,
    field: &'a Field,
    annotation: String,
    default: Option<String>,
}

fn emit_function(out: &mut String, model: &Model, tool: &ToolSpec, constant: &str, returns: &str) {
    let input = &model.objects[tool.input];
    let mut namer = Namer::new(&[KEYWORDS, MODULE_NAMES, &["session", "arguments"]].concat());
    let params: Vec<Param<'_>> = input
        .fields
        .iter()
        .map(|field| {
            let snake = Case::Snake.apply(&field.wire, "field");
            let snake = if KEYWORDS.contains(&snake.as_str()) {
                tools::trailing_underscore(&snake)
            } else {
                snake
            };
            let name = namer.claim(&snake, "_");
            let base = py_type(model, &field.ty);
            let default = (!field.required)
                .then(|| {
                    field
                        .default
                        .as_ref()
                        .and_then(|d| default_literal(model, &field.ty, d))
                })
                .flatten();
            let already_none = matches!(field.ty, Ty::Nullable(_) | Ty::Null | Ty::Any(_));
            let annotation = if field.required || default.is_some() || already_none {
                base
            } else {
                format!("{base} | None")
            };
            let default = match default {
                Some(d) => Some(d),
                None if field.required => None,
                None => Some("None".to_owned()),
            };
            Param {
                name,
                field,
                annotation,
                default,
            }
        })
        .collect();
    let mut items = vec!["session: ToolCaller".to_owned()];
    if !params.is_empty() {
        items.push("*".to_owned());
    }
    for p in &params {
        items.push(match &p.default {
            Some(d) => format!("{}: {} = {d}", p.name, p.annotation),
            None => format!("{}: {}", p.name, p.annotation),
        });
    }
    out.push_str("\n\n");
    out.push_str(&layout::exploded(
        "",
        &format!("async def {}(", tool.function),
        &items,
        &format!(") -> {returns}:"),
        "    ",
    ));
    out.push('\n');
    let mut doc = tool_doc(tool);
    if !params.is_empty() {
        doc.push(String::new());
        doc.push("Args:".into());
        for p in &params {
            let mut text = field_doc(p.field).join(" ");
            if text.is_empty() {
                text = match &p.field.ty {
                    Ty::Enum(id) => {
                        let values: Vec<String> =
                            model.enums[*id].values.iter().map(|v| quoted(v)).collect();
                        format!("One of {}.", values.join(", "))
                    }
                    _ => format!("A `{}`.", p.annotation),
                };
            }
            if p.name != p.field.wire {
                text = format!("`{}` on the wire. {text}", p.field.wire);
            }
            if !p.field.required && p.default.as_deref() == Some("None") {
                text.push_str(" None leaves it out.");
            }
            doc.push(
                format!("    {}: {}", p.name, text.trim())
                    .trim_end()
                    .to_owned(),
            );
        }
    }
    out.push_str(&docstring("    ", &doc));
    let sent: Vec<String> = params
        .iter()
        .filter(|p| p.default.as_deref() != Some("None"))
        .map(|p| format!("{}: {}", quoted(&p.field.wire), p.name))
        .collect();
    if sent.is_empty() {
        out.push_str("    arguments: dict[str, Any] = {}\n");
    } else {
        out.push_str(&layout::exploded(
            "    ",
            "arguments: dict[str, Any] = {",
            &sent,
            "}",
            "    ",
        ));
        out.push('\n');
    }
    for p in params
        .iter()
        .filter(|p| p.default.as_deref() == Some("None"))
    {
        out.push_str(&format!(
            "    if {name} is not None:\n        arguments[{wire}] = {name}\n",
            name = p.name,
            wire = quoted(&p.field.wire)
        ));
    }
    let call = format!("    return await {constant}.call(session, arguments)");
    if layout::width(&call) <= WIDTH {
        out.push_str(&call);
    } else {
        let items = ["session".to_owned(), "arguments".to_owned()];
        out.push_str(&layout::exploded(
            "    ",
            &format!("return await {constant}.call("),
            &items,
            ")",
            "    ",
        ));
    }
    out.push('\n');
}

fn emit_typed_dict(out: &mut String, model: &Model, object: &ObjectDef, what: Option<String>) {
    let doc: Vec<String> = what
        .into_iter()
        .chain(object.description.iter().cloned())
        .flat_map(|d| {
            d.lines()
                .map(|l| l.trim_end().to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    let entry = |field: &Field| {
        let ty = py_type(model, &field.ty);
        if field.required {
            ty
        } else {
            format!("NotRequired[{ty}]")
        }
    };
    let plain = object.fields.iter().all(|f| {
        is_plain_identifier(&f.wire)
            && !KEYWORDS.contains(&f.wire.as_str())
            && !MODULE_NAMES.contains(&f.wire.as_str())
    });
    let extra_note = match &object.extra {
        Extra::Typed(ty) => Some(format!(
            "Other keys may hold {} (a TypedDict cannot type them).",
            py_type(model, ty)
        )),
        Extra::Open | Extra::Closed => None,
    };
    let doc: Vec<String> = doc.into_iter().chain(extra_note).collect();
    if plain {
        out.push_str(&format!("class {}(TypedDict):\n", object.name));
        let doc = if doc.is_empty() {
            vec![format!("The `{}` object.", object.name)]
        } else {
            doc
        };
        out.push_str(&docstring("    ", &doc));
        if object.fields.is_empty() {
            return;
        }
        out.push('\n');
        for field in &object.fields {
            out.push_str(&format!("    {}: {}\n", field.wire, entry(field)));
            let note = field_doc(field);
            if !note.is_empty() {
                out.push_str(&docstring("    ", &note));
            }
        }
    } else {
        for line in &doc {
            out.push_str(format!("# {}", layout::comment_line(line)).trim_end());
            out.push('\n');
        }
        let items: Vec<String> = object
            .fields
            .iter()
            .map(|f| format!("{}: {}", quoted(&f.wire), quoted(&entry(f))))
            .collect();
        out.push_str(&format!(
            "{} = TypedDict(\n    {},\n",
            object.name,
            quoted(&object.name)
        ));
        out.push_str(&layout::exploded("    ", "{", &items, "}", "    "));
        out.push_str(",\n)\n");
    }
}

/// A docstring at `indent`, in the form black leaves alone.
fn docstring(indent: &str, lines: &[String]) -> String {
    let safe: Vec<String> = lines
        .iter()
        .map(|l| {
            let line = layout::comment_line(&l.replace('\t', "    "))
                .replace('\\', "\\\\")
                .replace("\"\"\"", "\\\"\\\"\\\"");
            // A `>>>` line would be a doctest to `pytest --doctest-modules`.
            match line.trim_start().strip_prefix(">>>") {
                Some(rest) => format!("> > >{rest}"),
                None => line,
            }
        })
        .collect();
    let pad_end = |s: &str| {
        if s.ends_with('"') {
            format!("{s} ")
        } else {
            s.to_owned()
        }
    };
    match safe.as_slice() {
        [] => String::new(),
        [only] => format!("{indent}\"\"\"{}\"\"\"\n", pad_end(only.trim_start())),
        [first, rest @ ..] => {
            let mut out = format!("{indent}\"\"\"{}\n", first.trim_start());
            for line in rest {
                if line.is_empty() {
                    out.push('\n');
                } else {
                    out.push_str(&format!("{indent}{line}\n"));
                }
            }
            out.push_str(&format!("{indent}\"\"\"\n"));
            out
        }
    }
}

/// A Python literal for `default` when it fits `ty` (scalars only: a mutable default is a bug).
fn default_literal(model: &Model, ty: &Ty, default: &Value) -> Option<String> {
    let fits = match (ty, default) {
        (Ty::Integer { .. }, Value::Number(n)) => n.is_i64() || n.is_u64(),
        (Ty::Number { .. }, Value::Number(_)) | (Ty::Bool, Value::Bool(_)) => true,
        (Ty::String { .. }, Value::String(_)) => true,
        (Ty::Enum(id), Value::String(s)) => model.enums[*id].values.contains(s),
        (Ty::Literals(values), v) => values.contains(v) && !v.is_object() && !v.is_array(),
        (Ty::Nullable(inner), v) => v.is_null() || default_literal(model, inner, v).is_some(),
        _ => false,
    };
    fits.then(|| match default {
        Value::String(s) => quoted(s),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Null => "None".into(),
        other => other.to_string(),
    })
}

/// A type as a Python annotation.
fn py_type(model: &Model, ty: &Ty) -> String {
    match ty {
        Ty::Any(_) => "Any".into(),
        Ty::Null => "None".into(),
        Ty::Bool => "bool".into(),
        Ty::Integer { .. } => "int".into(),
        Ty::Number { .. } => "float".into(),
        Ty::String { .. } => "str".into(),
        Ty::Literals(values)
            if values
                .iter()
                .any(|v| v.as_f64().is_some_and(|_| !(v.is_i64() || v.is_u64()))) =>
        {
            // `Literal` cannot hold a float.
            "float".into()
        }
        Ty::Literals(values) => {
            let parts: Vec<String> = values
                .iter()
                .map(|v| match v {
                    Value::String(s) => quoted(s),
                    Value::Bool(true) => "True".into(),
                    Value::Bool(false) => "False".into(),
                    Value::Null => "None".into(),
                    Value::Number(n) => n.to_string(),
                    _ => "Any".into(),
                })
                .collect();
            if values.iter().any(|v| v.is_object() || v.is_array()) {
                "Any".into()
            } else {
                format!("Literal[{}]", parts.join(", "))
            }
        }
        Ty::Enum(id) => model.enums[*id].name.clone(),
        Ty::Array { items, .. } => format!("list[{}]", py_type(model, items)),
        Ty::Tuple { items, closed } => {
            let mut parts: Vec<String> = Vec::new();
            for t in items.iter().map(|t| py_type(model, t)) {
                if !parts.contains(&t) {
                    parts.push(t);
                }
            }
            if !closed {
                parts = vec!["Any".into()];
            }
            format!("list[{}]", parts.join(" | "))
        }
        Ty::Map(value) => format!("dict[str, {}]", py_type(model, value)),
        Ty::Object(id) => model.objects[*id].name.clone(),
        Ty::Union(id) => model.unions[*id].name.clone(),
        Ty::Nullable(inner) => format!("{} | None", py_type(model, inner)),
    }
}
