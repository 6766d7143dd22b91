//! The derived `ToJson` impl: the type's compact JSON written through `&mut dyn Sink`, the same
//! bytes as serde's derive with the attributes the derive reads (`rename`, `rename_all`,
//! `skip`, `skip_serializing`, `skip_serializing_if`, `transparent`). One plain function per
//! type instead of serde's code per type and serializer: the device path's writer (flash).
//!
//! Each field is written as `(&&&Via(Serde(&field))).pick()`: its own `ToJson` when its type
//! has one (every derived type, numbers, strings, arrays, `Option`, `heapless`), else serde's
//! `Serialize`, else an error at run time (a type that is only read, as arguments, need not be
//! writable).

use proc_macro2::{Literal, TokenStream};
use quote::{quote, ToTokens};
use syn::{Data, DeriveInput, Fields, LitStr};

use crate::attrs::{McpContainer, SerdeContainer, SerdeMember};
use crate::template::json_string;

/// The wire name of a field or variant on the serialising side.
fn ser_name(raw: &str, own: Option<&String>, case: Option<String>) -> String {
    match (own, case) {
        (Some(n), _) => n.clone(),
        (None, Some(c)) => c,
        (None, None) => raw.to_owned(),
    }
}

/// `#expr` as a `&dyn ToJson`: `(&&&Via(Serde(&#expr))).pick()`, borrowing a temporary, so it
/// is only ever a call's argument (never a block's value, whose temporaries edition 2024 drops
/// at the block's end). The `By*` traits are imported at the top of `to_json`.
fn via(core: &TokenStream, expr: TokenStream) -> TokenStream {
    quote!((&&&#core::json::via::Via(#core::json::Serde(&#expr))).pick())
}

/// The `ToJson` impl of `input` (the derive has accepted its shape already).
pub(crate) fn to_json(input: &DeriveInput) -> syn::Result<TokenStream> {
    let mcp = McpContainer::parse(&input.attrs)?;
    let core = match &mcp.krate {
        Some(p) => p.to_token_stream(),
        None => quote!(::embedded_mcp),
    };
    let serde = SerdeContainer::parse(&input.attrs)?;
    let body = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(named) if !(serde.transparent && named.named.len() == 1) => {
                object(&core, &named.named, &serde)?
            }
            Fields::Named(syn::FieldsNamed { named: f, .. }) if f.len() == 1 => {
                let ident = f[0].ident.clone();
                let w = via(&core, quote!(self.#ident));
                quote!(#w.to_json(__sink))
            }
            Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                let w = via(&core, quote!(self.0));
                quote!(#w.to_json(__sink))
            }
            _ => return Ok(TokenStream::new()),
        },
        Data::Enum(e) => {
            let mut arms = Vec::new();
            for v in &e.variants {
                let s = SerdeMember::parse(&v.attrs)?;
                let ident = &v.ident;
                if s.skip_ser {
                    arms.push(quote!(Self::#ident => ::core::result::Result::Err(
                        #core::json::EncodeError::Custom)));
                    continue;
                }
                let raw = ident.to_string();
                let name = ser_name(
                    &raw,
                    s.rename.ser.as_ref(),
                    serde.rename_all.ser.map(|c| c.variant(&raw)),
                );
                let text = Literal::byte_string(json_string(&name).as_bytes());
                arms.push(quote!(Self::#ident => __sink.put(#text)));
            }
            if arms.is_empty() {
                quote!(match *self {})
            } else {
                quote!(match self { #(#arms,)* })
            }
        }
        Data::Union(_) => return Ok(TokenStream::new()),
    };
    let (impl_g, ty_g, where_c) = input.generics.split_for_impl();
    let ident = &input.ident;
    Ok(quote! {
        #[automatically_derived]
        #[allow(clippy::needless_borrow)]
        impl #impl_g #core::json::ToJson for #ident #ty_g #where_c {
            fn to_json(
                &self,
                __sink: &mut dyn #core::json::Sink,
            ) -> ::core::result::Result<(), #core::json::EncodeError> {
                #[allow(unused_imports)]
                use #core::json::via::{ByNothing as _, BySerde as _, ByToJson as _};
                #body
            }
        }
    })
}

/// An object: members with fixed heads (`{"a":`, `,"b":`) while no member before them can be
/// left out, then members that track whether one was written.
fn object(
    core: &TokenStream,
    fields: &syn::punctuated::Punctuated<syn::Field, syn::Token![,]>,
    serde: &SerdeContainer,
) -> syn::Result<TokenStream> {
    let mut steps = Vec::new();
    let (mut heads, mut values) = (Vec::new(), Vec::new());
    // While every member so far is always written, the heads are fixed text.
    let mut fixed = true;
    let mut written = 0usize;
    for f in fields {
        let Some(ident) = &f.ident else { continue };
        let s = SerdeMember::parse(&f.attrs)?;
        if s.skip_ser {
            continue;
        }
        let raw = ident.to_string();
        let raw = raw.strip_prefix("r#").unwrap_or(&raw).to_owned();
        let name = ser_name(
            &raw,
            s.rename.ser.as_ref(),
            serde.rename_all.ser.map(|c| c.field(&raw)),
        );
        let key = format!("{}:", json_string(&name));
        let value = via(core, quote!(self.#ident));
        let skip_if = s
            .skip_ser_if_path
            .as_ref()
            .map(LitStr::parse::<syn::ExprPath>);
        match skip_if {
            None if fixed => {
                let head = format!("{}{key}", if written == 0 { '{' } else { ',' });
                let head = Literal::byte_string(head.as_bytes());
                steps.push(quote!(#core::json::member(__sink, #head, #value)?;));
                heads.push(quote!(#head));
                values.push(value.clone());
            }
            None => {
                let key = Literal::byte_string(key.as_bytes());
                steps.push(quote!(#core::json::member_after(__sink, &mut __first, #key, #value)?;));
            }
            Some(path) => {
                let path = path?;
                if fixed {
                    fixed = false;
                    let first = written == 0;
                    steps.push(quote!(let mut __first = #first;));
                }
                let key = Literal::byte_string(key.as_bytes());
                steps.push(quote! {
                    if !#path(&self.#ident) {
                        #core::json::member_after(__sink, &mut __first, #key, #value)?;
                    }
                });
            }
        }
        written += 1;
    }
    if fixed && written > 0 {
        // Every member always written: one table of heads and one of values.
        return Ok(quote! {
            #core::json::object(__sink, &[#(#heads),*], &[#(#values),*])
        });
    }
    let end = if !fixed {
        quote!(#core::json::members_end(__sink, __first))
    } else if written == 0 {
        quote!(__sink.put(b"{}"))
    } else {
        quote!(__sink.put_byte(b'}'))
    };
    Ok(quote! { #(#steps)* #end })
}
