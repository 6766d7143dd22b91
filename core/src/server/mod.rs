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
//! [`LineReader`] and write one response line per request.
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
//!   (`notifications/initialized` and `notifications/cancelled` are accepted; a request is
//!   always finished before the next line is read, so there is nothing to cancel). A response
//!   from the peer is ignored (the server sends no requests).
//! - A line that is not JSON (or not UTF-8) is dropped without an answer, as the official SDKs
//!   do: answering garbage on a shared line can start an error storm, and -32700 is never sent.
//!   [`Stats`] counts such lines. Two exceptions, where the line may be a well-formed request
//!   that the device cannot hold: a line nested deeper than [`Config::max_depth`], and a line
//!   longer than the input buffer ([`Frame::Overlong`](crate::transport::Frame)). Both get a
//!   -32600 error when their `id` can be recovered (a top-level `"id"` member, found by the
//!   streaming [`IdTracker`] wherever it is in the line), and are
//!   dropped otherwise.
//! - Every response is one line ending with LF; nothing else is ever written.
//!
//! # Memory
//!
//! Nothing is allocated. RAM is what the firmware gives the engine; figures measured on
//! x86-64 by `tests/tests/engine_stack.rs` (pointers and `usize` are 8 bytes there, so a 32-bit
//! MCU needs less for the fixed parts):
//!
//! - the input buffer: a [`LineReader<R, N>`](crate::transport::LineReader) holds the `N`-byte
//!   line buffer (the longest request line, LF included) plus 280 bytes of state, most of it
//!   the overlong-line id recovery;
//! - the output buffer: a `&mut [u8]` of the firmware's choice, at least
//!   [`Server::required_output_len`] bytes (every response except an oversized tool result
//!   fits; a tool result that does not fit becomes an `isError` result that says how many bytes
//!   it needed);
//! - the [`Server`] value: 184 bytes + 97 bytes per tool + the handler (`Server<H, 8>` is
//!   960 bytes + `H`); the tools themselves are `static` data in flash;
//! - compiled schemas: a [`SchemaStorage`] of `2 * TOOLS * (14 * NODES + 8 * OPS + TEXT)`
//!   bytes when they are compiled at start-up (11 776 bytes for 8 tools of `<16, 48, 128>`),
//!   nothing when precompiled programs are loaded from flash ([`Server::with_programs`]);
//! - the stack: the engine does not recurse (JSON is scanned iteratively); the schema
//!   validator recurses once per nested subschema. A conversation through every method, with
//!   argument and output validation and a 40-deep request, used at most 19 185 bytes of stack
//!   (release build, x86-64, including the test's handler and the thread's first frames; run
//!   `cargo test --release -p embedded-mcp-tests --test engine_stack -- --ignored --nocapture`).
//!   Measure on the target (the QEMU firmware) before sizing a task's stack.

mod call;
mod checks;
mod error;
mod handler;
mod list;
mod tool;

use core::fmt;

use crate::json::{
    self, write_string, CountingSink, DecodeErrorKind, EncodeError, JsonStr, Kind, Limits, Sink,
    SliceSink, Value,
};
use crate::protocol::{
    self, write_error, write_result_start, write_supported_versions, write_unsupported_version,
    Envelope, ErrorCode, Invalid, Message, MetaError, RequestId, Version,
};
use crate::transport::{Frame, IdTracker, LineReader};

pub use checks::{SchemaStorage, ToolSchemas};
pub use error::{DefinitionError, SchemaRole, ServeError};
pub use handler::{Call, Done, Handler, Output, ToolError};
pub use tool::{
    is_allowed_icon_src, is_valid_tool_name, Annotations, Icon, ServerInfo, StaticError, Theme,
    Tool, MAX_TOOL_NAME_LEN,
};

use checks::{compile_all, Checks};
use list::{decode_cursor, encode_cursor, write_icons, write_tool, write_usize};

