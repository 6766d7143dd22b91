//! Writers of JSON-RPC responses (compact JSON, no line feed: framing adds it).

use crate::json::{write_string, EncodeError, Sink};

use super::{ErrorCode, RequestId};

/// Writes `{"jsonrpc":"2.0","id":ID,"result":` — the result value and `}` follow.
pub fn write_result_start(sink: &mut dyn Sink, id: RequestId<'_>) -> Result<(), EncodeError> {
    sink.put(b"{\"jsonrpc\":\"2.0\",\"id\":")?;
    sink.put(id.raw().as_bytes())?;
    sink.put(b",\"result\":")
}

/// Writes `{"jsonrpc":"2.0","id":ID,"error":{"code":C,"message":"M"` — an optional `,"data":...`
/// and `}}` follow. Without an id (it could not be read) the `id` member is omitted, as
/// 2025-11-25 and later allow.
pub fn write_error_start(
    sink: &mut dyn Sink,
    id: Option<RequestId<'_>>,
    code: ErrorCode,
    message: &str,
) -> Result<(), EncodeError> {
    write_error_code(sink, id, code)?;
    sink.put(b",\"message\":")?;
    write_string(sink, message)
}

/// Writes `{"jsonrpc":"2.0","id":ID,"error":{"code":C` (the id omitted when `None`).
fn write_error_code(
    sink: &mut dyn Sink,
    id: Option<RequestId<'_>>,
    code: ErrorCode,
) -> Result<(), EncodeError> {
    match id {
        Some(id) => {
            sink.put(b"{\"jsonrpc\":\"2.0\",\"id\":")?;
            sink.put(id.raw().as_bytes())?;
            sink.put(b",\"error\":{\"code\":")?;
        }
        None => sink.put(b"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":")?,
    }
    sink.put(code_text(code).as_bytes())
}

/// The JSON text of `code` (what writing [`ErrorCode::code`] as a number gives; a unit test
/// compares them).
pub(crate) const fn code_text(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::ParseError => "-32700",
        ErrorCode::InvalidRequest => "-32600",
        ErrorCode::MethodNotFound => "-32601",
        ErrorCode::InvalidParams => "-32602",
        ErrorCode::InternalError => "-32603",
        ErrorCode::UnsupportedProtocolVersion => "-32022",
        ErrorCode::MissingClientCapability => "-32021",
    }
}

/// Writes a complete error response without `data`.
pub fn write_error(
    sink: &mut dyn Sink,
    id: Option<RequestId<'_>>,
    code: ErrorCode,
    message: &str,
) -> Result<(), EncodeError> {
    write_error_start(sink, id, code, message)?;
    sink.put(b"}}")
}

/// The message of the -32022 error.
pub(crate) const UNSUPPORTED_VERSION_MESSAGE: &str = "Unsupported protocol version";

