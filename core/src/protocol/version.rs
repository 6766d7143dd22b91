//! MCP protocol revisions and their negotiation.

use crate::json::JsonStr;

/// A revision of the MCP specification this server speaks.
///
/// `2025-03-26` is deliberately absent: it requires JSON-RPC batches, which this server does not
/// accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Version {
    /// `2025-06-18`: legacy handshake (`initialize`), object-only `structuredContent`.
    V2025_06_18,
    /// `2025-11-25`: legacy handshake, adds icons and id-less error responses.
    V2025_11_25,
    /// `2026-07-28`: no handshake, per-request `_meta`, `resultType`, any JSON output.
    V2026_07_28,
}

impl Version {
    /// Every supported revision, newest first (the order of `supported` lists on the wire).
    pub const ALL: [Version; 3] = [
        Version::V2026_07_28,
        Version::V2025_11_25,
        Version::V2025_06_18,
    ];

    /// The newest revision negotiated by the legacy `initialize` handshake.
    pub const LATEST_LEGACY: Version = Version::V2025_11_25;

    /// The version string (`"2025-06-18"`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            Version::V2025_06_18 => "2025-06-18",
            Version::V2025_11_25 => "2025-11-25",
            Version::V2026_07_28 => "2026-07-28",
        }
    }

    /// The revision named by `s`, if supported.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// The revision named by a JSON string (escapes allowed), if supported.
    pub fn from_json(s: JsonStr<'_>) -> Option<Self> {
        Self::ALL.into_iter().find(|v| s.eq_str(v.as_str()))
    }

    /// True for the revisions that use the `initialize` handshake (before 2026-07-28).
    pub const fn is_legacy(self) -> bool {
        !matches!(self, Version::V2026_07_28)
    }

    /// The answer to a legacy `initialize` that asked for `requested`: the same revision if it
    /// is a supported legacy one, else [`Version::LATEST_LEGACY`].
    pub fn negotiate_legacy(requested: Option<Version>) -> Version {
        match requested {
            Some(v) if v.is_legacy() => v,
            _ => Self::LATEST_LEGACY,
        }
    }

    /// True when the revision knows `Tool.icons` and `Implementation.icons`.
    pub const fn has_icons(self) -> bool {
        !matches!(self, Version::V2025_06_18)
    }
}

impl core::fmt::Display for Version {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Value;

    #[test]
    fn parse_and_negotiate() {
        assert_eq!(Version::parse("2025-06-18"), Some(Version::V2025_06_18));
        assert_eq!(Version::parse("2025-03-26"), None);
        let v = Value::parse(br#""2026\u002d07-28""#).unwrap();
        assert_eq!(
            Version::from_json(v.as_str().unwrap()),
            Some(Version::V2026_07_28)
        );
        assert_eq!(
            Version::negotiate_legacy(Some(Version::V2025_06_18)),
            Version::V2025_06_18
        );
        assert_eq!(
            Version::negotiate_legacy(Some(Version::V2026_07_28)),
            Version::V2025_11_25
        );
        assert_eq!(Version::negotiate_legacy(None), Version::V2025_11_25);
    }
}