/// Longest request id accepted, in bytes of its JSON text (quotes included). Longer ids are
/// refused with -32600 and no `id`, so that every error response has a bounded size.
pub const MAX_ID_LEN: usize = 128;

/// `cacheScope` of cacheable 2026 results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CacheScope {
    /// `"public"`: no user-specific data (the default: tools are static firmware data).
    Public,
    /// `"private"`: cache only within one authorization context.
    Private,
}

impl CacheScope {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Private => "private",
        }
    }
}

/// Tunables of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Config {
    /// Largest `tools/list` response line in bytes (the output buffer bounds it too).
    pub page_bytes: usize,
    /// `ttlMs` of `tools/list` and `server/discover` results (2026-07-28).
    pub ttl_ms: u32,
    /// `cacheScope` of `tools/list` and `server/discover` results (2026-07-28).
    pub cache_scope: CacheScope,
    /// Deepest nesting of arrays and objects accepted in a request (at most
    /// [`json::MAX_DEPTH_LIMIT`]).
    pub max_depth: u8,
}

impl Config {
    /// The defaults: pages as large as the output buffer, `ttlMs` 300 000 (5 minutes),
    /// `cacheScope` `"public"`, nesting depth [`json::DEFAULT_MAX_DEPTH`] (32).
    pub const DEFAULT: Config = Config {
        page_bytes: usize::MAX,
        ttl_ms: 300_000,
        cache_scope: CacheScope::Public,
        max_depth: json::DEFAULT_MAX_DEPTH,
    };
}

impl Default for Config {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Counters of what the engine has seen (wrapping), for diagnostics: nothing but responses may
/// be written to the channel, so this is where dropped lines show up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Stats {
    /// Requests answered.
    pub requests: u32,
    /// Notifications received.
    pub notifications: u32,
    /// Lines dropped because they were not JSON.
    pub unparsable: u32,
    /// Lines dropped because they were not UTF-8.
    pub invalid_utf8: u32,
    /// Lines longer than the input buffer.
    pub overlong: u32,
    /// Lines nested deeper than the limit.
    pub too_deep: u32,
    /// JSON messages that were not valid requests.
    pub invalid: u32,
}

/// The methods the engine knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Initialize,
    Ping,
    Discover,
    ToolsList,
    ToolsCall,
}

impl Method {
    fn of(name: JsonStr<'_>) -> Option<Self> {
        const TABLE: [(&str, Method); 5] = [
            ("tools/call", Method::ToolsCall),
            ("tools/list", Method::ToolsList),
            ("initialize", Method::Initialize),
            ("ping", Method::Ping),
            ("server/discover", Method::Discover),
        ];
        TABLE.iter().find(|(n, _)| name.eq_str(n)).map(|&(_, m)| m)
    }
}

/// The MCP server: `TOOLS` static tools and a handler `H`.
///
/// The tool count is the array length, so it is fixed at compile time; it must be at most
/// 65 535 (the cursor's index field). Per-stream state is one `Option<Version>`: the revision a
/// legacy `initialize` negotiated.
pub struct Server<'a, H, const TOOLS: usize> {
    info: ServerInfo,
    tools: &'a [Tool; TOOLS],
    /// Per tool: the output schema's root `type` is `"object"`.
    object_output: [bool; TOOLS],
    checks: Checks<'a, TOOLS>,
    handler: H,
    config: Config,
    session: Option<Version>,
    salt: u32,
    stats: Stats,
    /// Smallest output buffer that holds every response other than a tool result.
    required_output: usize,
}

impl<H, const TOOLS: usize> fmt::Debug for Server<'_, H, TOOLS> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("info", &self.info)
            .field("tools", &TOOLS)
            .field("session", &self.session)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

