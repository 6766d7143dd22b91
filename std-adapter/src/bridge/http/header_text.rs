//! Header values as the 2026-07-28 HTTP transport encodes them: trimmed text, or
//! `=?base64?…?=` around the base64 of UTF-8 text (for values that are not plain ASCII).

use std::borrow::Cow;

use super::request::Request;

/// Why a header's value could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum HeaderTextError {
    /// The header came more than once.
    Repeated,
    /// `=?base64?…?=` around something that is not base64 of UTF-8.
    BadBase64,
}

impl HeaderTextError {
    /// What is wrong, after the header's name.
    pub(super) fn message(self) -> &'static str {
        match self {
            Self::Repeated => "is repeated",
            Self::BadBase64 => "is not valid base64 of UTF-8",
        }
    }
}

/// Header `name`'s value, decoded (borrowed when it was plain text); `Ok(None)` when absent.
pub(super) fn decoded<'a>(
    request: &'a Request,
    name: &str,
) -> Result<Option<Cow<'a, str>>, HeaderTextError> {
    match request.count(name) {
        0 => return Ok(None),
        1 => {}
        _ => return Err(HeaderTextError::Repeated),
    }
    let value = request.header(name).unwrap_or_default().trim();
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(encoded) => decode_base64(encoded)
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .map(|text| Some(Cow::Owned(text)))
            .ok_or(HeaderTextError::BadBase64),
        None => Ok(Some(Cow::Borrowed(value))),
    }
}

/// Standard base64 with padding (RFC 4648 §4).
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    fn sextet(c: u8) -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    }
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let quads = bytes.len() / 4;
    for (index, quad) in bytes.chunks_exact(4).enumerate() {
        let last = index + 1 == quads;
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &c in quad.iter().take(4 - pad) {
            n = (n << 6) | sextet(c)?;
        }
        n <<= 6 * pad as u32;
        let [_, a, b, c] = n.to_be_bytes();
        out.extend_from_slice(&[a, b, c][..3 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_header_values() {
        assert_eq!(decode_base64("aMOpbGxv").unwrap(), "héllo".as_bytes());
        assert_eq!(decode_base64("YQ==").unwrap(), b"a");
        assert_eq!(decode_base64("YWI=").unwrap(), b"ab");
        assert_eq!(decode_base64("").unwrap(), b"");
        assert!(decode_base64("YQ=").is_none());
        assert!(decode_base64("YQ==YQ==").is_none());
        assert!(decode_base64("Y!==").is_none());
    }

    #[test]
    fn decoded_values() {
        let r = Request::post_for_test(&[
            ("a", " plain "),
            ("b", "=?base64?aMOpbGxv?="),
            ("c", "=?base64?@@?="),
            ("d", "1"),
            ("d", "2"),
        ]);
        assert_eq!(decoded(&r, "a"), Ok(Some("plain".into())));
        assert_eq!(decoded(&r, "b"), Ok(Some("héllo".into())));
        assert_eq!(decoded(&r, "c"), Err(HeaderTextError::BadBase64));
        assert_eq!(decoded(&r, "d"), Err(HeaderTextError::Repeated));
        assert_eq!(decoded(&r, "e"), Ok(None));
    }
}
