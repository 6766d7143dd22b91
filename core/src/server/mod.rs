//! The MCP server engine: static tools, plain-Rust handlers, and the request loop.
//!
//! # Defining and running a server
//!
//! ```
//! use embedded_mcp::server::{
//!     Annotations, Call, Done, Output, SchemaStorage, Server, ServerInfo, Tool, ToolError,
//! };
//!
//! static TOOLS: [Tool; 1] = [Tool::new(
//!     "read_temperature",
//!     r#"{"type":"object","properties":{}}"#,
//! )
//! .output_schema(r#"{"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}"#)
//! .annotations(Annotations::SENSOR)];
//!
//! #[derive(serde::Serialize)]
//! struct Reading { celsius: f32 }
//!
//! let handler = |call: &Call<'_>, out: Output<'_>| -> Result<Done, ToolError> {
//!     match call.name() {
//!         "read_temperature" => Ok(out.structured(&Reading { celsius: 21.5 })),
//!         _ => Err(ToolError::NotImplemented),
//!     }
//! };
//! // Room to compile each schema: 8 subschemas, 32 instructions, 64 bytes of text.
//! let mut schemas = SchemaStorage::<1, 8, 32, 64>::new();
//! let mut server = Server::new(ServerInfo::new("thermo", "1.0.0"), &TOOLS, &mut schemas, handler)?;
//!
//! let mut out = [0u8; 512];
//! let n = server
//!     .handle_line(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"read_temperature"}}"#, &mut out)
//!     .unwrap();
//! assert_eq!(
//!     &out[..n],
//!     &br#"{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"celsius":21.5},"content":[{"type":"text","text":"{\"celsius\":21.5}"}],"resultType":"complete"}}
//! "#[..]
//! );
//! # Ok::<(), embedded_mcp::server::DefinitionError>(())
//! ```
//!
//! Over a UART, [`Server::serve_async`] (any [`embedded_io_async::Read`] and `Write`) or
//! [`Server::serve`] (blocking [`embedded_io`]) read lines with a
//! [`LineReader`](crate::transport::LineReader) and write one response line per request.
//!
//! # Protocol behaviour
//!
//! - Dual era. `initialize` negotiates a legacy revision for the stream (2025-06-18 or
//!   2025-11-25; anything else gets 2025-11-25) and `ping` answers `{}`. A request whose
//!   `params._meta` names a protocol version (2026-07-28 style) is answered with that version's
//!   semantics, whatever the stream negotiated: `resultType` on every result, `ttlMs` and
//!   `cacheScope` on `tools/list`, any JSON type as `structuredContent`. A request with neither
//!   gets -32602. An unknown `_meta` version gets -32022 with `data.supported` and
//!   `data.requested`; a `_meta` version without `clientCapabilities` gets -32602.
//! - `server/discover` (2026-07-28) lists every supported version, newest first.
//! - For legacy peers, a tool whose output schema's root `type` is not `"object"` is listed with
//!   the schema wrapped as `{"type":"object","properties":{"result":S},"required":["result"]}`
//!   and its values are wrapped as `{"result": value}`.
//! - `tools/list` pages by bytes: a page holds as many tools as fit in
//!   min([`Config::page_bytes`], output buffer). The cursor is opaque: 12 hex digits holding the
//!   index to resume at and a 32-bit FNV-1a tag of that index salted with a hash of all tool
//!   names; a cursor this tool list did not issue (random text, another firmware's list) is
//!   -32602. The order is the order of the tool array.
//! - `tools/call`: an unknown tool, a missing name or non-object `arguments` are -32602;
//!   arguments that fail `inputSchema`, a handler error, a result larger than the buffer, and
//!   output that fails `outputSchema` are `isError: true` results that say what went wrong
//!   (invalid output is never sent).
//! - Unknown methods are -32601. JSON that is not a valid request is -32600, with the `id` when
//!   it could be read and without it otherwise (as 2025-11-25 allows). Ids longer than
//!   [`MAX_ID_LEN`] bytes are refused the same way. Notifications are never answered
//!   (`notifications/initialized` is accepted; `notifications/cancelled` for the call in flight
//!   cancels it under [`Server::serve_async`], and is ignored otherwise, as a late one must
//!   be). A response from the peer is ignored (the server sends no requests).
//! - A line that is not JSON (or not UTF-8) is dropped without an answer, as the official SDKs
//!   do: answering garbage on a shared line can start an error storm, and -32700 is never sent.
//!   [`Stats`] counts such lines. Two exceptions, where the line may be a well-formed request
//!   that the device cannot hold: a line nested deeper than [`Config::max_depth`], and a line
//!   longer than the input buffer ([`Frame::Overlong`](crate::transport::Frame)). Both get a
//!   -32600 error when their `id` can be recovered (a top-level `"id"` member, found by the
//!   streaming [`IdTracker`](crate::transport::IdTracker) wherever it is in the line), and are
//!   dropped otherwise.
//! - Async tools ([`AsyncHandler`], served by [`Server::serve_async`]) get a [`Context`]:
//!   `notifications/progress` echoing the request's `_meta.progressToken` (strictly increasing,
//!   rate-limited by [`Config::progress_interval_ms`]) and `notifications/message` filtered by
//!   level (`logging/setLevel` on a legacy stream, `_meta["io.modelcontextprotocol/logLevel"]`
//!   per 2026-07-28 request; an unknown level is -32602), every one written before the call's
//!   response and none after it; `logging` is declared in both eras' capabilities. Lines that
//!   arrive during a call wait in the reader and are answered in order after it.
//! - Every message is one line ending with LF: responses, and the notifications above.
//!
//! # Memory
//!
//! Nothing is allocated. RAM is what the firmware gives the engine:
//!
//! - the input buffer: a [`LineReader<R, N>`](crate::transport::LineReader) holds the `N`-byte
//!   line buffer (the longest request line, LF included) plus a fixed state, most of it the
//!   overlong-line id recovery;
//! - the output buffer: a `&mut [u8]` of the firmware's choice, at least
//!   [`Server::required_output_len`] bytes (every response except an oversized tool result
//!   fits; a tool result that does not fit becomes an `isError` result that says how many bytes
//!   it needed). That figure is a constant: [`output_len`] (typed tools) and [`output_len_of`]
//!   (hand-written ones) compute it while compiling, so the buffer's type names it,
//!   `[u8; output_len::<Board, { Board::TOOL_COUNT }>(&INFO, &CONFIG)]`, or a
//!   `const _: () = assert!(…)` checks a figure of the firmware's own: a buffer that is too
//!   small fails the build, not the boot;
//! - the [`Server`] value: a fixed part, a compiled-schema handle and a flag per tool, and the
//!   handler; the tools themselves are `static` data in flash;
//! - compiled schemas: a [`Storage<NODES, OPS, TEXT>`](crate::schema::Storage) takes
//!   `14 * NODES + 8 * OPS + TEXT` bytes (rounded up to its 4-byte alignment). A
//!   [`SchemaStorage`], for schemas compiled at start-up by [`Server::new`], holds two per tool,
//!   each sized for the largest schema: `2 * TOOLS * (14 * NODES + 8 * OPS + TEXT)` bytes.
//!   [`Server::with_programs`] takes programs the firmware made itself, in storages sized for
//!   each schema: compiled at start-up, or loaded from flash with
//!   [`Program::from_postcard`](crate::schema::Program::from_postcard), which decodes the nodes
//!   and ops into a RAM `Storage` and borrows the text from flash (`TEXT` may be 0), so a
//!   loaded program takes `14 * NODES + 8 * OPS` bytes of RAM;
//! - the stack: the engine does not recurse (JSON is scanned iteratively); the schema
//!   validator recurses once per nested subschema. Measure on the target (the QEMU firmware
//!   reports its peak) before sizing a task's stack.
//!
//! Measured figures are kept with the benches, not here: flash and RAM of firmware in
//! `benches/SIZES.md` and `benches/RESULTS.md`, the host sizes of these values and the stack of
//! a conversation through every method in `benches/RESULTS.md` (printed by
//! `cargo test --release -p embedded-mcp-tests --test engine_stack -- --include-ignored --nocapture`).