/// Checks the definitions that need no compiler; returns, per tool, whether its output
/// schema's root `type` is `"object"`.
fn check_definitions<const TOOLS: usize>(
    info: &ServerInfo,
    tools: &[Tool; TOOLS],
) -> Result<[bool; TOOLS], DefinitionError> {
    if TOOLS > usize::from(u16::MAX) {
        return Err(DefinitionError::TooManyTools);
    }
    for (icon, i) in info.icons.iter().enumerate() {
        if !is_allowed_icon_src(i.src) {
            return Err(DefinitionError::ServerIconScheme { icon });
        }
    }
    let mut object_output = [false; TOOLS];
    for (index, tool) in tools.iter().enumerate() {
        tool.check_static()
            .map_err(|error| DefinitionError::Static { tool: index, error })?;
        if let Some(first) = tools
            .iter()
            .take(index)
            .position(|other| other.name == tool.name)
        {
            return Err(DefinitionError::DuplicateName { tool: index, first });
        }
        if !check_schema(tool.input_schema, index, SchemaRole::Input)? {
            return Err(DefinitionError::SchemaNotObject {
                tool: index,
                role: SchemaRole::Input,
            });
        }
        if let Some(output) = tool.output_schema {
            let is_object = check_schema(output, index, SchemaRole::Output)?;
            if let Some(slot) = object_output.get_mut(index) {
                *slot = is_object;
            }
        }
        if let Some(meta) = tool.meta {
            let ok = Value::parse(meta.as_bytes()).is_ok_and(|v| v.kind() == Kind::Object);
            if !ok {
                return Err(DefinitionError::MetaNotObject { tool: index });
            }
        }
    }
    Ok(object_output)
}

/// True when a schema's root has `"type": "object"`.
fn root_is_object(schema: Value<'_>) -> bool {
    schema
        .get("type")
        .and_then(|t| t.as_str())
        .is_some_and(|t| t.eq_str("object"))
}

/// Checks one schema text: JSON, an object; returns whether its root type is `"object"`.
fn check_schema(text: &str, tool: usize, role: SchemaRole) -> Result<bool, DefinitionError> {
    let value = Value::parse_with(
        text.as_bytes(),
        Limits {
            max_depth: json::MAX_DEPTH_LIMIT,
        },
    )
    .map_err(|error| DefinitionError::SchemaNotJson { tool, role, error })?;
    if value.kind() != Kind::Object {
        return Err(DefinitionError::SchemaNotObject { tool, role });
    }
    Ok(root_is_object(value))
}

impl<'a, H: Handler, const TOOLS: usize> Server<'a, H, TOOLS> {
    /// Checks every definition, compiles every schema into `storage`, and builds the server
    /// with [`Config::DEFAULT`].
    pub fn new<const N: usize, const O: usize, const T: usize>(
        info: ServerInfo,
        tools: &'a [Tool; TOOLS],
        storage: &'a mut SchemaStorage<TOOLS, N, O, T>,
        handler: H,
    ) -> Result<Self, DefinitionError> {
        Self::with_config(info, tools, storage, handler, Config::DEFAULT)
    }

    /// Checks every definition, compiles every schema into `storage`, and builds the server.
    ///
    /// Refused: a name that breaks `^[A-Za-z0-9_.-]{1,128}$` or is used twice, an icon whose
    /// `src` is not `https:`/`data:`, an `inputSchema` that is not a JSON object with
    /// `"type": "object"`, an `outputSchema` or `_meta` that is not a JSON object, and a schema
    /// the compiled validator refuses or that does not fit `storage`.
    pub fn with_config<const N: usize, const O: usize, const T: usize>(
        info: ServerInfo,
        tools: &'a [Tool; TOOLS],
        storage: &'a mut SchemaStorage<TOOLS, N, O, T>,
        handler: H,
        config: Config,
    ) -> Result<Self, DefinitionError> {
        let object_output = check_definitions(&info, tools)?;
        let schemas = compile_all(tools, storage)?;
        Ok(Self::build(
            info,
            tools,
            object_output,
            schemas,
            handler,
            config,
        ))
    }

