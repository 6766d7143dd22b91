//! The Rust emitter: serde structs and enums, a function per tool taking any `ToolCaller`
//! (implemented for the project's blocking device client) and checking the result with the
//! project's full JSON Schema validator. Formatted as rustfmt formats it.
//!
//! The generated module needs `serde` (with `derive`), `serde_json` and `embedded-mcp-std`.

use serde_json::Value;

use super::layout;
use super::model::{Extra, Model, ObjectDef, Ty, MAX_FIXED_LEN};
use super::names::{Case, Namer};
use super::tools::{self, Naming, ToolSpec};
use super::{field_doc, header_lines, tool_doc, Lang, Options};

/// rustfmt's default `max_width`.
const WIDTH: usize = 100;

/// rustfmt's default `fn_call_width`: longer argument lists go one per line.
const FN_CALL_WIDTH: usize = 60;

/// The helpers of the module (see `runtime/preamble.rs.txt`).
const PREAMBLE: &str = include_str!("runtime/preamble.rs.txt");

/// Rust's keywords (strict and reserved).
#[rustfmt::skip]
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe",
    "use", "where", "while", "abstract", "become", "box", "do", "final", "gen", "macro", "override",
    "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Keywords that cannot be raw identifiers.
#[rustfmt::skip]
const NOT_RAW: &[&str] = &[
    "crate", "self", "Self", "super",
];

/// Names the module's own code uses.
#[rustfmt::skip]
const MODULE_NAMES: &[&str] = &[
    "ToolCaller", "ToolError", "CallError", "Value", "Serialize", "Deserialize", "invalid",
    "call_raw", "content_of", "call_content", "call_checked", "String", "Vec", "Option", "Box",
    "Result", "BTreeMap",
];

/// The Rust module for `tools`.
pub fn emit(tools: &[Value], options: &Options) -> String {
    let reserved: Vec<&str> = KEYWORDS.iter().chain(MODULE_NAMES).copied().collect();
    let naming = Naming {
        function_case: Case::Snake,
        clash_separator: "_",
        reserved_functions: &reserved,
        reserved_types: &reserved,
        keywords: KEYWORDS,
        escape_keyword: raw_identifier,
    };
    let module = tools::module(tools, &options.revision, &naming);
    let mut body = String::new();
    for tool in &module.tools {
        emit_tool(&mut body, &module.model, tool);
    }
    let mut out = String::new();
    for line in header_lines(Lang::Rust, options) {
        // Line comments, not `//!`: the module may be `include!`d (from a build script's output).
        out.push_str(format!("// {}", layout::comment_line(&line)).trim_end());
        out.push('\n');
    }
    out.push('\n');
    if body.contains("BTreeMap<") {
        out.push_str("use std::collections::BTreeMap;\n\n");
    }
    out.push_str("use serde::{Deserialize, Serialize};\nuse serde_json::Value;\n\n");
    out.push_str(PREAMBLE);
    out.push_str(&body);
    out
}

