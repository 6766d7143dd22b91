//! A compiled program as Rust statics: the derive's programs live in flash, need no storage and
//! are not loaded or checked at run time.
//!
//! Ops are written from their `Debug` form (`Type(4)`, `Prop { name: Str { off: 0, len: 5 },
//! node: 1 }`), with variant and `Str` paths qualified; a test compares every emitted program
//! with the one the compiler makes at run time.

use embedded_mcp_schema::schema::__private::Op;
use proc_macro2::{Delimiter, Group, Literal, TokenStream, TokenTree};
use quote::{format_ident, quote};

/// A program's parts, copied out of the compiler's storage.
pub(crate) struct Parts {
    pub(crate) nodes: Vec<u16>,
    pub(crate) ops: Vec<Op>,
    pub(crate) text: String,
}

/// `static {prefix}_NODES`, `{prefix}_OPS` and an expression building the `Program<'static>`.
pub(crate) fn program(
    p: &Parts,
    core: &TokenStream,
    prefix: &str,
) -> syn::Result<(TokenStream, TokenStream)> {
    let nodes_id = format_ident!("{prefix}_NODES");
    let ops_id = format_ident!("{prefix}_OPS");
    let (n_nodes, n_ops) = (p.nodes.len(), p.ops.len());
    let nodes = p.nodes.iter().map(|n| Literal::u16_unsuffixed(*n));
    let ops = p
        .ops
        .iter()
        .map(|op| op_tokens(op, core))
        .collect::<syn::Result<Vec<_>>>()?;
    let text = Literal::string(&p.text);
    let statics = quote! {
        static #nodes_id: [u16; #n_nodes] = [#(#nodes),*];
        static #ops_id: [#core::schema::__private::Op; #n_ops] = [#(#ops),*];
    };
    let expr = quote! {
        #core::schema::Program::from_static_parts(&#nodes_id, &#ops_id, #text)
    };
    Ok((statics, expr))
}

fn op_tokens(op: &Op, core: &TokenStream) -> syn::Result<TokenStream> {
    let debug = format!("{op:?}");
    let ts: TokenStream = debug
        .parse()
        .map_err(|e| syn::Error::new(proc_macro2::Span::call_site(), format!("{e}")))?;
    Ok(qualify(ts, core, true))
}

/// Prefixes the leading variant with `Op::` and every `Str` with its path; field names (an
/// identifier followed by `:`) stay as they are.
fn qualify(ts: TokenStream, core: &TokenStream, top: bool) -> TokenStream {
    let tokens: Vec<TokenTree> = ts.into_iter().collect();
    let mut out = TokenStream::new();
    for (i, tt) in tokens.iter().enumerate() {
        match tt {
            TokenTree::Ident(id) => {
                let field =
                    matches!(tokens.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                if field {
                    out.extend([tt.clone()]);
                } else if id == "Str" {
                    out.extend(quote!(#core::schema::__private::Str));
                } else if top && i == 0 {
                    out.extend(quote!(#core::schema::__private::Op::#id));
                } else {
                    out.extend([tt.clone()]);
                }
            }
            TokenTree::Group(g) => {
                let inner = qualify(g.stream(), core, false);
                let d: Delimiter = g.delimiter();
                out.extend([TokenTree::from(Group::new(d, inner))]);
            }
            other => out.extend([other.clone()]),
        }
    }
    out
}
