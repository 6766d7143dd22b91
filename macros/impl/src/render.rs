//! A field's schema: its wire shape, its `#[mcp]` keywords and its annotations, as a template.
//!
//! Members are written in one fixed order (`title`, `description`, the shape's keywords, then
//! `default`, `examples` and, on the input side, `x-mcp-header`), so the text is deterministic.

use proc_macro2::Span;

use crate::attrs::{Header, McpField, Number};
use crate::shape::Shape;
use crate::template::{json_string, Piece, Template};

/// Which side of serde the schema describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// What serde reads.
    Input,
    /// What serde writes.
    Output,
}

/// A field's schema on one side.
pub(crate) struct Field<'a> {
    pub(crate) shape: &'a Shape,
    pub(crate) mcp: &'a McpField,
    /// The doc comment (overridden by `#[mcp(description)]`).
    pub(crate) docs: Option<String>,
    /// `default`, as JSON, when it is known (input side only).
    pub(crate) default: Option<String>,
    /// On the output side, whether `None` is written as `null` (no `skip_serializing_if`).
    pub(crate) null_written: bool,
    pub(crate) span: Span,
}

fn err(span: Span, msg: String) -> syn::Error {
    syn::Error::new(span, format!("McpSchema: {msg}"))
}

/// The field's schema as a JSON value template.
pub(crate) fn field(f: &Field<'_>, side: Side) -> syn::Result<Template> {
    let mut head = Vec::new();
    if let Some(t) = &f.mcp.title {
        head.push(format!("\"title\":{}", json_string(t)));
    }
    if let Some(d) = f.mcp.description.as_ref().or(f.docs.as_ref()) {
        head.push(format!("\"description\":{}", json_string(d)));
    }
    let mut tail = Vec::new();
    if side == Side::Input {
        if let Some(d) = &f.default {
            tail.push(format!("\"default\":{d}"));
        }
    }
    if let Some(ex) = &f.mcp.examples {
        tail.push(format!("\"examples\":[{}]", ex.join(",")));
    }
    if let Some(h) = &f.mcp.header {
        header_fits(f.shape, h)?;
        if side == Side::Input {
            tail.push(format!("\"x-mcp-header\":{}", json_string(&h.name)));
        }
    }
    let mut out = Template::text("{");
    out.push(&head.join(","));
    // An `Option` argument takes `null` too (read as `None`): `"type":[T,"null"]`, or `anyOf`
    // with `null` for a derived type, as schemars writes them. On the output side `null` is
    // written unless `skip_serializing_if` leaves the member out (`anyOf`, as before).
    let (shape, nullable) = match f.shape {
        // A header value cannot be `null`: an optional header argument is left out instead.
        Shape::Option(inner) => (
            &**inner,
            match side {
                Side::Input => f.mcp.header.is_none(),
                Side::Output => f.null_written,
            },
        ),
        other => (other, false),
    };
    if !head.is_empty() {
        out.push(",");
    }
    if nullable && (side == Side::Output || matches!(shape, Shape::Nested(_))) {
        out.push("\"anyOf\":[{");
        out.append(body(shape, f.mcp, f.span, true, false)?);
        out.push("},{\"type\":\"null\"}]");
    } else {
        out.append(body(shape, f.mcp, f.span, head.is_empty(), nullable)?);
    }
    if !tail.is_empty() {
        out.push(",");
        out.push(&tail.join(","));
    }
    out.push("}");
    Ok(out)
}

/// A `header` goes on a string, integer or boolean (optional or not) only: the 2026-07-28
/// rule for `x-mcp-header` (a `number` is not allowed; clients drop a tool that breaks it).
fn header_fits(shape: &Shape, h: &Header) -> syn::Result<()> {
    let inner = match shape {
        Shape::Option(inner) => &**inner,
        other => other,
    };
    let what = match inner {
        Shape::Bool | Shape::Int { .. } | Shape::Char | Shape::Str { .. } => return Ok(()),
        Shape::Number { .. } => "a floating-point number (`x-mcp-header` excludes `number`)",
        Shape::Array { .. } => "an array",
        Shape::Option(_) => "an option of an option",
        Shape::Nested(_) => "a derived type",
    };
    Err(err(
        h.span,
        format!(
            "`header = {:?}` needs a string, integer or boolean field (x-mcp-header is for \
             primitive values); the field is {what}",
            h.name
        ),
    ))
}

