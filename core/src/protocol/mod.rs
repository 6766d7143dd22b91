//! The JSON-RPC 2.0 and MCP protocol layer: checked views of incoming messages, response
//! writers and version negotiation. No state lives here; the engine in `server` holds it.
//!
//! - [`Envelope::parse`]: checks a line and finds the members the engine reads in one pass.
//! - [`Message::classify`]: request / notification / response / invalid, from a
//!   [`json::Value`](crate::json::Value). Ids ([`RequestId`]) are strings or integers, kept as
//!   their exact text so responses echo them byte for byte; `null` is refused.
//! - [`write_result_start`], [`write_error`], [`write_unsupported_version`]: compact response
//!   writers into any [`Sink`](crate::json::Sink); an error whose id could not be read omits `id`.
//! - [`Version`]: the revisions served (2025-06-18, 2025-11-25 by `initialize`; 2026-07-28 by
//!   per-request `_meta`, read by [`declared_version`]).
//! - [`write_progress`], [`write_log`]: the notifications sent while a request runs;
//!   [`LogLevel`]: their severities.

mod envelope;
mod error;
mod level;
mod message;
mod meta;
mod notification;
mod response;
mod version;

pub(crate) use envelope::parse_value;
pub use envelope::Envelope;
pub use error::ErrorCode;
pub use level::LogLevel;
pub use message::{Invalid, InvalidReason, Message, RequestId};
pub use meta::{
    declared_version, MetaError, CLIENT_CAPABILITIES_KEY, LEAN_KEY, LOG_LEVEL_KEY,
    PROGRESS_TOKEN_KEY, PROTOCOL_VERSION_KEY, SERVER_INFO_KEY,
};
pub use notification::{write_log, write_log_json, write_progress};
pub(crate) use response::{code_text, SUPPORTED_VERSIONS, UNSUPPORTED_VERSION_MESSAGE};
pub use response::{
    write_error, write_error_start, write_missing_capability, write_missing_elicitation,
    write_result_start, write_supported_versions, write_unsupported_version, MAX_REQUESTED_ECHO,
};
pub use version::Version;
