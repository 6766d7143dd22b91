//! The handshake: legacy `initialize`, 2026 `server/discover`, and the implementation info
//! (`serverInfo`, `instructions`) both send.

use crate::json::{EncodeError, Sink};
use crate::protocol::{
    write_result_start, write_supported_versions, Envelope, ErrorCode, RequestId, Version,
};

use super::list::{member_opt, member_str, write_icons};
use super::reply::{error_line, reply};
use super::Server;

/// What `server/discover` writes after `supportedVersions`, up to `serverInfo`'s value.
pub(super) const DISCOVER_CAPABILITIES_META: &[u8] = b",\"capabilities\":{\"tools\":{\"listChanged\":false},\"logging\":{}},\"_meta\":{\"io.modelcontextprotocol/serverInfo\":";

/// What `initialize` writes after `protocolVersion`, up to `serverInfo`'s value.
pub(super) const INITIALIZE_CAPABILITIES: &[u8] =
    b",\"capabilities\":{\"tools\":{\"listChanged\":false},\"logging\":{}},\"serverInfo\":";

impl<H, const TOOLS: usize> Server<'_, H, TOOLS> {
    /// Answers `initialize`: negotiates the stream's legacy revision and remembers it.
    pub(super) fn initialize(
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
        self.log_level = self.config.log_level;
        reply(out, Some(id), |s| {
            write_result_start(s, id)?;
            self.write_initialize_result(s, version)?;
            s.put_byte(b'}')
        })
    }

    /// Answers `server/discover` (2026-07-28).
    pub(super) fn discover(&self, id: RequestId<'_>, out: &mut [u8]) -> Option<usize> {
        reply(out, Some(id), |s| {
            write_result_start(s, id)?;
            self.write_discover_result(s)?;
            s.put_byte(b'}')
        })
    }

    /// Writes the `Implementation` object (`serverInfo`) as `version` shows it.
    fn write_implementation(&self, s: &mut dyn Sink, version: Version) -> Result<(), EncodeError> {
        let info = &self.info;
        member_str(s, b"{\"name\":", info.name)?;
        member_str(s, b",\"version\":", info.version)?;
        member_opt(s, b",\"title\":", info.title)?;
        if version != Version::V2025_06_18 {
            member_opt(s, b",\"description\":", info.description)?;
            member_opt(s, b",\"websiteUrl\":", info.website_url)?;
        }
        if version.has_icons() {
            write_icons(s, info.icons)?;
        }
        s.put_byte(b'}')
    }

    /// Writes `,"instructions":…` when the server has instructions.
    fn write_instructions(&self, s: &mut dyn Sink) -> Result<(), EncodeError> {
        member_opt(s, b",\"instructions\":", self.info.instructions)
    }

    /// Writes the `initialize` result object for `version`.
    // Out of line, as `write_discover_result`: one copy however many callers inline around it.
    #[inline(never)]
    pub(super) fn write_initialize_result(
        &self,
        s: &mut dyn Sink,
        version: Version,
    ) -> Result<(), EncodeError> {
        member_str(s, b"{\"protocolVersion\":", version.as_str())?;
        s.put(INITIALIZE_CAPABILITIES)?;
        self.write_implementation(s, version)?;
        self.write_instructions(s)?;
        s.put_byte(b'}')
    }

    /// Writes the `server/discover` result object.
    #[inline(never)]
    pub(super) fn write_discover_result(&self, s: &mut dyn Sink) -> Result<(), EncodeError> {
        s.put(b"{\"supportedVersions\":")?;
        write_supported_versions(s)?;
        // `_meta`'s key is `protocol::SERVER_INFO_KEY` (a unit test compares them).
        s.put(DISCOVER_CAPABILITIES_META)?;
        self.write_implementation(s, Version::V2026_07_28)?;
        s.put_byte(b'}')?;
        self.write_instructions(s)?;
        self.config.write_cache_tail(s)?;
        s.put_byte(b'}')
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn discover_meta_key_is_server_info_key() {
        let key = std::format!("\"_meta\":{{\"{}\":", crate::protocol::SERVER_INFO_KEY);
        let head = core::str::from_utf8(super::DISCOVER_CAPABILITIES_META).unwrap();
        assert!(head.ends_with(&key), "{head}");
    }
}
