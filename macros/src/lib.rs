//! `#[derive(McpSchema)]`: the JSON Schemas of a tool's input and output, derived from the Rust
//! type serde reads and writes, and compiled by embedded-mcp's own schema compiler while the
//! crate builds. The result is static data: the schema texts `tools/list` sends and the compiled
//! programs the validator runs, so a firmware links no schema compiler and sizes no storage.
//!
//! | Rust type | schema |
//! |---|---|
//! | struct with named fields | `object` (`properties`, `required`) |
//! | newtype struct, `#[serde(transparent)]` | the inner type's schema |
//! | enum of unit variants | `enum` of strings |
//! | `bool` | `boolean` |
//! | `u8` … `u64`, `i8` … `i64` | `integer` with the type's range |
//! | `f32`, `f64` | `number` |
//! | `embedded_mcp::json::FixedPoint<PLACES>` (an integer count of 10^-PLACES) | `number` |
//! | `char` | `string` of one code point |
//! | `Option<T>` | `T`, field not required (output: `T` or `null` unless skipped when `None`) |
//! | `[T; N]` | `array`, `minItems` = `maxItems` = N |
//! | `heapless::Vec<T, N>` | `array`, `maxItems` N |
//! | `&str`, `heapless::String<N>` | `string` (`maxLength` N) |
//! | another `#[derive(McpSchema)]` type | its schema, inline |
//!
//! An integer's schema states its type's whole range, `u64` up to 18446744073709551615. A host in
//! JavaScript reads every JSON number as an IEEE-754 double, exact only up to 2^53
//! (9007199254740992): a larger `u64` or `i64` value reaches it rounded, and its checks of the
//! schema's `maximum` see the rounded bound. Where such values matter, return them as a string
//! or in a smaller type.
//!
//! `heapless::String<N>` holds N UTF-8 *bytes*, while `maxLength` counts code points. A string
//! of at most N bytes has at most N code points, so `maxLength: N` never refuses a string the
//! type can hold; it is exact for ASCII, and a longer non-ASCII string that passes it is then
//! refused by deserialisation. JSON Schema has no byte-length keyword to be exact with.
//!
//! Serde attributes that change the wire are honoured: `rename`, `rename_all` (every case
//! style, also `rename_all(serialize = …, deserialize = …)`), `default` (not required when
//! reading; the value is emitted as `default` when it is known), `skip`, `skip_serializing`,
//! `skip_deserializing`, `skip_serializing_if` (not required when writing),
//! `deny_unknown_fields` (`additionalProperties: false` at that level). Attributes whose wire
//! form the derive cannot know (`flatten`, `with`, `tag`, `untagged`, `from`, …) are refused.
//!
//! Constraints and annotations: `#[mcp(minimum = 0, maximum = 3, exclusive_minimum = …,
//! exclusive_maximum = …, multiple_of = 0.5, min_length = 1, max_length = 8, pattern = "^a+$",
//! min_items = 1, max_items = 4, unique_items, title = "…", description = "…", examples = […],
//! default = …)]` on a field (number and string keywords of an array field apply to its items);
//! doc comments become `description`. On the type: `#[mcp(additional_properties)]` keeps the
//! input schema open, `#[mcp(crate = "path")]` names the embedded-mcp crate.
//!
//! `#[mcp(header = "Region")]` on a field writes `"x-mcp-header":"Region"` in its input schema
//! (MCP 2026-07-28: a client mirrors the argument in the HTTP header `Mcp-Param-Region`, which
//! the embedded-mcp bridge checks against the body). The rules of the specification are
//! compile errors: the field is a string, an integer or a boolean (optional or not; `number`
//! is excluded by the specification), the name is an RFC 9110 token, no two marks of one input
//! schema share a name regardless of case (nested derived types included), and the mark is
//! reached from the root through object properties alone (not inside an array, an `anyOf` or a
//! newtype).
//!
//! A derived type nests in another wherever it is defined, in this crate or another: the derive
//! defines a hidden, exported macro and re-exports it under the type's name (the macro
//! namespace, beside the type), so the path the field's type is written with, or the `use`
//! that imports the type, also names the macro that hands its schema to the types nesting it.
//! The nested type must be named by a path, not through a type alias (an alias names no macro).
//!
//! The derive also implements `embedded_mcp::json::ToJson` and `embedded_mcp::json::FromJson`,
//! the typed tools' non-generic writer and reader (one plain function per type over shared
//! helpers behind `&mut dyn Sink`: much less flash than serde's code per type), with the bytes,
//! values and errors of serde's derive under the attributes above. A field type without them is
//! written or read by serde; a type with a serde attribute the reader does not know (`alias`,
//! `bound`, …) or a `&'static str` field gets no `FromJson` and is read by serde.
//!
//! Use the derive through the core, `use embedded_mcp::McpSchema;` (the trait and the derive,
//! with the core's default feature `derive`): the generated code names
//! `::embedded_mcp::schema` and `::embedded_mcp::__private`, or the path of
//! `#[mcp(crate = "…")]`.

//! This crate is the proc-macro shim; the logic is the library `embedded-mcp-macros-impl`, which
//! the `embedded-mcp schema derive` command also runs on a source file.

use proc_macro::TokenStream;

/// Implements `embedded_mcp::schema::McpSchema`: the input and output schemas as compact JSON
/// and their programs, compiled at build time; and the type's `json::ToJson` / `json::FromJson`
/// (see the crate documentation).
#[proc_macro_derive(McpSchema, attributes(mcp))]
pub fn derive_mcp_schema(input: TokenStream) -> TokenStream {
    embedded_mcp_macros_impl::derive(input.into()).into()
}

/// The derive's second stage: gathers the schemas of nested types, then compiles. Not an
/// interface.
#[doc(hidden)]
#[proc_macro]
pub fn __compose(input: TokenStream) -> TokenStream {
    embedded_mcp_macros_impl::compose(input.into()).into()
}

/// `#[embedded_mcp::tools]` on an `impl` block: its `#[tool]` methods become typed tools (a
/// `Toolbox` for `Server::from_tools` and the handler that runs them); see
/// `embedded_mcp::server::typed`.
#[proc_macro_attribute]
pub fn tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    embedded_mcp_macros_impl::tools(attr.into(), item.into()).into()
}