/// Writes the complete -32021 response of a request that needs a form filled in and did not
/// declare `elicitation`: `data.requiredCapabilities` is `{"elicitation":{"form":{}}}`.
pub fn write_missing_elicitation(
    sink: &mut dyn Sink,
    id: Option<RequestId<'_>>,
) -> Result<(), EncodeError> {
    write_missing_capability(sink, id, "elicitation", r#"{"form":{}}"#)
}

/// Writes the complete -32021 response of a request that needs the client capability `name`
/// and did not declare it: `data.requiredCapabilities` is `{name: required}` (`required` is
/// the capability's compact JSON object, such as `{}`; `name` a plain member name).
pub fn write_missing_capability(
    sink: &mut dyn Sink,
    id: Option<RequestId<'_>>,
    name: &str,
    required: &str,
) -> Result<(), EncodeError> {
    write_error_code(sink, id, ErrorCode::MissingClientCapability)?;
    sink.put(b",\"message\":\"Missing required client capability: ")?;
    sink.put(name.as_bytes())?;
    sink.put(b"\",\"data\":{\"requiredCapabilities\":{\"")?;
    sink.put(name.as_bytes())?;
    sink.put(b"\":")?;
    sink.put(required.as_bytes())?;
    sink.put(b"}}}}")
}

/// Longest `requested` version echoed in a -32022 response, in bytes of escaped JSON text;
/// a longer one is cut at an escape boundary, so the response size stays bounded.
pub const MAX_REQUESTED_ECHO: usize = 64;

/// The longest prefix of the escaped string body `raw` of at most `max` bytes that does not
/// split an escape (a `\uD83D\uDE00` surrogate pair counts as one).
fn truncate_escaped(raw: &str, max: usize) -> &str {
    if raw.len() <= max {
        return raw;
    }
    let bytes = raw.as_bytes();
    // Escapes are skipped whole, other bytes one at a time.
    let mut keep = 0usize;
    while let Some(&first) = bytes.get(keep) {
        let step = if first == b'\\' {
            match bytes.get(keep.wrapping_add(1)..keep.wrapping_add(4)) {
                // A high surrogate, `\uD800` to `\uDBFF`, and the low one after it (the body is
                // checked JSON text: four hex digits follow every `\u`).
                Some([b'u', b'd' | b'D', b'8' | b'9' | b'a' | b'b' | b'A' | b'B']) => 12,
                Some([b'u', ..]) => 6,
                _ => 2,
            }
        } else {
            1
        };
        match keep.checked_add(step) {
            Some(next) if next <= max => keep = next,
            _ => break,
        }
    }
    // Back to the start of the character cut (escapes are ASCII: only a multi-byte
    // character can be cut).
    while !raw.is_char_boundary(keep) {
        keep = keep.wrapping_sub(1);
    }
    raw.get(..keep).unwrap_or_default()
}

/// Writes the complete -32022 response: `data` lists every supported version (newest first)
/// and echoes `requested_raw`, the body of the JSON string the client sent (still escaped; cut
/// to [`MAX_REQUESTED_ECHO`] bytes).
// Out of line: one copy for the dispatcher (inlined there it is copied per call site).
#[inline(never)]
pub fn write_unsupported_version(
    sink: &mut dyn Sink,
    id: Option<RequestId<'_>>,
    requested_raw: &str,
) -> Result<(), EncodeError> {
    write_error_start(
        sink,
        id,
        ErrorCode::UnsupportedProtocolVersion,
        UNSUPPORTED_VERSION_MESSAGE,
    )?;
    sink.put(b",\"data\":{\"supported\":")?;
    write_supported_versions(sink)?;
    sink.put(b",\"requested\":\"")?;
    sink.put(truncate_escaped(requested_raw, MAX_REQUESTED_ECHO).as_bytes())?;
    sink.put(b"\"}}}")
}

/// [`Version::ALL`](super::Version::ALL) as a JSON array (checked against it by a unit test):
/// one write, no loop.
pub(crate) const SUPPORTED_VERSIONS: &[u8] = br#"["2026-07-28","2025-11-25","2025-06-18"]"#;

/// Writes `["2026-07-28","2025-11-25","2025-06-18"]` (every supported version, newest first).
pub fn write_supported_versions(sink: &mut dyn Sink) -> Result<(), EncodeError> {
    sink.put(SUPPORTED_VERSIONS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{SliceSink, Value};
    use crate::protocol::Version;

    fn text(f: impl FnOnce(&mut SliceSink<'_>) -> Result<(), EncodeError>) -> std::string::String {
        let mut buf = [0u8; 256];
        let mut sink = SliceSink::new(&mut buf);
        f(&mut sink).unwrap();
        let n = sink.finish().unwrap();
        std::string::String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    #[test]
    fn code_text_is_the_code() {
        for code in [
            ErrorCode::ParseError,
            ErrorCode::InvalidRequest,
            ErrorCode::MethodNotFound,
            ErrorCode::InvalidParams,
            ErrorCode::InternalError,
            ErrorCode::UnsupportedProtocolVersion,
        ] {
            assert_eq!(code_text(code), std::format!("{}", code.code()));
        }
    }

    #[test]
    fn supported_versions_are_version_all() {
        let mut expected = std::string::String::from("[");
        for (i, v) in Version::ALL.iter().enumerate() {
            if i > 0 {
                expected.push(',');
            }
            expected.push('"');
            expected.push_str(v.as_str());
            expected.push('"');
        }
        expected.push(']');
        assert_eq!(text(|s| write_supported_versions(s)), expected);
    }

    #[test]
    fn byte_exact() {
        let id = RequestId::from_value(Value::parse(b"\"x\"").unwrap()).unwrap();
        assert_eq!(
            text(|s| {
                write_result_start(s, id)?;
                s.put(b"{}}")
            }),
            r#"{"jsonrpc":"2.0","id":"x","result":{}}"#
        );
        assert_eq!(
            text(|s| write_error(s, None, ErrorCode::InvalidRequest, "bad \"x\"")),
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"bad \"x\""}}"#
        );
        assert_eq!(
            text(|s| write_unsupported_version(s, Some(id), "1900-01-01")),
            r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18"],"requested":"1900-01-01"}}}"#
        );
    }

    #[test]
    fn the_requested_text_is_echoed_once_as_it_is() {
        // `Server::required_output_len` counts on it: the longest echo is the empty one plus
        // `MAX_REQUESTED_ECHO` bytes.
        let longest = "x".repeat(MAX_REQUESTED_ECHO + 1);
        assert_eq!(
            text(|s| write_unsupported_version(s, None, &longest)).len(),
            text(|s| write_unsupported_version(s, None, "")).len() + MAX_REQUESTED_ECHO
        );
    }

    #[test]
    fn long_requested_versions_are_cut_between_escapes() {
        assert_eq!(truncate_escaped("abc", 2), "ab");
        assert_eq!(truncate_escaped("a\\nb", 2), "a");
        assert_eq!(truncate_escaped("a\\u00e9b", 6), "a");
        assert_eq!(truncate_escaped("a\\u00e9b", 7), "a\\u00e9");
        assert_eq!(truncate_escaped("a\\ud83d\\ude00", 12), "a");
        assert_eq!(truncate_escaped("a\\uD83D\\uDE00", 12), "a");
        assert_eq!(truncate_escaped("a\\uD83D\\uDE00", 13), "a\\uD83D\\uDE00");
        assert_eq!(truncate_escaped("a\\uDC00b\\n", 7), "a\\uDC00");
        assert_eq!(truncate_escaped("a\\uD7FFb\\n", 7), "a\\uD7FF");
        assert_eq!(truncate_escaped("aé", 2), "a");
        for max in 1..5 {
            assert_eq!(truncate_escaped("a😀", max), "a");
            assert_eq!(
                truncate_escaped("a€b", max),
                if max < 4 { "a" } else { "a€" }
            );
        }
        let long = "9".repeat(100);
        assert_eq!(
            truncate_escaped(&long, MAX_REQUESTED_ECHO).len(),
            MAX_REQUESTED_ECHO
        );
    }
}