    /// Checks every definition and builds the server with schemas compiled beforehand (for
    /// example loaded from flash with [`Program::from_postcard`](crate::schema::Program)).
    /// `programs[i]` must be the compiled schemas of `tools[i]`: only the presence of the
    /// output program can be checked here.
    pub fn with_programs(
        info: ServerInfo,
        tools: &'a [Tool; TOOLS],
        programs: [ToolSchemas<'a>; TOOLS],
        handler: H,
        config: Config,
    ) -> Result<Self, DefinitionError> {
        let object_output = check_definitions(&info, tools)?;
        for (tool, (definition, program)) in tools.iter().zip(&programs).enumerate() {
            if definition.output_schema.is_some() != program.output.is_some() {
                return Err(DefinitionError::ProgramMismatch { tool });
            }
        }
        Ok(Self::build(
            info,
            tools,
            object_output,
            programs.map(Some),
            handler,
            config,
        ))
    }

    fn build(
        info: ServerInfo,
        tools: &'a [Tool; TOOLS],
        object_output: [bool; TOOLS],
        schemas: [Option<ToolSchemas<'a>>; TOOLS],
        handler: H,
        config: Config,
    ) -> Self {
        let mut server = Self {
            info,
            tools,
            object_output,
            checks: Checks { schemas },
            handler,
            config: Config {
                max_depth: config.max_depth.min(json::MAX_DEPTH_LIMIT),
                ..config
            },
            session: None,
            salt: list::salt(tools),
            stats: Stats::default(),
            required_output: 0,
        };
        server.required_output = server.compute_required_output();
        server
    }

    /// The handler.
    pub fn handler(&mut self) -> &mut H {
        &mut self.handler
    }

    /// The tools served.
    pub fn tools(&self) -> &'a [Tool; TOOLS] {
        self.tools
    }

    /// What the engine has seen so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The legacy revision negotiated by `initialize` on this stream, if any.
    pub fn session(&self) -> Option<Version> {
        self.session
    }

    /// Forgets the stream's handshake (for example when the host reconnects).
    pub fn reset_session(&mut self) {
        self.session = None;
    }

    /// The smallest output buffer with which every response fits, except a tool result larger
    /// than the buffer (which becomes an `isError` result saying how much it needed): the
    /// largest of the `initialize` and `server/discover` results, a `tools/list` page holding
    /// the largest tool, and the longest error, each with an id of [`MAX_ID_LEN`] bytes.
    pub fn required_output_len(&self) -> usize {
        self.required_output
    }

    fn compute_required_output(&self) -> usize {
        let mut largest = 0usize;
        let mut measure = |f: &dyn Fn(&mut CountingSink) -> Result<(), EncodeError>| {
            let mut c = CountingSink::default();
            if f(&mut c).is_ok() {
                largest = largest.max(c.count);
            }
        };
        for version in Version::ALL {
            measure(&|s| {
                if version.is_legacy() {
                    self.write_initialize_result(s, version)
                } else {
                    self.write_discover_result(s)
                }
            });
            for (index, tool) in self.tools.iter().enumerate() {
                let object = self.object_output.get(index).copied().unwrap_or(false);
                measure(&|s| {
                    s.put(b"{\"tools\":[")?;
                    write_tool(s, tool, version, object)?;
                    self.write_list_tail(s, version, Some(1))
                });
            }
        }
        // The longest error: -32022 echoing the longest requested version it echoes.
        let requested = [b'x'; protocol::MAX_REQUESTED_ECHO];
        let requested = core::str::from_utf8(&requested).unwrap_or_default();
        measure(&|s| write_unsupported_version(s, None, requested));
        measure(&|s| write_error(s, None, ErrorCode::InternalError, RESPONSE_TOO_LARGE));
        // Envelope: `{"jsonrpc":"2.0","id":` ID `,"result":` ... `}` LF.
        largest + 36 + MAX_ID_LEN
    }
}

const RESPONSE_TOO_LARGE: &str = "Internal error: the response does not fit the output buffer";

/// Writes `f` as a complete response line into `out`; falls back to a -32603 error when the
/// response does not fit, and to nothing when even that does not fit.
fn reply(
    out: &mut [u8],
    id: Option<RequestId<'_>>,
    f: impl FnOnce(&mut SliceSink<'_>) -> Result<(), EncodeError>,
) -> Option<usize> {
    let mut sink = SliceSink::new(out);
    let written = f(&mut sink).and_then(|()| sink.put_byte(b'\n'));
    match written.and_then(|()| sink.finish()) {
        Ok(n) => Some(n),
        Err(_) => fallback(out, id),
    }
}

/// The -32603 response used when the real one does not fit.
fn fallback(out: &mut [u8], id: Option<RequestId<'_>>) -> Option<usize> {
    let mut sink = SliceSink::new(out);
    write_error(&mut sink, id, ErrorCode::InternalError, RESPONSE_TOO_LARGE).ok()?;
    sink.put_byte(b'\n').ok()?;
    sink.finish().ok()
}

fn error_line(
    out: &mut [u8],
    id: Option<RequestId<'_>>,
    code: ErrorCode,
    message: &str,
) -> Option<usize> {
    reply(out, id, |s| write_error(s, id, code, message))
}

/// The request id held in a recovered id text.
fn recovered_id<'a>(text: &'a str) -> Option<RequestId<'a>> {
    Value::parse(text.as_bytes())
        .ok()
        .and_then(RequestId::from_value)
}

