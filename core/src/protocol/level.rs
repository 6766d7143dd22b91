//! Log severities (RFC 5424, as MCP names them) and their wire names.

use crate::json::JsonStr;

/// The severity of a log message, least to most severe. A threshold admits itself and every
/// more severe level (`Ord` follows severity).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LogLevel {
    /// `debug`
    Debug,
    /// `info`
    Info,
    /// `notice`
    Notice,
    /// `warning`
    Warning,
    /// `error`
    Error,
    /// `critical`
    Critical,
    /// `alert`
    Alert,
    /// `emergency`
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        Self::Debug,
        Self::Info,
        Self::Notice,
        Self::Warning,
        Self::Error,
        Self::Critical,
        Self::Alert,
        Self::Emergency,
    ];

    /// The wire name (`"warning"`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Notice => "notice",
            Self::Warning => "warning",
            Self::Error => "error",
            Self::Critical => "critical",
            Self::Alert => "alert",
            Self::Emergency => "emergency",
        }
    }

    /// The level a JSON string names, if it names one.
    pub fn from_json(name: JsonStr<'_>) -> Option<Self> {
        Self::ALL.into_iter().find(|l| name.eq_str(l.as_str()))
    }

    /// The level a name (`"warning"`, ...) names, if it names one.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.as_str() == name)
    }

    /// Its place in severity order: 1 for `debug` up to 8 for `emergency` (0 is free for
    /// "no level", as a threshold stored in one byte needs).
    pub const fn rank(self) -> u8 {
        match self {
            Self::Debug => 1,
            Self::Info => 2,
            Self::Notice => 3,
            Self::Warning => 4,
            Self::Error => 5,
            Self::Critical => 6,
            Self::Alert => 7,
            Self::Emergency => 8,
        }
    }

    /// True when a message at `self` passes the threshold `threshold`.
    pub fn admitted_by(self, threshold: LogLevel) -> bool {
        self >= threshold
    }
}

impl core::fmt::Display for LogLevel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::LogLevel;

    #[test]
    fn names_and_ranks_follow_severity() {
        assert_eq!(LogLevel::from_name("debug"), Some(LogLevel::Debug));
        assert_eq!(
            LogLevel::from_name("emergency").map(LogLevel::rank),
            Some(8)
        );
        assert_eq!(LogLevel::from_name("loud"), None);
        assert_eq!(LogLevel::from_name("Warning"), None);
        for pair in LogLevel::ALL.windows(2) {
            assert!(pair[0] < pair[1] && pair[0].rank() + 1 == pair[1].rank());
            assert_eq!(LogLevel::from_name(pair[1].as_str()), Some(pair[1]));
        }
        assert_eq!(LogLevel::Debug.rank(), 1);
    }
}
