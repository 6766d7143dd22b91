//! The 2026-07-28 per-request `_meta`: which protocol version a request speaks.

use crate::json::{JsonStr, Kind, Value};

use super::Version;

/// `_meta` key naming the request's protocol version (2026-07-28).
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key holding the client's capabilities for this request (2026-07-28).
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the log level a request asks for (2026-07-28; absent: no log messages).
pub const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of the token progress notifications echo (every revision).
pub const PROGRESS_TOKEN_KEY: &str = "progressToken";
/// This project's `_meta` key marking a request of a bridge's lean hop (value `true`): a
/// structured `tools/call` result goes without its text twin (see
/// [`crate::result::drop_text_twin`]), and an empty `clientCapabilities` may be left out.
pub const LEAN_KEY: &str = "embedded-mcp/lean";
/// Result `_meta` key identifying the server (2026-07-28).
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// What is wrong with a request's `_meta` protocol information.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum MetaError<'a> {
    /// The protocol version is not a string (-32602).
    VersionNotString,
    /// The version is not one this server speaks (-32022); the raw, still escaped string body.
    Unsupported(&'a str),
    /// The version is there but `clientCapabilities` is missing or not an object (-32602).
    MissingCapabilities,
}

impl MetaError<'_> {
    /// A short message for the error response.
    pub const fn message(&self) -> &'static str {
        match self {
            Self::VersionNotString => {
                "Invalid params: _meta[\"io.modelcontextprotocol/protocolVersion\"] must be a string"
            }
            Self::Unsupported(_) => "Unsupported protocol version",
            Self::MissingCapabilities => {
                "Invalid params: _meta[\"io.modelcontextprotocol/clientCapabilities\"] is required"
            }
        }
    }
}

/// The protocol version a request declares in its `params._meta` object (pass `None` when the
/// request has no `_meta`), if it declares one.
///
/// `Ok(None)`: no declaration (the stream's legacy handshake applies). `Ok(Some(v))`: the request
/// is answered with the semantics of `v`. A declared version requires `clientCapabilities`.
pub fn declared_version<'a>(meta: Option<Value<'a>>) -> Result<Option<Version>, MetaError<'a>> {
    let Some(meta) = meta else {
        return Ok(None);
    };
    let (mut version, mut caps) = (None, None);
    for (key, value) in meta.members().into_iter().flatten() {
        if key.eq_str(PROTOCOL_VERSION_KEY) {
            version = version.or(Some(value));
        } else if key.eq_str(CLIENT_CAPABILITIES_KEY) {
            caps = caps.or(Some(value));
        }
    }
    declared_from(version, caps)
}

/// [`declared_version`] from the two `_meta` members (the first of each name).
pub(crate) fn declared_from<'a>(
    version: Option<Value<'a>>,
    caps: Option<Value<'a>>,
) -> Result<Option<Version>, MetaError<'a>> {
    let Some(version) = version else {
        return Ok(None);
    };
    let text: JsonStr<'a> = version.as_str().ok_or(MetaError::VersionNotString)?;
    let version = Version::from_json(text).ok_or(MetaError::Unsupported(text.raw()))?;
    match caps {
        Some(caps) if caps.kind() == Kind::Object => Ok(Some(version)),
        _ => Err(MetaError::MissingCapabilities),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(params: &str) -> Result<Option<Version>, MetaError<'_>> {
        declared_version(Value::parse(params.as_bytes()).unwrap().get("_meta"))
    }

    #[test]
    fn declarations() {
        assert_eq!(declared("{}"), Ok(None));
        assert_eq!(declared(r#"{"_meta":{"progressToken":1}}"#), Ok(None));
        assert_eq!(
            declared(
                r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#
            ),
            Ok(Some(Version::V2026_07_28))
        );
        assert_eq!(
            declared(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#),
            Err(MetaError::MissingCapabilities)
        );
        assert_eq!(
            declared(
                r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}"#
            ),
            Err(MetaError::Unsupported("1900-01-01"))
        );
        assert_eq!(
            declared(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":5}}"#),
            Err(MetaError::VersionNotString)
        );
    }
}