impl<H: Handler, const TOOLS: usize> Server<'_, H, TOOLS> {
    /// Handles one frame from the transport; see [`Server::handle_line`].
    pub fn handle_frame(&mut self, frame: Frame<'_>, out: &mut [u8]) -> Option<usize> {
        match frame {
            Frame::Line(line) => self.handle_text(line, out),
            Frame::InvalidUtf8(_) => {
                self.stats.invalid_utf8 = self.stats.invalid_utf8.wrapping_add(1);
                None
            }
            Frame::Overlong(overlong) => {
                self.stats.overlong = self.stats.overlong.wrapping_add(1);
                let id_text = overlong.id?;
                let id = recovered_id(id_text.as_str())?;
                error_line(
                    out,
                    Some(id),
                    ErrorCode::InvalidRequest,
                    "Invalid request: the message is longer than the device's input buffer",
                )
            }
        }
    }

    /// Handles one request line (without its LF). Returns the length of the response line
    /// written at the start of `out` (LF included), or `None` when nothing is to be sent
    /// (notifications, responses, dropped lines).
    pub fn handle_line(&mut self, line: &[u8], out: &mut [u8]) -> Option<usize> {
        match json::check_utf8(line) {
            Ok(text) => self.handle_text(text, out),
            Err(_) => {
                self.stats.unparsable = self.stats.unparsable.wrapping_add(1);
                None
            }
        }
    }

    /// [`Server::handle_line`] of a line known to be UTF-8.
    fn handle_text(&mut self, line: &str, out: &mut [u8]) -> Option<usize> {
        let limits = Limits {
            max_depth: self.config.max_depth,
        };
        // One pass checks the line and finds the members read below.
        let envelope = match Envelope::parse_str(line, limits) {
            Ok(envelope) => envelope,
            Err(e) if e.kind == DecodeErrorKind::TooDeep => {
                self.stats.too_deep = self.stats.too_deep.wrapping_add(1);
                let mut tracker = IdTracker::new();
                tracker.feed(line.as_bytes());
                let id_text = tracker.id()?;
                let id = recovered_id(id_text.as_str())?;
                return error_line(
                    out,
                    Some(id),
                    ErrorCode::InvalidRequest,
                    "Invalid request: the message is nested deeper than the device accepts",
                );
            }
            Err(_) => {
                self.stats.unparsable = self.stats.unparsable.wrapping_add(1);
                return None;
            }
        };
        match envelope.classify() {
            Err(invalid) => self.invalid(invalid, out),
            Ok(Message::Response) => None,
            Ok(Message::Notification { method, .. }) => {
                self.stats.notifications = self.stats.notifications.wrapping_add(1);
                // `notifications/initialized`, `notifications/cancelled` and any other
                // notification need no action: requests run to completion one at a time.
                let _ = method;
                None
            }
            Ok(Message::Request { id, method, .. }) => {
                self.stats.requests = self.stats.requests.wrapping_add(1);
                if id.raw().len() > MAX_ID_LEN {
                    return error_line(
                        out,
                        None,
                        ErrorCode::InvalidRequest,
                        "Invalid request: the id is longer than the device accepts",
                    );
                }
                self.request(id, method, &envelope, out)
            }
        }
    }

    fn invalid(&mut self, invalid: Invalid<'_>, out: &mut [u8]) -> Option<usize> {
        self.stats.invalid = self.stats.invalid.wrapping_add(1);
        if invalid.notification {
            return None;
        }
        let id = invalid.id.filter(|id| id.raw().len() <= MAX_ID_LEN);
        error_line(out, id, ErrorCode::InvalidRequest, invalid.reason.message())
    }

    fn request(
        &mut self,
        id: RequestId<'_>,
        method: JsonStr<'_>,
        envelope: &Envelope<'_>,
        out: &mut [u8],
    ) -> Option<usize> {
        let Some(method) = Method::of(method) else {
            return error_line(out, Some(id), ErrorCode::MethodNotFound, "Method not found");
        };
        // The methods read `params`' members from the envelope: found while the line was
        // checked.
        if method == Method::Initialize {
            return self.initialize(id, envelope, out);
        }
        let declared = match envelope.declared_version() {
            Ok(declared) => declared,
            Err(MetaError::Unsupported(requested)) => {
                return reply(out, Some(id), |s| {
                    write_unsupported_version(s, Some(id), requested)
                })
            }
            Err(e) => return error_line(out, Some(id), ErrorCode::InvalidParams, e.message()),
        };
        match method {
            Method::Ping => match declared {
                Some(Version::V2026_07_28) => error_line(
                    out,
                    Some(id),
                    ErrorCode::MethodNotFound,
                    "Method not found: ping does not exist in 2026-07-28",
                ),
                _ => reply(out, Some(id), |s| {
                    write_result_start(s, id)?;
                    s.put(b"{}}")
                }),
            },
            Method::Discover => match declared {
                Some(v) if !v.is_legacy() => reply(out, Some(id), |s| {
                    write_result_start(s, id)?;
                    self.write_discover_result(s)?;
                    s.put_byte(b'}')
                }),
                Some(_) => error_line(
                    out,
                    Some(id),
                    ErrorCode::MethodNotFound,
                    "Method not found: server/discover exists from 2026-07-28",
                ),
                None => error_line(out, Some(id), ErrorCode::InvalidParams, MISSING_META),
            },
            Method::ToolsList | Method::ToolsCall => {
                let Some(version) = declared.or(self.session) else {
                    return error_line(out, Some(id), ErrorCode::InvalidParams, MISSING_META);
                };
                if method == Method::ToolsList {
                    self.tools_list(id, envelope, version, out)
                } else {
                    self.tools_call(id, envelope, version, out)
                }
            }
            Method::Initialize => None,
        }
    }

    fn initialize(
        &mut self,
        id: RequestId<'_>,
        params: &Envelope<'_>,
        out: &mut [u8],
    ) -> Option<usize> {
        let Some(requested) = params.protocol_version.and_then(|v| v.as_str()) else {
            return error_line(
                out,
                Some(id),
                ErrorCode::InvalidParams,
                "Invalid params: \"protocolVersion\" must be a string",
            );
        };
        let version = Version::negotiate_legacy(Version::from_json(requested));
        self.session = Some(version);
        reply(out, Some(id), |s| {
            write_result_start(s, id)?;
            self.write_initialize_result(s, version)?;
            s.put_byte(b'}')
        })
    }

    fn write_implementation<S: Sink + ?Sized>(
        &self,
        s: &mut S,
        version: Version,
    ) -> Result<(), EncodeError> {
        let info = &self.info;
        s.put(b"{\"name\":")?;
        write_string(s, info.name)?;
        s.put(b",\"version\":")?;
        write_string(s, info.version)?;
        if let Some(title) = info.title {
            s.put(b",\"title\":")?;
            write_string(s, title)?;
        }
        if version != Version::V2025_06_18 {
            if let Some(description) = info.description {
                s.put(b",\"description\":")?;
                write_string(s, description)?;
            }
            if let Some(url) = info.website_url {
                s.put(b",\"websiteUrl\":")?;
                write_string(s, url)?;
            }
        }
        if version.has_icons() {
            write_icons(s, info.icons)?;
        }
        s.put_byte(b'}')
    }

    fn write_instructions<S: Sink + ?Sized>(&self, s: &mut S) -> Result<(), EncodeError> {
        if let Some(instructions) = self.info.instructions {
            s.put(b",\"instructions\":")?;
            write_string(s, instructions)?;
        }
        Ok(())
    }

    fn write_initialize_result<S: Sink + ?Sized>(
        &self,
        s: &mut S,
        version: Version,
    ) -> Result<(), EncodeError> {
        s.put(b"{\"protocolVersion\":")?;
        write_string(s, version.as_str())?;
        s.put(b",\"capabilities\":{\"tools\":{\"listChanged\":false}},\"serverInfo\":")?;
        self.write_implementation(s, version)?;
        self.write_instructions(s)?;
        s.put_byte(b'}')
    }

    fn write_cache_tail<S: Sink + ?Sized>(&self, s: &mut S) -> Result<(), EncodeError> {
        s.put(b",\"ttlMs\":")?;
        write_usize(s, usize::try_from(self.config.ttl_ms).unwrap_or(usize::MAX))?;
        s.put(b",\"cacheScope\":")?;
        write_string(s, self.config.cache_scope.as_str())?;
        s.put(b",\"resultType\":\"complete\"")
    }

    fn write_discover_result<S: Sink + ?Sized>(&self, s: &mut S) -> Result<(), EncodeError> {
        s.put(b"{\"supportedVersions\":")?;
        write_supported_versions(s)?;
        s.put(b",\"capabilities\":{\"tools\":{\"listChanged\":false}},\"_meta\":{")?;
        write_string(s, protocol::SERVER_INFO_KEY)?;
        s.put_byte(b':')?;
        self.write_implementation(s, Version::V2026_07_28)?;
        s.put_byte(b'}')?;
        self.write_instructions(s)?;
        self.write_cache_tail(s)?;
        s.put_byte(b'}')
    }

    /// Writes the end of a `tools/list` result after the last tool: `]`, `nextCursor` when
    /// `next` is set, the 2026 cache members, `}`.
    fn write_list_tail<S: Sink + ?Sized>(
        &self,
        s: &mut S,
        version: Version,
        next: Option<u16>,
    ) -> Result<(), EncodeError> {
        s.put_byte(b']')?;
        if let Some(next) = next {
            s.put(b",\"nextCursor\":\"")?;
            s.put(&encode_cursor(self.salt, next))?;
            s.put_byte(b'"')?;
        }
        if !version.is_legacy() {
            self.write_cache_tail(s)?;
        }
        s.put_byte(b'}')
    }

    fn tools_list(
        &mut self,
        id: RequestId<'_>,
        params: &Envelope<'_>,
        version: Version,
        out: &mut [u8],
    ) -> Option<usize> {
        let start = match params.cursor {
            None => 0,
            Some(cursor) => match cursor
                .as_str()
                .and_then(|c| decode_cursor(self.salt, TOOLS, c))
            {
                Some(start) => start,
                None => {
                    return error_line(out, Some(id), ErrorCode::InvalidParams, "Invalid cursor")
                }
            },
        };
        let budget = self.config.page_bytes.min(out.len());
        let tail = |next: bool| {
            let mut c = CountingSink::default();
            // A cursor is always the same length, so any index measures it.
            let _ = self.write_list_tail(&mut c, version, next.then_some(1));
            c.count + 2 // `}` closing the response and LF
        };
        let (with_cursor, without_cursor) = (tail(true), tail(false));
        let mut sink = SliceSink::new(out.get_mut(..budget).unwrap_or_default());
        let head = write_result_start(&mut sink, id).and_then(|()| sink.put(b"{\"tools\":["));
        if head.is_err() {
            return fallback(out, Some(id));
        }
        let mut next = None;
        for (index, tool) in self.tools.iter().enumerate().skip(start) {
            let object = self.object_output.get(index).copied().unwrap_or(false);
            let mut c = CountingSink::default();
            let _ = write_tool(&mut c, tool, version, object);
            let comma = usize::from(index > start);
            let reserve = if index + 1 < TOOLS {
                with_cursor
            } else {
                without_cursor
            };
            if sink.len() + comma + c.count + reserve > budget {
                if index == start {
                    // Cannot happen with an output buffer of `required_output_len` bytes.
                    return fallback(out, Some(id));
                }
                next = u16::try_from(index).ok();
                break;
            }
            let written = if comma == 1 {
                sink.put_byte(b',')
            } else {
                Ok(())
            };
            if written
                .and_then(|()| write_tool(&mut sink, tool, version, object))
                .is_err()
            {
                return fallback(out, Some(id));
            }
        }
        let done = self
            .write_list_tail(&mut sink, version, next)
            .and_then(|()| sink.put(b"}\n"));
        match done.and_then(|()| sink.finish()) {
            Ok(n) => Some(n),
            Err(_) => fallback(out, Some(id)),
        }
    }
}

