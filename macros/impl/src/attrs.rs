//! The attributes the derive reads: `#[serde(...)]` (only what changes the wire), `#[mcp(...)]`
//! (constraints and annotations) and doc comments.

use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, ExprUnary, Lit, LitStr, Token, UnOp};

use crate::case::Case;
use crate::template::json_string;

/// serde's names for one side each: (serialize, deserialize).
#[derive(Clone)]
pub(crate) struct Sides<T> {
    pub(crate) ser: Option<T>,
    pub(crate) de: Option<T>,
}

impl<T> Default for Sides<T> {
    fn default() -> Self {
        Self {
            ser: None,
            de: None,
        }
    }
}

/// `#[serde(...)]` on a struct or enum.
#[derive(Default)]
pub(crate) struct SerdeContainer {
    pub(crate) rename_all: Sides<Case>,
    pub(crate) deny_unknown_fields: bool,
    pub(crate) default: bool,
    pub(crate) transparent: bool,
}

/// `#[serde(...)]` on a field or variant.
#[derive(Default)]
pub(crate) struct SerdeMember {
    pub(crate) rename: Sides<String>,
    pub(crate) skip_ser: bool,
    pub(crate) skip_de: bool,
    pub(crate) skip_ser_if: bool,
    /// The function of `skip_serializing_if = "path"`.
    pub(crate) skip_ser_if_path: Option<LitStr>,
    /// `default` (`Some(None)`) or `default = "path"` (`Some(Some(path))`).
    pub(crate) default: Option<Option<String>>,
}

/// serde attributes whose wire form the derive cannot know.
const REFUSED: [&str; 11] = [
    "flatten",
    "with",
    "serialize_with",
    "deserialize_with",
    "tag",
    "content",
    "untagged",
    "from",
    "try_from",
    "into",
    "remote",
];

fn refused(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if let Some(name) = REFUSED.iter().find(|n| meta.path.is_ident(n)) {
        return Err(meta.error(format!(
            "McpSchema: `#[serde({name})]` changes the wire in a way the derive cannot describe"
        )));
    }
    skip_value(meta)
}

/// Consumes the value of an attribute the derive ignores (`= expr` or `(...)`).
fn skip_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _: proc_macro2::Group = meta.input.parse()?;
    }
    Ok(())
}

fn sides<T>(
    meta: &syn::meta::ParseNestedMeta<'_>,
    parse: impl Fn(&LitStr) -> syn::Result<T>,
) -> syn::Result<Sides<T>> {
    let mut out = Sides {
        ser: None,
        de: None,
    };
    if meta.input.peek(Token![=]) {
        let s: LitStr = meta.value()?.parse()?;
        out.ser = Some(parse(&s)?);
        out.de = Some(parse(&s)?);
    } else {
        meta.parse_nested_meta(|m| {
            let s: LitStr = m.value()?.parse()?;
            if m.path.is_ident("serialize") {
                out.ser = Some(parse(&s)?);
            } else if m.path.is_ident("deserialize") {
                out.de = Some(parse(&s)?);
            }
            Ok(())
        })?;
    }
    Ok(out)
}

fn serde_attrs(
    attrs: &[Attribute],
    mut f: impl FnMut(&syn::meta::ParseNestedMeta<'_>) -> syn::Result<bool>,
) -> syn::Result<()> {
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| if f(&meta)? { Ok(()) } else { refused(&meta) })?;
    }
    Ok(())
}

