//! Writers of the notifications a server sends while a request runs (compact JSON, no line
//! feed: framing adds it).

use serde::Serialize;

use crate::json::{write_string, write_u64, EncodeError, Serde, Sink, ToJson};

use super::LogLevel;

/// Writes `notifications/progress` echoing `token` (the request's `_meta.progressToken`, its
/// raw JSON text), with `progress`, and `total` and `message` when given.
pub fn write_progress(
    sink: &mut dyn Sink,
    token: &str,
    progress: u64,
    total: Option<u64>,
    message: Option<&str>,
) -> Result<(), EncodeError> {
    sink.put(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":")?;
    sink.put(token.as_bytes())?;
    sink.put(b",\"progress\":")?;
    write_u64(sink, progress)?;
    if let Some(total) = total {
        sink.put(b",\"total\":")?;
        write_u64(sink, total)?;
    }
    if let Some(message) = message {
        sink.put(b",\"message\":")?;
        write_string(sink, message)?;
    }
    sink.put(b"}}")
}

/// Writes `notifications/message` with `level`, `logger` when given, and `data` serialised
/// as JSON.
pub fn write_log<S: Sink + ?Sized, T: Serialize + ?Sized>(
    mut sink: &mut S,
    level: LogLevel,
    logger: Option<&str>,
    data: &T,
) -> Result<(), EncodeError> {
    write_log_json(&mut sink, level, logger, &Serde(data))
}

/// [`write_log`] for data that writes its own JSON ([`ToJson`]).
pub fn write_log_json(
    sink: &mut dyn Sink,
    level: LogLevel,
    logger: Option<&str>,
    data: &dyn ToJson,
) -> Result<(), EncodeError> {
    sink.put(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":")?;
    write_string(sink, level.as_str())?;
    if let Some(logger) = logger {
        sink.put(b",\"logger\":")?;
        write_string(sink, logger)?;
    }
    sink.put(b",\"data\":")?;
    data.to_json(sink)?;
    sink.put(b"}}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::SliceSink;

    fn text(f: impl FnOnce(&mut SliceSink<'_>) -> Result<(), EncodeError>) -> std::string::String {
        let mut buf = [0u8; 256];
        let mut sink = SliceSink::new(&mut buf);
        f(&mut sink).unwrap();
        let n = sink.finish().unwrap();
        std::string::String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    #[test]
    fn progress_lines() {
        assert_eq!(
            text(|s| write_progress(s, "\"t-1\"", 2, Some(5), Some("a \"b\""))),
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t-1","progress":2,"total":5,"message":"a \"b\""}}"#
        );
        assert_eq!(
            text(|s| write_progress(s, "7", 0, None, None)),
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":0}}"#
        );
    }

    #[test]
    fn log_lines() {
        assert_eq!(
            text(|s| write_log(s, LogLevel::Warning, Some("temp"), &[1.5f32, 2.0])),
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"temp","data":[1.5,2.0]}}"#
        );
        assert_eq!(
            text(|s| write_log(s, LogLevel::Info, None, "hi")),
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#
        );
    }
}