const MISSING_META: &str = "Invalid params: _meta[\"io.modelcontextprotocol/protocolVersion\"] and [\"io.modelcontextprotocol/clientCapabilities\"] are required (or send initialize first)";

impl<H: Handler, const TOOLS: usize> Server<'_, H, TOOLS> {
    /// Serves requests from a blocking stream until it ends (`Ok`) or fails.
    ///
    /// Each request line is answered, in order, with one response line written to `writer`
    /// and flushed; `out` holds a response while it is written (at least
    /// [`Server::required_output_len`] bytes).
    pub fn serve<R: embedded_io::Read, W: embedded_io::Write, const N: usize>(
        &mut self,
        reader: &mut LineReader<R, N>,
        writer: &mut W,
        out: &mut [u8],
    ) -> Result<(), ServeError<R::Error, W::Error>> {
        loop {
            let Some(frame) = reader.next_frame().map_err(ServeError::Read)? else {
                return Ok(());
            };
            if let Some(n) = self.handle_frame(frame, out) {
                let message = out.get(..n).unwrap_or_default();
                crate::transport::write_message(writer, message).map_err(ServeError::Write)?;
            }
        }
    }

    /// Serves requests from an async stream until it ends (`Ok`) or fails; see
    /// [`Server::serve`].
    pub async fn serve_async<
        R: embedded_io_async::Read,
        W: embedded_io_async::Write,
        const N: usize,
    >(
        &mut self,
        reader: &mut LineReader<R, N>,
        writer: &mut W,
        out: &mut [u8],
    ) -> Result<(), ServeError<R::Error, W::Error>> {
        loop {
            let Some(frame) = reader.next_frame_async().await.map_err(ServeError::Read)? else {
                return Ok(());
            };
            if let Some(n) = self.handle_frame(frame, out) {
                let message = out.get(..n).unwrap_or_default();
                crate::transport::write_message_async(writer, message)
                    .await
                    .map_err(ServeError::Write)?;
            }
        }
    }
}

#[cfg(test)]
mod tests;
