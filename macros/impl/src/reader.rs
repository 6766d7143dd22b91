//! The derived `FromJson` impl: the type read from checked JSON with the results and errors of
//! serde's derive (`rename`, `rename_all`, `default`, `skip`, `skip_deserializing`,
//! `deny_unknown_fields`, `transparent`), through one shared member loop instead of serde's
//! visitors per type: the device path's reader (flash). A type with a serde attribute this
//! reader does not know gets none, and is read by serde.
//!
//! Each field is read by `(&&&Pick::<T>::NEW).read_via(value, r)`: its type's `FromJson` when
//! it has one, else serde's `Deserialize`.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{Attribute, Data, DeriveInput, Fields, Type};

use crate::attrs::{McpContainer, SerdeContainer, SerdeMember};

/// The serde attributes the reader honours, on the type and on a field or variant.
const CONTAINER: [&str; 6] = [
    "rename_all",
    "deny_unknown_fields",
    "default",
    "transparent",
    "rename",
    "expecting",
];
const MEMBER: [&str; 6] = [
    "rename",
    "skip",
    "skip_serializing",
    "skip_deserializing",
    "skip_serializing_if",
    "default",
];

/// True when every serde attribute in `attrs` is one of `known` (and a container `default`
/// has no path, which the reader does not take).
fn only_known(attrs: &[Attribute], known: &[&str], container: bool) -> bool {
    let mut ok = true;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let parsed = attr.parse_nested_meta(|meta| {
            let name = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            if !known.contains(&name.as_str()) {
                ok = false;
            }
            if meta.input.peek(syn::Token![=]) {
                if container && name == "default" {
                    ok = false;
                }
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                let _: proc_macro2::Group = meta.input.parse()?;
            }
            Ok(())
        });
        if parsed.is_err() {
            ok = false;
        }
    }
    ok
}

/// True for `Option<…>` (serde's derive reads a missing `Option` field as `None`).
fn is_option(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Option"),
        Type::Group(g) => is_option(&g.elem),
        Type::Paren(p) => is_option(&p.elem),
        _ => false,
    }
}

