//! The [`Server`] value: what it holds, how it is built from checked definitions, and what it
//! tells about itself.

use core::fmt;

use crate::json::{self, CountingSink, EncodeError, Sink};
use crate::protocol::{self, write_error, write_unsupported_version, ErrorCode, LogLevel, Version};

use super::cursor;
use super::definitions::check_definitions;
use super::list::write_tool;
use super::reply::RESPONSE_TOO_LARGE;
use super::schema_storage::{compile_all, Checks, Validator};
use super::{
    Config, DefinitionError, SchemaStorage, ServerInfo, Stats, Tool, ToolSchemas, MAX_ID_LEN,
};

/// The MCP server: `TOOLS` static tools and a handler `H`.
///
/// The tool count is the array length, so it is fixed at compile time; it must be at most
/// 65 535 (the cursor's index field). Per-stream state is one `Option<Version>`: the revision a
/// legacy `initialize` negotiated.
pub struct Server<'a, H, const TOOLS: usize> {
    /// Who the server is (`serverInfo`, `instructions`).
    pub(super) info: ServerInfo,
    /// The tools, in listing order.
    pub(super) tools: &'a [Tool; TOOLS],
    /// Per tool: the output schema's root `type` is `"object"`.
    pub(super) object_output: [bool; TOOLS],
    /// The compiled schemas of every tool.
    pub(super) checks: Checks<'a, TOOLS>,
    /// The firmware's tool handler.
    pub(super) handler: H,
    /// The tunables (`max_depth` clamped to the JSON layer's limit).
    pub(super) config: Config,
    /// The revision a legacy `initialize` negotiated on this stream.
    pub(super) session: Option<Version>,
    /// The legacy stream's log level (`logging/setLevel`, or [`Config::log_level`]).
    pub(super) log_level: Option<LogLevel>,
    /// Hash of the tool names that salts `tools/list` cursors.
    pub(super) salt: u32,
    /// Counters of what the engine has seen.
    pub(super) stats: Stats,
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

impl<'a, H, const TOOLS: usize> Server<'a, H, TOOLS> {
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
        let checks = Checks {
            schemas,
            validator: Validator::full(),
        };
        Ok(Self::build(
            info,
            tools,
            object_output,
            checks,
            handler,
            config,
        ))
    }

    /// Checks every definition and builds the server with schemas compiled beforehand (for
    /// example loaded from flash with [`Program::from_postcard`](crate::schema::Program::from_postcard)).
    /// `programs[i]` must be the compiled schemas of `tools[i]`: only the presence of the
    /// output program can be checked here.
    pub fn with_programs(
        info: ServerInfo,
        tools: &'a [Tool; TOOLS],
        programs: [ToolSchemas<'a>; TOOLS],
        handler: H,
        config: Config,
    ) -> Result<Self, DefinitionError> {
        let validator = Validator::full();
        Self::with_programs_run_by(info, tools, programs, handler, config, validator)
    }

    /// [`Server::with_programs`] with the evaluator that runs the programs.
    pub(super) fn with_programs_run_by(
        info: ServerInfo,
        tools: &'a [Tool; TOOLS],
        programs: [ToolSchemas<'a>; TOOLS],
        handler: H,
        config: Config,
        validator: Validator,
    ) -> Result<Self, DefinitionError> {
        let object_output = check_definitions(&info, tools)?;
        for (tool, (definition, program)) in tools.iter().zip(&programs).enumerate() {
            if definition.output_schema.is_some() != program.output.is_some() {
                return Err(DefinitionError::ProgramMismatch { tool });
            }
        }
        let checks = Checks {
            schemas: programs.map(Some),
            validator,
        };
        Ok(Self::build(
            info,
            tools,
            object_output,
            checks,
            handler,
            config,
        ))
    }

    pub(super) fn build(
        info: ServerInfo,
        tools: &'a [Tool; TOOLS],
        object_output: [bool; TOOLS],
        checks: Checks<'a, TOOLS>,
        handler: H,
        config: Config,
    ) -> Self {
        let log_level = config.log_level;
        // Built as the return value, not mutated after: no copy of the whole server.
        Self {
            info,
            tools,
            object_output,
            checks,
            handler,
            config: Config {
                max_depth: config.max_depth.min(json::MAX_DEPTH_LIMIT),
                ..config
            },
            session: None,
            log_level,
            salt: cursor::salt(tools),
            stats: Stats::default(),
        }
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

    /// Forgets the stream's handshake and log level (for example when the host reconnects).
    pub fn reset_session(&mut self) {
        self.session = None;
        self.log_level = self.config.log_level;
    }

    /// The legacy stream's log level: what `logging/setLevel` set, or
    /// [`Config::log_level`].
    pub fn log_level(&self) -> Option<LogLevel> {
        self.log_level
    }

    /// The smallest output buffer with which every response fits, except a tool result larger
    /// than the buffer (which becomes an `isError` result saying how much it needed): the
    /// largest of the `initialize` and `server/discover` results, a `tools/list` page holding
    /// the largest tool, and the longest error, each with an id of [`MAX_ID_LEN`] bytes.
    ///
    /// Measured on each call (from what the server holds, which does not change). The same
    /// figure is known while compiling: [`output_len`](super::output_len) and
    /// [`output_len_of`](super::output_len_of), which a firmware uses instead.
    pub fn required_output_len(&self) -> usize {
        let mut largest = 0usize;
        for version in Version::ALL {
            largest = largest.max(written_len(|s| {
                if version.is_legacy() {
                    self.write_initialize_result(s, version)
                } else {
                    self.write_discover_result(s)
                }
            }));
            for (index, tool) in self.tools.iter().enumerate() {
                let object = self.object_output.get(index).copied().unwrap_or(false);
                largest = largest.max(written_len(|s| {
                    s.put(b"{\"tools\":[")?;
                    write_tool(s, tool, version, object)?;
                    self.write_list_tail(s, version, Some(1))
                }));
            }
        }
        // The longest error: -32022 echoing the longest requested version it echoes (its
        // text is put as it is, once: measured without it, plus its longest length).
        largest = largest.max(
            written_len(|s| write_unsupported_version(s, None, ""))
                .saturating_add(protocol::MAX_REQUESTED_ECHO),
        );
        largest = largest.max(written_len(|s| {
            write_error(s, None, ErrorCode::InternalError, RESPONSE_TOO_LARGE)
        }));
        // Envelope: `{"jsonrpc":"2.0","id":` ID `,"result":` ... `}` LF.
        largest.saturating_add(36).saturating_add(MAX_ID_LEN)
    }
}

/// The number of bytes `f` writes (0 when it fails).
fn written_len(f: impl FnOnce(&mut dyn Sink) -> Result<(), EncodeError>) -> usize {
    let mut count = CountingSink::default();
    match f(&mut count) {
        Ok(()) => count.count,
        Err(_) => 0,
    }
}
