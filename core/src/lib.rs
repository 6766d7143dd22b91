//! # embedded-mcp
//!
//! An allocation-free MCP (Model Context Protocol) tool server for microcontrollers.
//!
//! The crate is layered; each layer only uses the ones above it in this list:
//!
//! - [`json`]: the wire format. A strict, bounded JSON scanner with borrowed views
//!   ([`json::Value`]), a serde serializer into caller-provided buffers ([`json::to_slice`]) and a
//!   serde deserializer with caller-provided scratch ([`json::from_slice`]).
//! - [`result`]: the MCP `CallToolResult`. Encoders write `structuredContent` and the same JSON
//!   as a `text` block into a caller's buffer or any sink, with the era differences of the
//!   revisions ([`result::Era`]); [`result::ResultView`] is a checked borrowed view for decoding.
//! - [`protocol`]: JSON-RPC 2.0 message views, response writers and MCP version negotiation
//!   ([`protocol::Message`], [`protocol::Version`]).
//! - [`transport`]: line framing over `embedded-io` streams ([`transport::LineReader`],
//!   [`transport::LineBuffer`]): CR, blank lines, BOM, invalid UTF-8 and overlong lines handled.
//! - [`schema`]: a compiled, allocation-free validator for a subset of JSON Schema 2020-12
//!   ([`schema::compile`] into caller storage, [`schema::Program::validate`], postcard programs
//!   loadable from flash); the dialect is documented in `DIALECT.md`.
//! - [`server`]: the engine: static [`server::Tool`] definitions checked at construction,
//!   plain-Rust [`server::Handler`]s, dual-era request handling and the `serve` loops.
//!
//! The crate is `#![no_std]`, needs no allocator and has no `unsafe` code. Every bound on input
//! (nesting depth, line length, tool count) is explicit and documented where it is enforced.
//!
//! # No panics
//!
//! No input can make the crate panic: errors are values, and clippy denies `unwrap`, `expect`,
//! `panic!`, slice indexing and unchecked arithmetic outside tests, crate-wide.
//! The proof is a link: `(cd examples/panic-free && cargo build --release)` builds a Cortex-M3
//! firmware whose panic handler calls a function defined nowhere, and which runs every layer
//! (schema compiler, program loader, validator, engine, line reader) on bytes from its UART. It
//! links only if the optimiser removed every path to a panic; `examples/panic-free/locate.sh`
//! lists any path that remains (see `SECURITY.md`, "No panics", for the current status).
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects
    )
)]

#[cfg(test)]
extern crate std;

#[doc(inline)]
pub use embedded_mcp_schema::{json, schema};
/// The `heapless` crate at the version the core's types take (its `String<N>` and
/// `Vec<T, N>` as bounded tool arguments and results, serde included): `use
/// embedded_mcp::heapless;` instead of a dependency of your own at the right major version.
pub use heapless;
mod park;
pub mod protocol;
pub mod result;
pub mod server;
pub mod transport;

/// `#[derive(McpSchema)]`: implements the trait of the same name ([`schema::McpSchema`]) from a
/// type's definition and serde attributes; see the crate `embedded-mcp-macros`.
#[cfg(feature = "derive")]
pub use embedded_mcp_macros::McpSchema;
pub use schema::McpSchema;

