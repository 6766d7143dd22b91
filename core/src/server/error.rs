//! Errors of server construction and of the serve loops.

use core::fmt;

use crate::json::DecodeError;
use crate::schema::CompileError;
use crate::transport::WriteError;

use super::tool::StaticError;

/// Which schema of a tool an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SchemaRole {
    /// `inputSchema`.
    Input,
    /// `outputSchema`.
    Output,
}

impl fmt::Display for SchemaRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Input => "inputSchema",
            Self::Output => "outputSchema",
        })
    }
}

/// A tool or server definition that cannot be served. Found by
/// [`Server::new`](super::Server::new), which then refuses to build the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum DefinitionError {
    /// A name or icon rule is broken (see [`Tool::check_static`](super::Tool::check_static)).
    Static {
        /// Index of the tool.
        tool: usize,
        /// The rule broken.
        error: StaticError,
    },
    /// Two tools have the same name.
    DuplicateName {
        /// Index of the second tool with the name.
        tool: usize,
        /// Index of the first.
        first: usize,
    },
    /// A schema is not valid JSON.
    SchemaNotJson {
        /// Index of the tool.
        tool: usize,
        /// Which schema.
        role: SchemaRole,
        /// Where the JSON is broken.
        error: DecodeError,
    },
    /// A schema is not a JSON object, or an `inputSchema` whose root `type` is not `"object"`.
    SchemaNotObject {
        /// Index of the tool.
        tool: usize,
        /// Which schema.
        role: SchemaRole,
    },
    /// A schema uses what the compiled validator cannot honour, or does not fit the storage.
    SchemaRefused {
        /// Index of the tool.
        tool: usize,
        /// Which schema.
        role: SchemaRole,
        /// The compiler's reason (keyword and JSON Pointer).
        error: CompileError,
    },
    /// A precompiled [`ToolSchemas`](super::ToolSchemas) has an output program exactly when
    /// the tool has no `outputSchema`, or the reverse.
    ProgramMismatch {
        /// Index of the tool.
        tool: usize,
    },
    /// `_meta` is not a JSON object.
    MetaNotObject {
        /// Index of the tool.
        tool: usize,
    },
    /// A server icon has a `src` that is neither `https:` nor `data:`.
    ServerIconScheme {
        /// Index of the icon.
        icon: usize,
    },
    /// More tools than a cursor can address (65 535).
    TooManyTools,
}

impl fmt::Display for DefinitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Static { tool, error } => write!(f, "tool {tool}: {error}"),
            Self::DuplicateName { tool, first } => {
                write!(f, "tool {tool}: name already used by tool {first}")
            }
            Self::SchemaNotJson { tool, role, error } => {
                write!(f, "tool {tool}: {role} is not valid JSON: {error}")
            }
            Self::SchemaNotObject {
                tool,
                role: SchemaRole::Input,
            } => write!(
                f,
                "tool {tool}: inputSchema must be a JSON object with \"type\": \"object\""
            ),
            Self::SchemaNotObject { tool, role } => {
                write!(f, "tool {tool}: {role} must be a JSON object")
            }
            Self::SchemaRefused { tool, role, error } => {
                write!(f, "tool {tool}: {role} refused: {error}")
            }
            Self::ProgramMismatch { tool } => write!(
                f,
                "tool {tool}: the precompiled output program does not match the outputSchema"
            ),
            Self::MetaNotObject { tool } => write!(f, "tool {tool}: _meta must be a JSON object"),
            Self::ServerIconScheme { icon } => {
                write!(
                    f,
                    "server icon {icon}: src must be an https: URL or a data: URI"
                )
            }
            Self::TooManyTools => f.write_str("more than 65535 tools"),
        }
    }
}

impl core::error::Error for DefinitionError {}

/// Why a serve loop stopped (it also stops, with `Ok`, at end of stream).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ServeError<R, W> {
    /// Reading failed.
    Read(R),
    /// Writing a response failed.
    Write(W),
    /// The stream accepted no bytes of a response (`write` returned `Ok(0)`).
    WriteZero,
}

impl<R, W> From<WriteError<W>> for ServeError<R, W> {
    fn from(e: WriteError<W>) -> Self {
        match e {
            WriteError::Io(e) => Self::Write(e),
            WriteError::Zero => Self::WriteZero,
        }
    }
}

impl<R: fmt::Display, W: fmt::Display> fmt::Display for ServeError<R, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Read(e) => write!(f, "reading a request failed: {e}"),
            Self::Write(e) => write!(f, "writing a response failed: {e}"),
            Self::WriteZero => {
                f.write_str("writing a response failed: the stream accepted no bytes")
            }
        }
    }
}

impl<R: fmt::Debug + fmt::Display, W: fmt::Debug + fmt::Display> core::error::Error
    for ServeError<R, W>
{
}
