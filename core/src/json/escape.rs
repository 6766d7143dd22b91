//! RFC 8259 string escaping.
//!
//! Escaped: `"`, `\`, and every control character U+0000..U+001F (as `\b \f \n \r \t` where JSON
//! has a short form, else `\u00XX`). Everything else, including non-ASCII, is copied as UTF-8, so
//! an encoded message never contains a raw line feed.

use super::{EncodeError, Sink};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// The escape for byte `b`, or `None` when it is copied as is.
#[inline]
fn short_escape(b: u8) -> Option<u8> {
    match b {
        b'"' => Some(b'"'),
        b'\\' => Some(b'\\'),
        b'\n' => Some(b'n'),
        b'\r' => Some(b'r'),
        b'\t' => Some(b't'),
        0x08 => Some(b'b'),
        0x0c => Some(b'f'),
        0x00..=0x1f => Some(b'u'),
        _ => None,
    }
}

/// Writes `s` escaped as the body of a JSON string (without the surrounding quotes).
pub fn write_escaped<S: Sink + ?Sized>(sink: &mut S, s: &str) -> Result<(), EncodeError> {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let Some(esc) = short_escape(b) else {
            continue;
        };
        if start < i {
            sink.put(bytes.get(start..i).unwrap_or_default())?;
        }
        if esc == b'u' {
            let hi = HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0');
            let lo = HEX.get(usize::from(b & 0xf)).copied().unwrap_or(b'0');
            sink.put(&[b'\\', b'u', b'0', b'0', hi, lo])?;
        } else {
            sink.put(&[b'\\', esc])?;
        }
        start = i + 1;
    }
    if start < bytes.len() {
        sink.put(bytes.get(start..).unwrap_or_default())?;
    }
    Ok(())
}

/// Writes `s` as a complete JSON string, quotes included.
pub fn write_string<S: Sink + ?Sized>(sink: &mut S, s: &str) -> Result<(), EncodeError> {
    sink.put_byte(b'"')?;
    write_escaped(sink, s)?;
    sink.put_byte(b'"')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::SliceSink;

    fn esc(s: &str) -> ([u8; 128], usize) {
        let mut buf = [0u8; 128];
        let mut sink = SliceSink::new(&mut buf);
        write_string(&mut sink, s).unwrap();
        let n = sink.finish().unwrap();
        (buf, n)
    }

    #[test]
    fn escapes_byte_for_byte() {
        let (b, n) = esc("a\"b\\c\nd\re\tf\u{8}\u{c}\u{0}\u{1f}\u{7f}é😀");
        assert_eq!(
            &b[..n],
            "\"a\\\"b\\\\c\\nd\\re\\tf\\b\\f\\u0000\\u001f\u{7f}é😀\"".as_bytes()
        );
    }

    #[test]
    fn plain_is_copied() {
        let (b, n) = esc("hello / world");
        assert_eq!(&b[..n], b"\"hello / world\"");
    }
}