/// `#[embedded_mcp::tools]` on an `impl` block: its `#[tool]` methods become typed tools, served
/// by [`server::Server::from_tools`] with no schema compiler and no storage to size (see
/// [`server::typed`]).
///
/// A tool is a method taking `&mut self`, optionally one argument type
/// (`#[derive(McpSchema, Deserialize)]`) and a `&mut Context<'_>`, and returning an output type
/// (`#[derive(McpSchema, Serialize)]`) or a `Result` of one. A tool that is `async` or takes a
/// [`server::Context`] makes the whole set an [`server::AsyncHandler`], served by
/// `serve_async`; otherwise it is a [`server::Handler`] too. The attribute also writes
/// `Self::TOOL_COUNT`, the number of tools, for the server's type and
/// [`server::output_len`].
///
/// # `#[tool(…)]` options
///
/// | option | what it sets | example |
/// |---|---|---|
/// | (none) | the tool's `name` is the method's, its `description` the doc comment | `#[tool]` |
/// | `name` | another `name` (`^[A-Za-z0-9_.-]{1,128}$`) | `#[tool(name = "sensor.read")]` |
/// | `title` | the display name | `#[tool(title = "Read temperature")]` |
/// | `description` | instead of the doc comment | `#[tool(description = "Reads the ADC.")]` |
/// | `annotations` | behaviour hints, any [`server::Annotations`] expression; the presets [`SENSOR`](server::Annotations::SENSOR), [`SETTER`](server::Annotations::SETTER), [`ACTUATOR`](server::Annotations::ACTUATOR) | `#[tool(annotations = Annotations::ACTUATOR)]` |
/// | `read_only`, `destructive`, `idempotent`, `open_world` | one hint, on top of `annotations`; alone it means `= true` | `#[tool(read_only, open_world = false)]` |
/// | `icons` | `icons` (2025-11-25 and later), a `&'static [Icon]` expression; `src` must be `https:` or `data:` | `#[tool(icons = &[Icon::new("https://example.com/t.png")])]` |
/// | `meta` | `_meta`, JSON text of an object | `#[tool(meta = r#"{"com.example/unit":"°C"}"#)]` |
/// | `confirm` | (core feature `approval`) a person approves before the method runs: a method `fn(&mut self, &Args) -> Option<Ask<…>>` whose `Some` asks (an MCP 2026-07-28 form, sealed by the device) and `None` lets the call through; the docs of `embedded_mcp::server::approval` say more. `embedded-mcp call` asks on the terminal | `#[tool(destructive, confirm = Self::ask_pump)]` |
/// | `scratch` | bytes of stack to decode the arguments' escaped strings (default [`server::typed::DEFAULT_SCRATCH`]) | `#[tool(scratch = 256)]` |
///
/// Every option in use (this example is compiled and run as a test):
///
/// ```
/// use embedded_mcp::server::{Annotations, Context, Icon, Server, ServerInfo, ToolError};
/// use embedded_mcp::{tools, McpSchema};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(McpSchema, Deserialize)]
/// struct Label<'a> {
///     #[mcp(max_length = 32)]
///     text: &'a str,
/// }
///
/// #[derive(McpSchema, Serialize)]
/// struct Shown {
///     chars: u32,
/// }
///
/// #[derive(McpSchema, Serialize)]
/// struct Level {
///     percent: u8,
/// }
///
/// #[derive(McpSchema, Deserialize)]
/// struct Pump {
///     on: bool,
/// }
///
/// struct Board {
///     pump: bool,
/// }
///
/// static ICONS: [Icon; 1] = [Icon::new("https://example.com/tank.png")];
///
/// #[tools]
/// impl Board {
///     /// Reads the tank's level.
///     #[tool(
///         name = "tank.level",
///         title = "Tank level",
///         annotations = Annotations::SENSOR,
///         icons = &ICONS,
///         meta = r#"{"com.example/unit":"percent"}"#
///     )]
///     fn level(&mut self) -> Level {
///         Level { percent: 40 }
///     }
///
///     /// Switches the pump: hosts ask the user first (`destructiveHint`).
///     #[tool(annotations = Annotations::ACTUATOR)]
///     async fn set_pump(&mut self, args: Pump, cx: &mut Context<'_>) -> Result<Level, ToolError> {
///         self.pump = args.on;
///         cx.progress(1, Some(1), Some("switched")).await;
///         Ok(Level { percent: 40 })
///     }
///
///     /// Shows a label (escaped strings decode into 256 bytes of stack).
///     #[tool(description = "Shows a label on the display.", read_only = false, idempotent,
///            open_world = false, scratch = 256)]
///     fn show(&mut self, args: Label<'_>) -> Shown {
///         Shown { chars: args.text.chars().count() as u32 }
///     }
/// }
///
/// assert_eq!(Board::TOOL_COUNT, 3);
/// let server = Server::from_tools(ServerInfo::new("tank", "1.0.0"), Board { pump: false })
///     .expect("checked while compiling");
/// let tools = server.tools();
/// assert_eq!(tools[0].name, "tank.level");
/// assert_eq!(tools[1].annotations.destructive, Some(true));
/// assert_eq!(tools[2].description, Some("Shows a label on the display."));
/// assert_eq!(tools[2].annotations.idempotent, Some(true));
/// ```
#[cfg(feature = "derive")]
pub use embedded_mcp_macros::tools;

/// Paths the code `#[derive(McpSchema)]` generates uses; not a stable interface.
#[cfg(feature = "derive")]
#[doc(hidden)]
pub mod __private {
    pub use embedded_mcp_macros::__compose;
}