impl SerdeContainer {
    pub(crate) fn parse(attrs: &[Attribute]) -> syn::Result<Self> {
        let mut out = Self::default();
        serde_attrs(attrs, |meta| {
            if meta.path.is_ident("rename_all") {
                out.rename_all = sides(meta, |s| {
                    Case::parse(&s.value())
                        .ok_or_else(|| syn::Error::new(s.span(), "unknown serde case style"))
                })?;
            } else if meta.path.is_ident("deny_unknown_fields") {
                out.deny_unknown_fields = true;
            } else if meta.path.is_ident("transparent") {
                out.transparent = true;
            } else if meta.path.is_ident("default") {
                skip_value(meta)?;
                out.default = true;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(out)
    }
}

impl SerdeMember {
    pub(crate) fn parse(attrs: &[Attribute]) -> syn::Result<Self> {
        let mut out = Self::default();
        serde_attrs(attrs, |meta| {
            let p = &meta.path;
            if p.is_ident("rename") {
                out.rename = sides(meta, |s| Ok(s.value()))?;
            } else if p.is_ident("skip") {
                out.skip_ser = true;
                out.skip_de = true;
            } else if p.is_ident("skip_serializing") {
                out.skip_ser = true;
            } else if p.is_ident("skip_deserializing") {
                out.skip_de = true;
            } else if p.is_ident("skip_serializing_if") {
                out.skip_ser_if_path = Some(meta.value()?.parse()?);
                out.skip_ser_if = true;
            } else if p.is_ident("default") {
                if meta.input.peek(Token![=]) {
                    let s: LitStr = meta.value()?.parse()?;
                    out.default = Some(Some(s.value()));
                } else {
                    out.default = Some(None);
                }
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(out)
    }
}

/// `#[mcp(...)]` on a type.
#[derive(Default)]
pub(crate) struct McpContainer {
    pub(crate) additional_properties: bool,
    pub(crate) krate: Option<syn::Path>,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
}

impl McpContainer {
    pub(crate) fn parse(attrs: &[Attribute]) -> syn::Result<Self> {
        let mut out = Self::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("mcp")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("additional_properties") {
                    out.additional_properties = true;
                } else if meta.path.is_ident("crate") {
                    let s: LitStr = meta.value()?.parse()?;
                    out.krate = Some(s.parse()?);
                } else if meta.path.is_ident("title") {
                    out.title = Some(meta.value()?.parse::<LitStr>()?.value());
                } else if meta.path.is_ident("description") {
                    out.description = Some(meta.value()?.parse::<LitStr>()?.value());
                } else {
                    return Err(meta.error("McpSchema: unknown `mcp` attribute on a type"));
                }
                Ok(())
            })?;
        }
        Ok(out)
    }
}

/// A number keyword's value: its JSON text and its value (for range checks).
#[derive(Clone)]
pub(crate) struct Number {
    pub(crate) json: String,
    pub(crate) value: f64,
    pub(crate) integer: Option<i128>,
    pub(crate) span: proc_macro2::Span,
}

/// `#[mcp(...)]` on a field.
#[derive(Default, Clone)]
pub(crate) struct McpField {
    pub(crate) minimum: Option<Number>,
    pub(crate) maximum: Option<Number>,
    pub(crate) exclusive_minimum: Option<Number>,
    pub(crate) exclusive_maximum: Option<Number>,
    pub(crate) multiple_of: Option<Number>,
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    pub(crate) pattern: Option<String>,
    pub(crate) min_items: Option<u64>,
    pub(crate) max_items: Option<u64>,
    pub(crate) unique_items: bool,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    /// JSON texts.
    pub(crate) examples: Option<Vec<String>>,
    pub(crate) default: Option<String>,
    /// `header = "Name"`: the property's `x-mcp-header` (2026-07-28 `Mcp-Param-Name`).
    pub(crate) header: Option<Header>,
}

/// The name of a field's `x-mcp-header`, checked to be an RFC 9110 token.
#[derive(Clone)]
pub(crate) struct Header {
    pub(crate) name: String,
    pub(crate) span: proc_macro2::Span,
}

/// RFC 9110 `tchar`: the bytes of a header name.
pub(crate) fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

impl Header {
    fn parse(s: &LitStr) -> syn::Result<Self> {
        let name = s.value();
        if name.is_empty() || !name.bytes().all(is_tchar) {
            return Err(syn::Error::new(
                s.span(),
                format!(
                    "McpSchema: `header = {name:?}` is not an HTTP header token (RFC 9110: one \
                     or more of the letters, digits and !#$%&'*+-.^_`|~)"
                ),
            ));
        }
        Ok(Self {
            name,
            span: s.span(),
        })
    }
}

impl McpField {
    pub(crate) fn parse(attrs: &[Attribute]) -> syn::Result<Self> {
        let mut out = Self::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("mcp")) {
            attr.parse_nested_meta(|meta| {
                let name = meta
                    .path
                    .get_ident()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                let number = |meta: &syn::meta::ParseNestedMeta<'_>| -> syn::Result<Number> {
                    let e: Expr = meta.value()?.parse()?;
                    number(&e)
                };
                let count = |meta: &syn::meta::ParseNestedMeta<'_>| -> syn::Result<u64> {
                    meta.value()?.parse::<syn::LitInt>()?.base10_parse()
                };
                match name.as_str() {
                    "minimum" => out.minimum = Some(number(&meta)?),
                    "maximum" => out.maximum = Some(number(&meta)?),
                    "exclusive_minimum" => out.exclusive_minimum = Some(number(&meta)?),
                    "exclusive_maximum" => out.exclusive_maximum = Some(number(&meta)?),
                    "multiple_of" => out.multiple_of = Some(number(&meta)?),
                    "min_length" => out.min_length = Some(count(&meta)?),
                    "max_length" => out.max_length = Some(count(&meta)?),
                    "min_items" => out.min_items = Some(count(&meta)?),
                    "max_items" => out.max_items = Some(count(&meta)?),
                    "unique_items" => out.unique_items = true,
                    "pattern" => out.pattern = Some(meta.value()?.parse::<LitStr>()?.value()),
                    "title" => out.title = Some(meta.value()?.parse::<LitStr>()?.value()),
                    "description" => {
                        out.description = Some(meta.value()?.parse::<LitStr>()?.value());
                    }
                    "default" => out.default = Some(value(&meta.value()?.parse()?)?),
                    "header" => out.header = Some(Header::parse(&meta.value()?.parse()?)?),
                    "examples" => {
                        let e: Expr = meta.value()?.parse()?;
                        let Expr::Array(list) = &e else {
                            return Err(syn::Error::new_spanned(e, "`examples` takes `[...]`"));
                        };
                        out.examples =
                            Some(list.elems.iter().map(value).collect::<Result<_, _>>()?);
                    }
                    _ => return Err(meta.error("McpSchema: unknown `mcp` attribute on a field")),
                }
                Ok(())
            })?;
        }
        Ok(out)
    }