#[cfg(feature = "approval")]
pub mod approval;
mod async_handler;
mod call;
mod call_async;
#[cfg(feature = "approval")]
mod capability;
mod config;
mod context;
mod cursor;
mod definitions;
mod dispatch;
mod engine;
mod error;
mod handler;
mod handshake;
mod list;
#[cfg(feature = "approval")]
pub mod mrtr;
mod output_len;
mod reply;
mod schema_storage;
#[cfg(feature = "approval")]
mod sealing;
mod serve;
mod static_definitions;
mod tool;
pub mod typed;

pub use async_handler::AsyncHandler;
pub use config::{CacheScope, Clock, Config, Stats, MAX_ID_LEN};
pub use context::{Context, NOTIFICATION_LEN};
pub use engine::Server;
pub use error::{DefinitionError, SchemaRole, ServeError};
pub use handler::{Call, Done, Handler, Output, ToolError, ToolFailure};
pub use output_len::{output_len, output_len_of};
pub use schema_storage::{SchemaStorage, ToolSchemas};
pub use serve::Ended;
pub use tool::{
    is_allowed_icon_src, is_valid_tool_name, Annotations, Icon, ServerInfo, StaticError,
    TaskSupport, Theme, Tool, MAX_TOOL_NAME_LEN,
};
pub use typed::Toolbox;

#[cfg(test)]
mod tests;
