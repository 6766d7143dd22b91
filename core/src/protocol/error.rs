//! JSON-RPC and MCP error codes.

/// The error codes this server sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ErrorCode {
    /// -32700: the line is not JSON. Defined for completeness: the engine drops such lines
    /// silently instead of answering them (see the `server` module).
    ParseError,
    /// -32600: JSON, but not a valid request.
    InvalidRequest,
    /// -32601: no such method.
    MethodNotFound,
    /// -32602: invalid params (also: unknown tool, bad cursor, missing 2026 `_meta`).
    InvalidParams,
    /// -32603: the server failed (for example a response larger than its buffer).
    InternalError,
    /// -32022: the `_meta` protocol version is not supported (2026-07-28).
    UnsupportedProtocolVersion,
    /// -32021: the request needs a client capability it did not declare (2026-07-28).
    MissingClientCapability,
}

impl ErrorCode {
    /// The numeric code.
    pub const fn code(self) -> i32 {
        match self {
            Self::ParseError => -32700,
            Self::InvalidRequest => -32600,
            Self::MethodNotFound => -32601,
            Self::InvalidParams => -32602,
            Self::InternalError => -32603,
            Self::UnsupportedProtocolVersion => -32022,
            Self::MissingClientCapability => -32021,
        }
    }
}