/// `"type":"NAME"`, or `"type":["NAME","null"]` when `null` is allowed too (as schemars writes
/// an `Option`).
fn ty(name: &str, null: bool) -> String {
    if null {
        format!("\"type\":[\"{name}\",\"null\"]")
    } else {
        format!("\"type\":\"{name}\"")
    }
}

/// A float's `minimum` or `maximum`: the attribute's when given (within the type's range), else
/// the type's own (`max`: its largest finite magnitude; `None` for a decimal type, or when an
/// exclusive bound on that side is stricter already), else none.
fn float_bound(
    m: &mut Vec<String>,
    n: Option<&Number>,
    max: Option<&'static str>,
    key: &str,
) -> syn::Result<()> {
    let own = |max: &str| {
        if key == "minimum" {
            format!("-{max}")
        } else {
            max.to_owned()
        }
    };
    match (n, max) {
        (Some(n), Some(max)) if n.value.abs() > max.parse::<f64>().unwrap_or(f64::MAX) => {
            Err(syn::Error::new(
                n.span,
                format!(
                    "McpSchema: `{key}` {} is outside the finite range of the type (-{max}..={max})",
                    n.json
                ),
            ))
        }
        (Some(n), _) => {
            m.push(format!("\"{key}\":{}", n.json));
            Ok(())
        }
        (None, Some(max)) => {
            m.push(format!("\"{key}\":{}", own(max)));
            Ok(())
        }
        (None, None) => Ok(()),
    }
}

/// The members of a shape's schema (no braces); `own`: a nested type's own annotations come
/// first; `null`: `null` is allowed too (an `Option` argument).
fn body(shape: &Shape, kw: &McpField, span: Span, own: bool, null: bool) -> syn::Result<Template> {
    let mut m: Vec<String> = Vec::new();
    let what = match shape {
        Shape::Bool => "a boolean",
        Shape::Int { .. } | Shape::Number { .. } => "a number",
        Shape::Char | Shape::Str { .. } => "a string",
        Shape::Array { .. } => "an array",
        Shape::Option(_) => "an option of an option",
        Shape::Nested(_) => "a derived type",
    };
    let numeric = matches!(shape, Shape::Int { .. } | Shape::Number { .. });
    let stringy = matches!(shape, Shape::Str { .. });
    let array = matches!(shape, Shape::Array { .. });
    let misplaced = |k: &str| {
        err(
            span,
            format!("`{k}` does not apply here: the field is {what}"),
        )
    };
    if !numeric && !array {
        for (k, set) in [
            ("minimum", kw.minimum.is_some()),
            ("maximum", kw.maximum.is_some()),
            ("exclusive_minimum", kw.exclusive_minimum.is_some()),
            ("exclusive_maximum", kw.exclusive_maximum.is_some()),
            ("multiple_of", kw.multiple_of.is_some()),
        ] {
            if set {
                return Err(misplaced(k));
            }
        }
    }
    if !stringy && !array {
        for (k, set) in [
            ("min_length", kw.min_length.is_some()),
            ("max_length", kw.max_length.is_some()),
            ("pattern", kw.pattern.is_some()),
        ] {
            if set {
                return Err(misplaced(k));
            }
        }
    }
    if !array && kw.has_array_keywords() {
        return Err(misplaced("min_items/max_items/unique_items"));
    }
    match shape {
        Shape::Bool => m.push(ty("boolean", null)),
        Shape::Int { min, max, name } => {
            m.push(ty("integer", null));
            let lo = bound(kw.minimum.as_ref(), *min, *max, name, "minimum")?;
            let hi = bound(kw.maximum.as_ref(), *min, *max, name, "maximum")?;
            check_order(kw, span)?;
            m.push(format!("\"minimum\":{lo}"));
            push_num(&mut m, "exclusiveMinimum", kw.exclusive_minimum.as_ref());
            m.push(format!("\"maximum\":{hi}"));
            push_num(&mut m, "exclusiveMaximum", kw.exclusive_maximum.as_ref());
            push_num(&mut m, "multipleOf", kw.multiple_of.as_ref());
        }
        Shape::Number { max } => {
            m.push(ty("number", null));
            check_order(kw, span)?;
            let lo_max = max.filter(|_| kw.exclusive_minimum.is_none());
            float_bound(&mut m, kw.minimum.as_ref(), lo_max, "minimum")?;
            push_num(&mut m, "exclusiveMinimum", kw.exclusive_minimum.as_ref());
            let hi_max = max.filter(|_| kw.exclusive_maximum.is_none());
            float_bound(&mut m, kw.maximum.as_ref(), hi_max, "maximum")?;
            push_num(&mut m, "exclusiveMaximum", kw.exclusive_maximum.as_ref());
            push_num(&mut m, "multipleOf", kw.multiple_of.as_ref());
        }
        Shape::Char => {
            m.push(ty("string", null));
            m.push("\"minLength\":1,\"maxLength\":1".into());
        }
        Shape::Str { max } => {
            m.push(ty("string", null));
            let hi = match (kw.max_length, *max) {
                (Some(k), Some(n)) if k > n => {
                    return Err(err(
                        span,
                        format!("`max_length` {k} exceeds the capacity {n}"),
                    ))
                }
                (Some(k), _) => Some(k),
                (None, n) => n,
            };
            if let (Some(lo), Some(hi)) = (kw.min_length, hi) {
                if lo > hi {
                    return Err(err(
                        span,
                        format!("`min_length` {lo} is greater than `max_length` {hi}"),
                    ));
                }
            }
            if let Some(lo) = kw.min_length {
                m.push(format!("\"minLength\":{lo}"));
            }
            if let Some(hi) = hi {
                m.push(format!("\"maxLength\":{hi}"));
            }
            if let Some(p) = &kw.pattern {
                m.push(format!("\"pattern\":{}", json_string(p)));
            }
        }
        Shape::Array { item, min, max } => {
            let mut item_kw = kw.clone();
            item_kw.min_items = None;
            item_kw.max_items = None;
            item_kw.unique_items = false;
            item_kw.title = None;
            item_kw.description = None;
            item_kw.examples = None;
            let mut out = Template::text(&ty("array", null));
            out.push(",\"items\":{");
            out.append(body(item, &item_kw, span, true, false)?);
            out.push("}");
            let lo = match (kw.min_items, *min) {
                (Some(k), Some(n)) if k < n => {
                    return Err(err(
                        span,
                        format!("`min_items` {k} is below the fixed length {n}"),
                    ))
                }
                (Some(k), _) => Some(k),
                (None, n) => n,
            };
            let hi = match (kw.max_items, *max) {
                (Some(k), Some(n)) if k > n => {
                    return Err(err(
                        span,
                        format!("`max_items` {k} exceeds the capacity {n}"),
                    ))
                }
                (Some(k), _) => Some(k),
                (None, n) => n,
            };
            if let (Some(lo), Some(hi)) = (lo, hi) {
                if lo > hi {
                    return Err(err(
                        span,
                        format!("`min_items` {lo} is greater than `max_items` {hi}"),
                    ));
                }
            }
            if let Some(lo) = lo {
                out.push(&format!(",\"minItems\":{lo}"));
            }
            if let Some(hi) = hi {
                out.push(&format!(",\"maxItems\":{hi}"));
            }
            if kw.unique_items {
                out.push(",\"uniqueItems\":true");
            }
            return Ok(out);
        }
        Shape::Option(_) => return Err(err(span, "`Option<Option<T>>` is not supported".into())),
        Shape::Nested(need) => {
            let mut t = Template::default();
            t.piece(Piece::Hole { need: *need, own });
            return Ok(t);
        }
    }
    Ok(Template::text(&m.join(",")))
}

