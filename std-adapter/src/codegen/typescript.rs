//! The TypeScript emitter: interfaces for objects, literal unions for enums, an `async`
//! function per tool that takes any object with the official client's `callTool` and checks
//! the result with Ajv (JSON Schema 2020-12). Formatted as prettier 3 formats it.

use serde_json::Value;

use super::layout::{self, quoted};
use super::model::{Extra, Model, Ty, MAX_FIXED_LEN};
use super::names::{is_plain_identifier, Case};
use super::tools::{self, Naming, ToolSpec};
use super::{field_doc, header_lines, tool_doc, Lang, Options};

/// prettier's default line width.
const WIDTH: usize = 80;

/// The helpers of the module (see `runtime/preamble.ts`).
const PREAMBLE: &str = include_str!("runtime/preamble.ts");

/// Names the module's own code uses, and the global types its annotations name.
#[rustfmt::skip]
const RESERVED: &[&str] = &[
    "ajv", "validators", "textOf", "call", "callChecked", "callContent", "ToolCaller",
    "ToolError", "OutputError", "ContentBlock", "CallResult", "Ajv2020", "ValidateFunction",
    "Promise", "Record", "Object", "Array", "Map", "Error", "JSON", "String", "Number", "Boolean",
];

/// JavaScript's reserved words (and names strict mode refuses to bind).
#[rustfmt::skip]
const KEYWORDS: &[&str] = &[
    "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do",
    "else", "enum", "export", "extends", "false", "finally", "for", "function", "if", "import",
    "in", "instanceof", "new", "null", "return", "super", "switch", "this", "throw", "true", "try",
    "typeof", "var", "void", "while", "with", "yield", "let", "static", "implements", "interface",
    "package", "private", "protected", "public", "await", "arguments", "eval", "undefined",
];

/// Largest integer a JavaScript number holds exactly.
const MAX_SAFE: i128 = (1 << 53) - 1;

/// The TypeScript module for `tools`.
pub fn emit(tools: &[Value], options: &Options) -> String {
    let naming = Naming {
        function_case: Case::Camel,
        clash_separator: "",
        reserved_functions: RESERVED,
        reserved_types: RESERVED,
        keywords: KEYWORDS,
        escape_keyword: tools::trailing_underscore,
    };
    let module = tools::module(tools, &options.revision, &naming);
    let mut out = String::new();
    for line in header_lines(Lang::TypeScript, options) {
        out.push_str(format!("// {}", layout::comment_line(&line)).trim_end());
        out.push('\n');
    }
    out.push_str("\nimport { Ajv2020 } from \"ajv/dist/2020.js\";\n");
    out.push_str("import type { ValidateFunction } from \"ajv\";\n\n");
    out.push_str(PREAMBLE);
    for tool in &module.tools {
        out.push('\n');
        emit_tool(&mut out, &module.model, tool);
    }
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
        emit_object(out, model, id, what);
        out.push('\n');
    }
    for id in tool.types[2].clone() {
        let union = &model.unions[id];
        let members: Vec<String> = union
            .variants
            .iter()
            .flat_map(|(_, ty)| ts_type(model, ty))
            .collect();
        out.push_str(&alias(&union.name, &members));
        out.push_str("\n\n");
    }
    let input_name = &model.objects[tool.input].name;
    let optional_input = model.objects[tool.input].fields.iter().all(|f| !f.required);
    let input_param = if optional_input {
        format!("input: {input_name} = {{}}")
    } else {
        format!("input: {input_name}")
    };
    let (returns, body) = match &tool.output {
        Some(output) => {
            let ty = union_text(&ts_type(model, &output.ty));
            let constant = format!(
                "{}_OUTPUT",
                Case::ScreamingSnake.apply(&tool.pascal, "TOOL")
            );
            let literal = layout::json_literal(&output.schema);
            let one = format!("const {constant} = {literal};");
            if layout::width(&one) <= WIDTH {
                out.push_str(&one);
            } else {
                out.push_str(&format!("const {constant} =\n  {literal};"));
            }
            out.push_str("\n\n");
            let args = [
                "caller".to_owned(),
                quoted(&tool.name),
                "input".to_owned(),
                constant,
                output.wrapped.to_string(),
            ];
            let body = layout::list(
                "  ",
                &format!("return callChecked<{ty}>("),
                &args,
                ");",
                "  ",
                WIDTH,
            );
            (ty, body)
        }
        None => {
            let args = ["caller".to_owned(), quoted(&tool.name), "input".to_owned()];
            let body = layout::list("  ", "return callContent(", &args, ");", "  ", WIDTH);
            ("ContentBlock[]".to_owned(), body)
        }
    };
    doc_block(out, "", &tool_doc(tool));
    let params = ["caller: ToolCaller".to_owned(), input_param];
    out.push_str(&layout::list(
        "",
        &format!("export async function {}(", tool.function),
        &params,
        &format!("): Promise<{returns}> {{"),
        "  ",
        WIDTH,
    ));
    out.push('\n');
    out.push_str(&body);
    out.push_str("\n}\n");
}