fn emit_tool(out: &mut String, model: &Model, tool: &ToolSpec) {
    for id in tool.types[0].clone() {
        let what = if id == tool.input {
            Some(format!("The arguments of `{}`.", tool.name))
        } else if tool.output.as_ref().is_some_and(|o| o.ty == Ty::Object(id)) {
            Some(format!("The result of `{}`.", tool.name))
        } else {
            None
        };
        out.push('\n');
        emit_struct(out, model, id, what);
    }
    for id in tool.types[1].clone() {
        let e = &model.enums[id];
        out.push_str(&format!("\n/// One of {}.\n", list_values(&e.values)));
        out.push_str(
            "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]\n",
        );
        out.push_str(&format!("pub enum {} {{\n", e.name));
        let mut variants = Namer::new(&["Self"]);
        for (i, value) in e.values.iter().enumerate() {
            let variant = variants.claim(&Case::Pascal.apply(value, &format!("V{}", i + 1)), "");
            out.push_str(&format!(
                "    /// `{}`.\n",
                layout::rust_doc_line(layout::quoted(value).trim_matches('"'))
            ));
            out.push_str(&format!(
                "    #[serde(rename = {})]\n    {variant},\n",
                rust_string(value)
            ));
        }
        out.push_str("}\n");
    }
    for id in tool.types[2].clone() {
        let union = &model.unions[id];
        out.push_str("\n/// One of the types below, the first that fits.\n");
        out.push_str(
            "#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]\n#[serde(untagged)]\n",
        );
        out.push_str(&format!("pub enum {} {{\n", union.name));
        let mut labels = Namer::new(&["Self"]);
        for (label, ty) in &union.variants {
            // `RunInputStep::Wait`, not `RunInputStep::RunInputStepWait`.
            let short = label
                .strip_prefix(union.name.as_str())
                .filter(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
                .unwrap_or(label);
            let variant = labels.claim(short, "");
            let ty = rust_type(model, ty);
            out.push_str(&format!("    /// A `{ty}`.\n    {variant}({ty}),\n"));
        }
        out.push_str("}\n");
    }
    let input = &model.objects[tool.input].name;
    let (returns, body) = match &tool.output {
        Some(output) => {
            let constant = format!(
                "{}_OUTPUT",
                Case::ScreamingSnake.apply(&tool.pascal, "TOOL")
            );
            let literal = raw_string(&output.schema.to_string());
            let one = format!("const {constant}: &str = {literal};");
            out.push('\n');
            out.push_str(&format!(
                "/// The schema `{}`'s result is checked against.\n",
                layout::rust_doc_line(&tool.name)
            ));
            if layout::width(&one) <= WIDTH || layout::width(&format!("    {literal};")) > WIDTH {
                out.push_str(&one);
            } else {
                out.push_str(&format!("const {constant}: &str =\n    {literal};"));
            }
            out.push('\n');
            let args = [
                "caller".to_owned(),
                rust_string(&tool.name),
                "input".to_owned(),
                constant,
                output.wrapped.to_string(),
            ];
            (rust_type(model, &output.ty), call("call_checked(", &args))
        }
        None => {
            let args = [
                "caller".to_owned(),
                rust_string(&tool.name),
                "input".to_owned(),
            ];
            ("Vec<Value>".to_owned(), call("call_content(", &args))
        }
    };
    out.push('\n');
    for line in tool_doc(tool) {
        out.push_str(format!("/// {}", layout::rust_doc_line(&line)).trim_end());
        out.push('\n');
    }
    let params = [
        "caller: &mut impl ToolCaller".to_owned(),
        format!("input: &{input}"),
    ];
    out.push_str(&layout::list(
        "",
        &format!("pub fn {}(", tool.function),
        &params,
        &format!(") -> Result<{returns}, CallError> {{"),
        "    ",
        WIDTH,
    ));
    out.push('\n');
    out.push_str(&body);
    out.push_str("\n}\n");
}

fn emit_struct(out: &mut String, model: &Model, id: usize, what: Option<String>) {
    let object: &ObjectDef = &model.objects[id];
    let doc: Vec<String> = what
        .into_iter()
        .chain(object.description.iter().cloned())
        .flat_map(|d| d.lines().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    let doc = if doc.is_empty() {
        vec![format!("The `{}` object.", object.name)]
    } else {
        doc
    };
    for line in &doc {
        out.push_str(format!("/// {}", layout::rust_doc_line(line)).trim_end());
        out.push('\n');
    }
    let all_optional = object.fields.iter().all(|f| !f.required);
    out.push_str(if all_optional {
        "#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]\n"
    } else {
        "#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]\n"
    });
    if object.extra == Extra::Closed {
        out.push_str("#[serde(deny_unknown_fields)]\n");
    }
    if object.fields.is_empty() && !matches!(object.extra, Extra::Typed(_)) {
        out.push_str(&format!("pub struct {} {{}}\n", object.name));
        return;
    }
    out.push_str(&format!("pub struct {} {{\n", object.name));
    let mut names = Namer::new(KEYWORDS);
    let mut first = true;
    for field in &object.fields {
        if !first {
            out.push('\n');
        }
        first = false;
        for line in field_doc(field) {
            out.push_str(format!("    /// {}", layout::rust_doc_line(&line)).trim_end());
            out.push('\n');
        }
        let snake = Case::Snake.apply(&field.wire, "field");
        let name = if KEYWORDS.contains(&snake.as_str()) && !NOT_RAW.contains(&snake.as_str()) {
            names.claim(&snake, "_");
            format!("r#{snake}")
        } else {
            names.claim(&snake, "_")
        };
        let bare = name.trim_start_matches("r#");
        if bare != field.wire {
            out.push_str(&format!(
                "    #[serde(rename = {})]\n",
                rust_string(&field.wire)
            ));
        }
        // A field that holds this struct again (itself, or through other structs, unions or
        // tuples) is boxed, else the type would have infinite size.
        let recursive = model
            .direct_objects(&field.ty)
            .into_iter()
            .any(|o| o == id || model.contains_directly(o, id));
        let mut ty = match (&field.ty, recursive) {
            (Ty::Nullable(inner), true) => format!("Option<Box<{}>>", rust_type(model, inner)),
            (_, true) => format!("Box<{}>", rust_type(model, &field.ty)),
            (_, false) => rust_type(model, &field.ty),
        };
        if !field.required {
            out.push_str("    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n");
            if !matches!(field.ty, Ty::Nullable(_)) {
                ty = format!("Option<{ty}>");
            }
        }
        out.push_str(&format!("    pub {name}: {ty},\n"));
    }
    if let Extra::Typed(extra) = &object.extra {
        if !first {
            out.push('\n');
        }
        let name = names.claim("extra", "_");
        out.push_str("    /// Other properties.\n");
        out.push_str(&format!(
            "    #[serde(flatten)]\n    pub {name}: BTreeMap<String, {}>,\n",
            rust_type(model, extra)
        ));
    }
    out.push_str("}\n");
}

fn list_values(values: &[String]) -> String {
    let quoted: Vec<String> = values
        .iter()
        .map(|v| format!("`{}`", layout::quoted(v).trim_matches('"')))
        .collect();
    quoted.join(", ")
}

/// A call statement in a function body: on one line when it fits and its arguments take at
/// most rustfmt's `fn_call_width` (60), else one argument per line.
fn call(head: &str, args: &[String]) -> String {
    if layout::width(&args.join(", ")) > FN_CALL_WIDTH {
        layout::exploded("    ", head, args, ")", "    ")
    } else {
        layout::list("    ", head, args, ")", "    ", WIDTH)
    }
}

/// A keyword as a name: a raw identifier (`r#match`), or `self_` where Rust has none.
fn raw_identifier(keyword: &str) -> String {
    if NOT_RAW.contains(&keyword) {
        format!("{keyword}_")
    } else {
        format!("r#{keyword}")
    }
}

/// A Rust string literal.
fn rust_string(text: &str) -> String {
    format!("{text:?}")
}

/// A raw string literal holding `text`, with as many `#` as it needs.
fn raw_string(text: &str) -> String {
    let mut hashes = 1;
    while text.contains(&format!("\"{}", "#".repeat(hashes))) {
        hashes += 1;
    }
    let h = "#".repeat(hashes);
    format!("r{h}\"{text}\"{h}")
}

/// The integer type that holds every value of the range.
fn integer_type(min: Option<i128>, max: Option<i128>) -> Option<&'static str> {
    let (lo, hi) = (
        min.unwrap_or(i128::from(i64::MIN)),
        max.unwrap_or(i128::from(i64::MAX)),
    );
    let fits = |a: i128, b: i128| lo >= a && hi <= b;
    if min.is_some_and(|m| m >= 0) {
        let hi = max.unwrap_or(i128::from(u64::MAX));
        return [
            ("u8", u8::MAX as i128),
            ("u16", u16::MAX as i128),
            ("u32", u32::MAX as i128),
            ("u64", u64::MAX as i128),
        ]
        .into_iter()
        .find(|(_, top)| hi <= *top)
        .map(|(name, _)| name);
    }
    [
        ("i8", i8::MIN as i128, i8::MAX as i128),
        ("i16", i16::MIN as i128, i16::MAX as i128),
        ("i32", i32::MIN as i128, i32::MAX as i128),
        ("i64", i64::MIN as i128, i64::MAX as i128),
    ]
    .into_iter()
    .find(|(_, a, b)| fits(*a, *b))
    .map(|(name, _, _)| name)
}

/// A type as Rust.
fn rust_type(model: &Model, ty: &Ty) -> String {
    match ty {
        Ty::Any(_) | Ty::Null => "Value".into(),
        Ty::Bool => "bool".into(),
        Ty::Integer { min, max } => integer_type(*min, *max).unwrap_or("Value").into(),
        Ty::Number { .. } => "f64".into(),
        Ty::String { .. } => "String".into(),
        Ty::Literals(values) => {
            if values.iter().all(Value::is_boolean) {
                "bool".into()
            } else if values.iter().all(|v| v.is_i64()) {
                "i64".into()
            } else if values.iter().all(Value::is_number) {
                "f64".into()
            } else {
                "Value".into()
            }
        }
        Ty::Enum(id) => model.enums[*id].name.clone(),
        Ty::Array { items, min, max } => match (min, max) {
            (Some(a), Some(b)) if a == b && *b <= MAX_FIXED_LEN => {
                format!("[{}; {b}]", rust_type(model, items))
            }
            _ => format!("Vec<{}>", rust_type(model, items)),
        },
        Ty::Tuple {
            items,
            closed: true,
        } => {
            let parts: Vec<String> = items.iter().map(|t| rust_type(model, t)).collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
        Ty::Tuple { closed: false, .. } => "Vec<Value>".into(),
        Ty::Map(value) => format!("BTreeMap<String, {}>", rust_type(model, value)),
        Ty::Object(id) => model.objects[*id].name.clone(),
        Ty::Union(id) => model.unions[*id].name.clone(),
        Ty::Nullable(inner) => format!("Option<{}>", rust_type(model, inner)),
    }
}
