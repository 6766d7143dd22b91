//! The logic of `#[derive(McpSchema)]` as a normal library: the proc-macro crate
//! `embedded-mcp-macros` is a shim over [`derive()`] and [`compose`], and the `embedded-mcp schema
//! derive` command runs the same two stages on a source file with [`schemas_in_file`]. What the
//! derive supports is documented in `embedded-mcp-macros`.
//!
//! The derive runs in two stages. The first ([`derive()`]) reads the type and its attributes and
//! writes its schemas as templates, with holes where nested derived types go. The second
//! ([`compose`]) asks each nested type for its schema through the hidden macro that type's own
//! derive defined, fills the holes, compiles the schemas with the core's compiler and emits the
//! `McpSchema` impl, the static programs and this type's hidden macro.

mod attrs;
mod case;
mod compose;
mod derive;
mod emit;
mod headers;
mod reader;
mod render;
mod shape;
mod source;
mod template;
mod tools;
mod writer;

use proc_macro2::TokenStream;

pub use source::{schemas_in_file, Schemas, SourceError};

/// The first stage: `#[derive(McpSchema)]` on the item `input`; a compile error on refusal.
pub fn derive(input: TokenStream) -> TokenStream {
    syn::parse2::<syn::DeriveInput>(input)
        .and_then(|input| derive::derive(&input))
        .unwrap_or_else(syn::Error::into_compile_error)
}

/// The second stage (`__compose!`): asks the next nested type for its schema, or emits the
/// impl; a compile error on refusal.
pub fn compose(input: TokenStream) -> TokenStream {
    compose::compose(input).unwrap_or_else(syn::Error::into_compile_error)
}

/// `#[tools]` on an `impl` block: its `#[tool]` methods become typed tools (the `Toolbox` and
/// the handler that runs them). Errors come back as `compile_error!` tokens.
pub fn tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    tools::tools(attr, item)
}