fn emit_object(out: &mut String, model: &Model, id: usize, what: Option<String>) {
    let object = &model.objects[id];
    let doc: Vec<String> = what
        .into_iter()
        .chain(object.description.iter().map(|d| d.trim_end().to_owned()))
        .flat_map(|d| d.lines().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    doc_block(out, "", &doc);
    if object.fields.is_empty() {
        let value = match &object.extra {
            Extra::Closed => "never".to_owned(),
            Extra::Open => "unknown".to_owned(),
            Extra::Typed(ty) => union_text(&ts_type(model, ty)),
        };
        out.push_str(&format!(
            "export type {} = Record<string, {value}>;\n",
            object.name
        ));
        return;
    }
    out.push_str(&format!("export interface {} {{\n", object.name));
    for field in &object.fields {
        let mut doc = field_doc(field);
        if big_integer(&field.ty) {
            doc.push("Beyond 2^53 a JavaScript number is not exact: such a value arrives rounded to the nearest double (JSON.parse).".into());
        }
        doc_block(out, "  ", &doc);
        let key = if is_plain_identifier(&field.wire) {
            field.wire.clone()
        } else {
            quoted(&field.wire)
        };
        let optional = if field.required { "" } else { "?" };
        let members = ts_type(model, &field.ty);
        let one = format!("  {key}{optional}: {};", members.join(" | "));
        if layout::width(&one) <= WIDTH || members.len() < 2 {
            out.push_str(&one);
        } else {
            out.push_str(&format!("  {key}{optional}:"));
            for member in &members {
                out.push_str(&format!("\n    | {member}"));
            }
            out.push(';');
        }
        out.push('\n');
    }
    match &object.extra {
        Extra::Typed(_) => out.push_str("  [key: string]: unknown;\n"),
        Extra::Open | Extra::Closed => {}
    }
    out.push_str("}\n");
}

/// `export type NAME = A | B;`; too long, the union goes below the `=`, and if it is still too
/// long, one member per line.
fn alias(name: &str, members: &[String]) -> String {
    let one = format!("export type {name} = {};", members.join(" | "));
    if layout::width(&one) <= WIDTH || members.len() < 2 {
        return one;
    }
    let below = format!("  {};", members.join(" | "));
    if layout::width(&below) <= WIDTH {
        return format!("export type {name} =\n{below}");
    }
    let mut out = format!("export type {name} =");
    for member in members {
        out.push_str(&format!("\n  | {member}"));
    }
    out.push(';');
    out
}

/// A `/** … */` comment at `indent`: one line when the text is one short line.
fn doc_block(out: &mut String, indent: &str, lines: &[String]) {
    let lines: Vec<String> = lines
        .iter()
        .map(|l| layout::comment_line(l).replace("*/", "*\\/"))
        .collect();
    match lines.as_slice() {
        [] => {}
        [only] if layout::width(&format!("{indent}/** {only} */")) <= WIDTH => {
            out.push_str(&format!("{indent}/** {only} */\n"));
        }
        _ => {
            out.push_str(&format!("{indent}/**\n"));
            for line in &lines {
                out.push_str(format!("{indent} * {line}").trim_end());
                out.push('\n');
            }
            out.push_str(&format!("{indent} */\n"));
        }
    }
}

fn big_integer(ty: &Ty) -> bool {
    match ty {
        Ty::Integer { min, max } => {
            min.is_some_and(|m| m < -MAX_SAFE) || max.is_some_and(|m| m > MAX_SAFE)
        }
        Ty::Nullable(inner) => big_integer(inner),
        Ty::Array { items, .. } => big_integer(items),
        _ => false,
    }
}

/// A type as its top-level union members (one member when it is not a union).
fn ts_type(model: &Model, ty: &Ty) -> Vec<String> {
    match ty {
        Ty::Any(_) => vec!["unknown".into()],
        Ty::Null => vec!["null".into()],
        Ty::Bool => vec!["boolean".into()],
        Ty::Integer { .. } | Ty::Number { .. } => vec!["number".into()],
        Ty::String { .. } => vec!["string".into()],
        Ty::Literals(values) => values
            .iter()
            .map(|v| match v {
                Value::String(s) => quoted(s),
                other => other.to_string(),
            })
            .collect(),
        Ty::Enum(id) => model.enums[*id].values.iter().map(|v| quoted(v)).collect(),
        Ty::Array { items, min, max } => {
            let item = ts_type(model, items);
            match (min, max) {
                (Some(a), Some(b)) if a == b && *b <= MAX_FIXED_LEN => {
                    let one = union_text(&item);
                    vec![format!("[{}]", vec![one; *b as usize].join(", "))]
                }
                _ if item.len() > 1 => vec![format!("({})[]", item.join(" | "))],
                _ => vec![format!("{}[]", item.join(""))],
            }
        }
        Ty::Tuple { items, closed } => {
            let mut parts: Vec<String> = items
                .iter()
                .map(|t| union_text(&ts_type(model, t)))
                .collect();
            if !closed {
                parts.push("...unknown[]".into());
            }
            vec![format!("[{}]", parts.join(", "))]
        }
        Ty::Map(value) => vec![format!(
            "Record<string, {}>",
            union_text(&ts_type(model, value))
        )],
        Ty::Object(id) => vec![model.objects[*id].name.clone()],
        Ty::Union(id) => vec![model.unions[*id].name.clone()],
        Ty::Nullable(inner) => {
            let mut members = ts_type(model, inner);
            members.push("null".into());
            members
        }
    }
}

fn union_text(members: &[String]) -> String {
    members.join(" | ")
}
