//! The first stage: reads the type and its attributes, writes its schemas as templates (holes
//! where nested derived types go) and hands them to [`crate::compose`].

use proc_macro2::{Delimiter, Group, Literal, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::{Data, DeriveInput, Fields};

use crate::attrs::{docs, McpContainer, McpField, SerdeContainer, SerdeMember};
use crate::render::{self, Side};
use crate::shape::{shape, Shape};
use crate::template::{json_string, Piece, Template};

/// A field as the second stage needs it: where to report, and its schema on both sides.
pub(crate) struct FieldDesc {
    pub(crate) span_ident: syn::Ident,
    pub(crate) name: String,
    pub(crate) input: Template,
    pub(crate) output: Template,
}

/// Everything the second stage needs about a type.
pub(crate) struct Desc {
    /// The type's own `title`/`description` members (may be empty).
    pub(crate) annotations: String,
    /// Members of the top-level input schema (a tool's `inputSchema`).
    pub(crate) top_input: Template,
    /// Members of the input schema where the type is nested.
    pub(crate) input: Template,
    /// Members of the output schema.
    pub(crate) output: Template,
    pub(crate) fields: Vec<FieldDesc>,
    pub(crate) needs: Vec<syn::Path>,
}

/// The path of this crate's stages in generated code: through the core's re-export, so that a
/// crate using the derive needs no dependency on this one.
pub(crate) fn macros_path(core: &TokenStream) -> TokenStream {
    quote!(#core::__private)
}

pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let (macros, body) = first_stage(input)?;
    let writer = crate::writer::to_json(input)?;
    let reader = crate::reader::from_json(input)?;
    Ok(quote!(#macros::__compose! { #body } #writer #reader))
}

/// The second stage's path and input for `input`.
pub(crate) fn first_stage(input: &DeriveInput) -> syn::Result<(TokenStream, TokenStream)> {
    if let Some(p) = input
        .generics
        .params
        .iter()
        .find(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
    {
        return Err(syn::Error::new_spanned(
            p,
            "McpSchema: only lifetime parameters are supported (a schema is made per type)",
        ));
    }
    let serde = SerdeContainer::parse(&input.attrs)?;
    let mcp = McpContainer::parse(&input.attrs)?;
    let mut ann = Vec::new();
    if let Some(t) = &mcp.title {
        ann.push(format!("\"title\":{}", json_string(t)));
    }
    if let Some(d) = mcp.description.clone().or_else(|| docs(&input.attrs)) {
        ann.push(format!("\"description\":{}", json_string(&d)));
    }
    let desc = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(named) if !(serde.transparent && named.named.len() == 1) => {
                object(&named.named, &serde, &mcp, ann.join(","))?
            }
            Fields::Named(syn::FieldsNamed { named: f, .. })
            | Fields::Unnamed(syn::FieldsUnnamed { unnamed: f, .. })
                if f.len() == 1 =>
            {
                newtype(&f[0], ann.join(","))?
            }
            _ => {
                return Err(syn::Error::new_spanned(
                    &input.ident,
                    "McpSchema: a struct needs named fields, or exactly one (a newtype)",
                ))
            }
        },
        Data::Enum(e) => strings(e, &serde, ann.join(","))?,
        Data::Union(_) => {
            return Err(syn::Error::new_spanned(
                &input.ident,
                "McpSchema: unions are not supported",
            ))
        }
    };
    let core = match &mcp.krate {
        Some(p) => p.to_token_stream(),
        None => quote!(::embedded_mcp),
    };
    Ok((macros_path(&core), invocation(input, &core, &desc)))
}

fn bracket(ts: TokenStream) -> TokenTree {
    Group::new(Delimiter::Bracket, ts).into()
}

/// The input of `__compose!`: `[core] [macros] [impl generics] [self type] [where] [ident]
/// "annotations" [top input] [input] [output] [fields] [needs]`.
fn invocation(input: &DeriveInput, core: &TokenStream, d: &Desc) -> TokenStream {
    let macros = macros_path(core);
    let (impl_g, ty_g, where_c) = input.generics.split_for_impl();
    let ident = &input.ident;
    let ann = Literal::string(&d.annotations);
    let parts = [
        bracket(core.clone()),
        bracket(macros.clone()),
        bracket(impl_g.to_token_stream()),
        bracket(quote!(#ident #ty_g)),
        bracket(where_c.to_token_stream()),
        bracket(ident.to_token_stream()),
        ann.into(),
        d.top_input.to_tokens(),
        d.input.to_tokens(),
        d.output.to_tokens(),
        bracket(
            d.fields
                .iter()
                .map(|f| {
                    let id = &f.span_ident;
                    let name = Literal::string(&f.name);
                    let (i, o) = (f.input.to_tokens(), f.output.to_tokens());
                    quote!((#id #name #i #o))
                })
                .collect(),
        ),
        bracket(d.needs.iter().map(|p| quote!((#p))).collect()),
    ];
    parts.into_iter().collect()
}

/// The JSON name serde uses on one side.
fn wire_name(ident: &syn::Ident, own: Option<&String>, case: Option<crate::case::Case>) -> String {
    let raw = ident.to_string();
    let raw = raw.strip_prefix("r#").unwrap_or(&raw).to_owned();
    match (own, case) {
        (Some(n), _) => n.clone(),
        (None, Some(c)) => c.field(&raw),
        (None, None) => raw,
    }
}

/// `default`'s value when serde's plain `#[serde(default)]` makes it `Default::default()` of a
/// type whose default the derive knows.
fn known_default(shape: &Shape) -> Option<String> {
    match shape {
        Shape::Bool => Some("false".into()),
        Shape::Int { .. } | Shape::Number { .. } => Some("0".into()),
        Shape::Str { .. } => Some("\"\"".into()),
        Shape::Array { min: None, .. } => Some("[]".into()),
        _ => None,
    }
}

fn object(
    fields: &syn::punctuated::Punctuated<syn::Field, syn::Token![,]>,
    serde: &SerdeContainer,
    mcp: &McpContainer,
    annotations: String,
) -> syn::Result<Desc> {
    let mut needs = Vec::new();
    let mut descs = Vec::new();
    let (mut in_props, mut in_req, mut out_props, mut out_req) = (vec![], vec![], vec![], vec![]);
    let mut headers: Vec<(String, &syn::Ident)> = Vec::new();
    for (k, f) in fields.iter().enumerate() {
        let Some(ident) = &f.ident else { continue };
        let s = SerdeMember::parse(&f.attrs)?;
        let m = McpField::parse(&f.attrs)?;
        if let Some(h) = m.header.as_ref().filter(|_| !s.skip_de) {
            if let Some((_, other)) = headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(&h.name))
            {
                return Err(syn::Error::new(
                    h.span,
                    format!(
                        "McpSchema: `header = {:?}` is declared twice (also on field `{other}`; \
                         x-mcp-header names are compared without case)",
                        h.name
                    ),
                ));
            }
            headers.push((h.name.clone(), ident));
        }
        let sh = shape(&f.ty, &mut needs)?;
        let default = m.default.clone().or_else(|| match &s.default {
            Some(None) => known_default(&sh),
            _ => None,
        });
        let optional_in = matches!(sh, Shape::Option(_)) || s.default.is_some() || serde.default;
        let rf = || render::Field {
            shape: &sh,
            mcp: &m,
            docs: docs(&f.attrs),
            default: default.clone(),
            null_written: !s.skip_ser_if,
            span: ident.span(),
        };
        let input = if s.skip_de {
            Template::default()
        } else {
            render::field(&rf(), Side::Input)?
        };
        let output = if s.skip_ser {
            Template::default()
        } else {
            render::field(&rf(), Side::Output)?
        };
        if !s.skip_de {
            let name = json_string(&wire_name(ident, s.rename.de.as_ref(), serde.rename_all.de));
            in_props.push((name.clone(), k));
            if !optional_in {
                in_req.push(name);
            }
        }
        if !s.skip_ser {
            let name = json_string(&wire_name(
                ident,
                s.rename.ser.as_ref(),
                serde.rename_all.ser,
            ));
            out_props.push((name.clone(), k));
            if !s.skip_ser_if {
                out_req.push(name);
            }
        }
        descs.push(FieldDesc {
            span_ident: syn::Ident::new("field", ident.span()),
            name: ident.to_string(),
            input,
            output,
        });
    }
    let members = |props: &[(String, usize)], req: &[String], closed: bool| {
        let mut t = Template::text("\"type\":\"object\"");
        if !props.is_empty() {
            t.push(",\"properties\":{");
            for (i, (name, k)) in props.iter().enumerate() {
                t.push(&format!("{}{name}:", if i > 0 { "," } else { "" }));
                t.piece(Piece::Field(*k));
            }
            t.push("}");
        }
        if !req.is_empty() {
            t.push(&format!(",\"required\":[{}]", req.join(",")));
        }
        if closed {
            t.push(",\"additionalProperties\":false");
        }
        t
    };
    let closed = serde.deny_unknown_fields;
    Ok(Desc {
        annotations,
        top_input: members(&in_props, &in_req, closed || !mcp.additional_properties),
        input: members(&in_props, &in_req, closed),
        output: members(&out_props, &out_req, false),
        fields: descs,
        needs,
    })
}

/// Strips the braces of a `{...}` template, leaving its members.
fn members_of(mut t: Template) -> Template {
    if let Some(Piece::Text(s)) = t.0.first_mut() {
        s.remove(0);
    }
    if let Some(Piece::Text(s)) = t.0.last_mut() {
        s.pop();
    }
    t.0.retain(|p| !matches!(p, Piece::Text(s) if s.is_empty()));
    t
}

fn newtype(f: &syn::Field, annotations: String) -> syn::Result<Desc> {
    let mut needs = Vec::new();
    let s = SerdeMember::parse(&f.attrs)?;
    let mut m = McpField::parse(&f.attrs)?;
    if let Some(h) = &m.header {
        return Err(syn::Error::new(
            h.span,
            "McpSchema: `header` goes on a named field of a struct (x-mcp-header marks an \
             object property, and a newtype's schema is its field's)",
        ));
    }
    let sh = shape(&f.ty, &mut needs)?;
    let span = f
        .ident
        .as_ref()
        .map_or_else(|| syn::spanned::Spanned::span(&f.ty), syn::Ident::span);
    // The newtype's own annotations describe it; the field's move there when it has none.
    let mut annotations = annotations;
    if annotations.is_empty() {
        let mut a = Vec::new();
        if let Some(t) = m.title.take() {
            a.push(format!("\"title\":{}", json_string(&t)));
        }
        if let Some(d) = m.description.take().or_else(|| docs(&f.attrs)) {
            a.push(format!("\"description\":{}", json_string(&d)));
        }
        annotations = a.join(",");
    }
    m.title = None;
    m.description = None;
    let rf = render::Field {
        shape: &sh,
        mcp: &m,
        docs: None,
        default: m.default.clone(),
        null_written: !s.skip_ser_if,
        span,
    };
    let fix = |t: Template| {
        let mut t = members_of(t);
        if !annotations.is_empty() {
            for p in &mut t.0 {
                if let Piece::Hole { own, .. } = p {
                    *own = false;
                    break;
                }
            }
        }
        t
    };
    let input = render::field(&rf, Side::Input)?;
    let output = render::field(&rf, Side::Output)?;
    let (top_input, nested_input, nested_output) =
        (fix(input.clone()), fix(input.clone()), fix(output.clone()));
    Ok(Desc {
        annotations,
        top_input,
        input: nested_input,
        output: nested_output,
        fields: vec![FieldDesc {
            span_ident: syn::Ident::new("field", span),
            name: f
                .ident
                .as_ref()
                .map_or_else(|| "0".into(), ToString::to_string),
            input,
            output,
        }],
        needs,
    })
}

fn strings(e: &syn::DataEnum, serde: &SerdeContainer, annotations: String) -> syn::Result<Desc> {
    let (mut ins, mut outs) = (Vec::new(), Vec::new());
    for v in &e.variants {
        if !matches!(v.fields, Fields::Unit) {
            return Err(syn::Error::new_spanned(
                v,
                "McpSchema: only enums of unit variants are supported (an `enum` of strings)",
            ));
        }
        let s = SerdeMember::parse(&v.attrs)?;
        let raw = v.ident.to_string();
        let name = |own: Option<&String>, case: Option<crate::case::Case>| match (own, case) {
            (Some(n), _) => n.clone(),
            (None, Some(c)) => c.variant(&raw),
            (None, None) => raw.clone(),
        };
        if !s.skip_de {
            ins.push(json_string(&name(
                s.rename.de.as_ref(),
                serde.rename_all.de,
            )));
        }
        if !s.skip_ser {
            outs.push(json_string(&name(
                s.rename.ser.as_ref(),
                serde.rename_all.ser,
            )));
        }
    }
    let members =
        |v: &[String]| Template::text(&format!("\"type\":\"string\",\"enum\":[{}]", v.join(",")));
    Ok(Desc {
        annotations,
        top_input: members(&ins),
        input: members(&ins),
        output: members(&outs),
        fields: Vec::new(),
        needs: Vec::new(),
    })
}
