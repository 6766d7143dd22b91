//! `#[tool(…)]`: what is declared beside a typed tool (name, title, description, annotations,
//! icons, `_meta`, scratch size, approval).

use syn::{Attribute, Expr, LitBool, LitStr};

/// The options of one `#[tool(…)]` attribute.
#[derive(Default)]
pub(crate) struct Options {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) annotations: Option<Expr>,
    /// `read_only`, `destructive`, `idempotent`, `open_world` hints set on top of
    /// `annotations`: the `Annotations` setter's name and its value.
    pub(crate) hints: Vec<(syn::Ident, bool)>,
    pub(crate) icons: Option<Expr>,
    pub(crate) meta: Option<LitStr>,
    pub(crate) scratch: Option<Expr>,
    /// `confirm = path`: the function asked before the tool runs whether a person must approve
    /// this call (`fn(&mut self[, &Args]) -> Option<Ask<'_, M>>`).
    pub(crate) confirm: Option<Expr>,
    /// `task = "optional" | "required"`: `execution.taskSupport`.
    pub(crate) task: Option<LitStr>,
}

const HINTS: [&str; 4] = ["read_only", "destructive", "idempotent", "open_world"];

impl Options {
    /// Reads the `#[tool]` attribute (`#[tool]` alone takes every default).
    pub(crate) fn parse(attr: &Attribute) -> syn::Result<Self> {
        let mut o = Options::default();
        if matches!(attr.meta, syn::Meta::Path(_)) {
            return Ok(o);
        }
        attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            match key.as_str() {
                "name" => o.name = Some(meta.value()?.parse()?),
                "title" => o.title = Some(meta.value()?.parse()?),
                "description" => o.description = Some(meta.value()?.parse()?),
                "annotations" => o.annotations = Some(meta.value()?.parse()?),
                "icons" => o.icons = Some(meta.value()?.parse()?),
                "meta" => o.meta = Some(meta.value()?.parse()?),
                "scratch" => o.scratch = Some(meta.value()?.parse()?),
                "confirm" => o.confirm = Some(meta.value()?.parse()?),
                "task" => {
                    let value: LitStr = meta.value()?.parse()?;
                    if !matches!(value.value().as_str(), "optional" | "required") {
                        return Err(syn::Error::new(
                            value.span(),
                            "`task` is \"optional\" (a task when the client asks for one) or \
                             \"required\" (only as a task)",
                        ));
                    }
                    o.task = Some(value);
                }
                k if HINTS.contains(&k) => {
                    let value = if meta.input.peek(syn::Token![=]) {
                        meta.value()?.parse::<LitBool>()?.value
                    } else {
                        true
                    };
                    let setter = syn::Ident::new(k, meta.path.span_of());
                    o.hints.push((setter, value));
                }
                _ => {
                    return Err(meta.error(
                        "unknown tool option: expected `name`, `title`, `description`, \
                         `annotations`, `read_only`, `destructive`, `idempotent`, \
                         `open_world`, `icons`, `meta`, `scratch`, `confirm` or `task`",
                    ))
                }
            }
            Ok(())
        })?;
        Ok(o)
    }
}

/// The span of a path, for identifiers made from it.
trait SpanOf {
    fn span_of(&self) -> proc_macro2::Span;
}

impl SpanOf for syn::Path {
    fn span_of(&self) -> proc_macro2::Span {
        self.segments
            .first()
            .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span())
    }
}