/// `(&&&Pick::<#ty>::NEW).read_via(#value, __r)`.
fn pick(core: &TokenStream, ty: &Type, value: TokenStream) -> TokenStream {
    quote!((&&&#core::json::pick::Pick::<#ty>::NEW).read_via(#value, __r))
}

/// The `FromJson` impl of `input`, or nothing when serde's attributes ask for more than this
/// reader does (the derive has accepted its shape already).
pub(crate) fn from_json(input: &DeriveInput) -> syn::Result<TokenStream> {
    if !only_known(&input.attrs, &CONTAINER, true) {
        return Ok(TokenStream::new());
    }
    let mcp = McpContainer::parse(&input.attrs)?;
    let core = match &mcp.krate {
        Some(p) => p.to_token_stream(),
        None => quote!(::embedded_mcp),
    };
    let serde = SerdeContainer::parse(&input.attrs)?;
    // A `&'static str` field cannot borrow from a request: such a type is only written.
    let fields: Vec<&syn::Field> = match &input.data {
        Data::Struct(s) => s.fields.iter().collect(),
        _ => Vec::new(),
    };
    if fields
        .iter()
        .any(|f| f.ty.to_token_stream().to_string().contains("'static"))
    {
        return Ok(TokenStream::new());
    }
    let body = match &input.data {
        Data::Struct(s) => {
            if s.fields
                .iter()
                .any(|f| !only_known(&f.attrs, &MEMBER, false))
            {
                return Ok(TokenStream::new());
            }
            match &s.fields {
                Fields::Named(named) if !(serde.transparent && named.named.len() == 1) => {
                    match object(&core, &named.named, &serde)? {
                        Some(body) => body,
                        None => return Ok(TokenStream::new()),
                    }
                }
                Fields::Named(syn::FieldsNamed { named: f, .. }) if f.len() == 1 => {
                    let ident = &f[0].ident;
                    let read = pick(&core, &f[0].ty, quote!(__value));
                    quote!(::core::result::Result::Ok(Self { #ident: #read? }))
                }
                Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                    let read = pick(&core, &u.unnamed[0].ty, quote!(__value));
                    quote!(::core::result::Result::Ok(Self(#read?)))
                }
                _ => return Ok(TokenStream::new()),
            }
        }
        Data::Enum(e) => {
            if e.variants
                .iter()
                .any(|v| !only_known(&v.attrs, &MEMBER, false))
            {
                return Ok(TokenStream::new());
            }
            let (mut names, mut arms) = (Vec::new(), Vec::new());
            for v in &e.variants {
                let s = SerdeMember::parse(&v.attrs)?;
                if s.skip_de {
                    continue;
                }
                let raw = v.ident.to_string();
                let name = match (&s.rename.de, serde.rename_all.de) {
                    (Some(n), _) => n.clone(),
                    (None, Some(c)) => c.variant(&raw),
                    (None, None) => raw,
                };
                let (i, ident) = (names.len(), &v.ident);
                names.push(name);
                arms.push(quote!(#i => ::core::result::Result::Ok(Self::#ident)));
            }
            quote! {
                match __r.variant(&__value, &[#(#names),*])? {
                    #(#arms,)*
                    _ => ::core::result::Result::Err(__r.error(
                        &__value,
                        #core::json::DecodeErrorKind::UnknownVariant,
                    )),
                }
            }
        }
        Data::Union(_) => return Ok(TokenStream::new()),
    };
    let ident = &input.ident;
    let lifetimes: Vec<_> = input.generics.lifetimes().map(|l| &l.lifetime).collect();
    let (_, ty_g, _) = input.generics.split_for_impl();
    Ok(quote! {
        #[automatically_derived]
        #[allow(clippy::needless_borrow)]
        impl<'__de, #(#lifetimes),*> #core::json::FromJson<'__de> for #ident #ty_g
        where #('__de: #lifetimes),*
        {
            fn from_json(
                __value: #core::json::Value<'__de>,
                __r: &mut #core::json::Reader<'__de, '_>,
            ) -> ::core::result::Result<Self, #core::json::DecodeError> {
                #[allow(unused_imports)]
                use #core::json::pick::{ByFromJson as _, ByNothing as _, BySerde as _};
                #body
            }
        }
    })
}

/// An object: the members read into one `Option` per field, then the missing ones settled in
/// declaration order as serde's derive does (the field's default, the type's default, `None`
/// for an `Option`, else a missing-field error). `None` for more than 64 read fields.
fn object(
    core: &TokenStream,
    fields: &syn::punctuated::Punctuated<syn::Field, syn::Token![,]>,
    serde: &SerdeContainer,
) -> syn::Result<Option<TokenStream>> {
    let (mut slots, mut names, mut arms, mut inits) = (vec![], vec![], vec![], vec![]);
    for f in fields {
        let Some(ident) = &f.ident else { continue };
        let s = SerdeMember::parse(&f.attrs)?;
        let ty = &f.ty;
        let default = match &s.default {
            Some(None) => Some(quote!(::core::default::Default::default())),
            Some(Some(path)) => {
                let path: syn::ExprPath = syn::parse_str(path)?;
                Some(quote!(#path()))
            }
            None if serde.default => Some(quote!(__default.#ident)),
            None => None,
        };
        if s.skip_de {
            let value = default.unwrap_or_else(|| quote!(::core::default::Default::default()));
            inits.push(quote!(#ident: #value));
            continue;
        }
        let raw = ident.to_string();
        let raw = raw.strip_prefix("r#").unwrap_or(&raw).to_owned();
        let name = match (&s.rename.de, serde.rename_all.de) {
            (Some(n), _) => n.clone(),
            (None, Some(c)) => c.field(&raw),
            (None, None) => raw,
        };
        let slot = syn::Ident::new(&format!("__f_{ident}"), ident.span());
        let i = names.len();
        let read = pick(core, ty, quote!(__v));
        arms.push(quote!(#i => #slot = ::core::option::Option::Some(#read?)));
        let missing = match default {
            Some(d) => d,
            None if is_option(ty) => quote!(::core::option::Option::None),
            None => quote!(return ::core::result::Result::Err(__r.missing(&__value, #name))),
        };
        inits.push(quote!(#ident: match #slot {
            ::core::option::Option::Some(__v) => __v,
            ::core::option::Option::None => #missing,
        }));
        slots.push(
            quote!(let mut #slot: ::core::option::Option<#ty> = ::core::option::Option::None;),
        );
        names.push(name);
    }
    if names.len() > 64 {
        return Ok(None);
    }
    let deny = serde.deny_unknown_fields;
    let default = serde
        .default
        .then(|| quote!(#[allow(unused_variables)] let __default: Self = ::core::default::Default::default();));
    Ok(Some(quote! {
        #(#slots)*
        __r.object(&__value, &[#(#names),*], #deny, &mut |__i, __v, __r| {
            match __i {
                #(#arms,)*
                _ => {}
            }
            ::core::result::Result::Ok(())
        })?;
        #default
        ::core::result::Result::Ok(Self { #(#inits,)* })
    }))
}