    /// Whether any array keyword is set.
    pub(crate) fn has_array_keywords(&self) -> bool {
        self.min_items.is_some() || self.max_items.is_some() || self.unique_items
    }
}

/// A number literal (optionally negated) as JSON.
fn number(e: &Expr) -> syn::Result<Number> {
    let (neg, lit) = match e {
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => (true, &**expr),
        other => (false, other),
    };
    let sign = if neg { "-" } else { "" };
    let err = || syn::Error::new_spanned(e, "McpSchema: expected a number literal");
    let Expr::Lit(ExprLit { lit, .. }) = lit else {
        return Err(err());
    };
    let (digits, integer) = match lit {
        Lit::Int(i) => {
            let v: i128 = i.base10_parse()?;
            (i.base10_digits().to_owned(), Some(if neg { -v } else { v }))
        }
        Lit::Float(f) => {
            let mut d = f.base10_digits().to_owned();
            if d.ends_with('.') {
                d.push('0');
            }
            (d, None)
        }
        _ => return Err(err()),
    };
    let json = format!("{sign}{digits}");
    let value: f64 = json.parse().map_err(|_| err())?;
    Ok(Number {
        json,
        value,
        integer,
        span: e.span(),
    })
}

/// A literal (number, string, bool, or an array of them) as JSON text.
fn value(e: &Expr) -> syn::Result<String> {
    match e {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok(json_string(&s.value())),
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => Ok(b.value.to_string()),
        Expr::Array(a) => {
            let items: Vec<String> = a.elems.iter().map(value).collect::<Result<_, _>>()?;
            Ok(format!("[{}]", items.join(",")))
        }
        other => Ok(number(other)
            .map_err(|_| {
                syn::Error::new_spanned(
                    other,
                    "McpSchema: expected a literal (number, string, bool or array)",
                )
            })?
            .json),
    }
}

/// The doc comment as Markdown reads it (see [`join_markdown`]), trimmed; `None` when empty.
pub(crate) fn docs(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|l| l.lines().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    let text = join_markdown(&lines).trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// True for a line that starts a Markdown list item (`- `, `* `, `+ `, `1. `, `1) `).
fn starts_item(line: &str) -> bool {
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let rest = &line[digits..];
    if digits > 0 {
        return rest.starts_with(". ") || rest.starts_with(") ");
    }
    ["- ", "* ", "+ "].iter().any(|m| line.starts_with(m))
}

/// Doc-comment lines joined as Markdown reads them, so that a comment wrapped at the source's
/// line width is one line of text: the lines of a paragraph with one space (a soft wrap), a
/// blank line as a paragraph break (`\n\n`), a list item on a line of its own, and a fenced
/// code block (```` ``` ````) verbatim, one space of indentation removed per line.
pub(crate) fn join_markdown(lines: &[String]) -> String {
    let mut out = String::new();
    let (mut fenced, mut hard, mut blank) = (false, false, false);
    for raw in lines {
        let line = raw.strip_prefix(' ').unwrap_or(raw);
        let t = line.trim();
        let fence = t.starts_with("```");
        if t.is_empty() && !fenced {
            blank = !out.is_empty();
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank {
                "\n\n"
            } else if fenced || fence || hard || starts_item(t) {
                "\n"
            } else {
                " "
            });
        }
        out.push_str(if fenced { line.trim_end() } else { t });
        blank = false;
        // The line after a fence (opening or closing) starts a line of its own.
        hard = fence;
        if fence {
            fenced = !fenced;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::join_markdown;

    fn join(text: &str) -> String {
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        join_markdown(&lines)
    }

    #[test]
    fn wrapped_lines_are_one_paragraph_and_blank_lines_break_paragraphs() {
        assert_eq!(
            join(" Reads one sensor\n in degrees Celsius.\n\n\n Second  paragraph."),
            "Reads one sensor in degrees Celsius.\n\nSecond  paragraph."
        );
    }

    #[test]
    fn list_items_and_code_blocks_keep_their_lines() {
        assert_eq!(
            join(" Modes:\n - idle\n - fast,\n   sampled\n 2. two\n ```\n let x = 1;\n\n   y\n ```\n after"),
            "Modes:\n- idle\n- fast, sampled\n2. two\n```\nlet x = 1;\n\n  y\n```\nafter"
        );
    }
}