fn push_num(m: &mut Vec<String>, key: &str, n: Option<&Number>) {
    if let Some(n) = n {
        m.push(format!("\"{key}\":{}", n.json));
    }
}

/// The integer bound: the type's own, or the attribute's when it lies inside the type's range.
fn bound(n: Option<&Number>, min: i128, max: i128, ty: &str, key: &str) -> syn::Result<String> {
    let own = if key == "minimum" { min } else { max };
    let Some(n) = n else {
        return Ok(own.to_string());
    };
    let outside = match n.integer {
        Some(i) => i < min || i > max,
        None => n.value < min as f64 || n.value > max as f64,
    };
    if outside {
        return Err(syn::Error::new(
            n.span,
            format!(
                "McpSchema: `{key}` {} is outside the range of {ty} ({min}..={max})",
                n.json
            ),
        ));
    }
    Ok(n.json.clone())
}

fn check_order(kw: &McpField, span: Span) -> syn::Result<()> {
    if let (Some(lo), Some(hi)) = (&kw.minimum, &kw.maximum) {
        let greater = match (lo.integer, hi.integer) {
            (Some(a), Some(b)) => a > b,
            _ => lo.value > hi.value,
        };
        if greater {
            return Err(err(
                span,
                format!(
                    "`minimum` {} is greater than `maximum` {}",
                    lo.json, hi.json
                ),
            ));
        }
    }
    Ok(())
}
