//! RFC 8259 string escaping.
//!
//! Escaped: `"`, `\`, and every control character U+0000..U+001F (as `\b \f \n \r \t` where JSON
//! has a short form, else `\u00XX`). Everything else, including non-ASCII, is copied as UTF-8, so
//! an encoded message never contains a raw line feed.

use super::words::skip_words;
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

/// Bit 7 of each byte of `word` (a machine word, little-endian) is set where a byte must be
/// escaped in a JSON string (`"`, `\`, below 0x20). Bytes above the lowest flagged one may be
/// flagged wrongly (borrows), so only the lowest flag is exact: `trailing_zeros() / 8` is the
/// first such byte. A machine word, not a `u64`: on a 32-bit target a `u64` operation is two or
/// three instructions, and its code twice the flash.
#[inline]
#[doc(hidden)]
pub fn escape_word(word: usize) -> usize {
    const LO: usize = usize::MAX / 0xff;
    const HI: usize = LO << 7;
    let quote = word ^ (LO * 0x22);
    let backslash = word ^ (LO * 0x5c);
    (quote.wrapping_sub(LO) & !quote
        | backslash.wrapping_sub(LO) & !backslash
        | word.wrapping_sub(LO * 0x20) & !word)
        & HI
}

/// How many leading bytes of `bytes` a JSON string holds as they are (a machine word at a
/// time). Out of line: `write_escaped` and the core's escaping sink share one copy.
#[inline(never)]
#[doc(hidden)]
pub fn plain_run(bytes: &[u8]) -> usize {
    let n = skip_words(bytes, 0, escape_word);
    let rest = bytes.get(n..).unwrap_or_default();
    // Both parts together are at most `bytes.len()`.
    n.wrapping_add(
        rest.iter()
            .position(|&b| short_escape(b).is_some())
            .unwrap_or(rest.len()),
    )
}

/// Writes `s` escaped as the body of a JSON string (without the surrounding quotes).
pub fn write_escaped<S: Sink + ?Sized>(sink: &mut S, s: &str) -> Result<(), EncodeError> {
    // Below 64 bits (microcontrollers), one copy of the loop for every sink, through `dyn Sink`
    // (`&mut S` is a sized sink): flash first. On 64-bit hosts, inlined for the caller's sink.
    #[cfg(not(target_pointer_width = "64"))]
    let mut sink = sink;
    #[cfg(not(target_pointer_width = "64"))]
    let sink: &mut dyn Sink = &mut sink;
    escaped_into(sink, s)
}

fn escaped_into<S: Sink + ?Sized>(sink: &mut S, s: &str) -> Result<(), EncodeError> {
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0usize;
    loop {
        // Positions stay at most `bytes.len()`: no wrap.
        i = i.wrapping_add(plain_run(bytes.get(i..).unwrap_or_default()));
        let Some(&b) = bytes.get(i) else {
            break;
        };
        let esc = short_escape(b).unwrap_or(b'u');
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
        i = i.wrapping_add(1);
        start = i;
    }
    if start < bytes.len() {
        sink.put(bytes.get(start..).unwrap_or_default())?;
    }
    Ok(())
}

/// Writes `s` as a complete JSON string, quotes included.
pub fn write_string<S: Sink + ?Sized>(sink: &mut S, s: &str) -> Result<(), EncodeError> {
    // As in `write_escaped`: one copy through `dyn Sink` below 64 bits.
    #[cfg(not(target_pointer_width = "64"))]
    let mut sink = sink;
    #[cfg(not(target_pointer_width = "64"))]
    let sink: &mut dyn Sink = &mut sink;
    string_into(sink, s)
}

fn string_into<S: Sink + ?Sized>(sink: &mut S, s: &str) -> Result<(), EncodeError> {
    sink.put_byte(b'"')?;
    escaped_into(sink, s)?;
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
    fn plain_run_finds_the_first_byte_to_escape() {
        let mut text = [b'a'; 40];
        assert_eq!(plain_run(&text), 40);
        assert_eq!(plain_run(&[]), 0);
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for at in 0..40 {
                text = [b'a'; 40];
                // Bytes that must not be flagged: DEL, UTF-8 bytes, 0x20, and the neighbours of
                // the special bytes; and several specials above the first (borrows).
                text[..8].copy_from_slice(&[0x7f, 0x80, 0xff, 0x20, 0x21, 0x23, 0x5b, 0x5d]);
                text[at] = special;
                for later in [at + 1, at + 3] {
                    if let Some(b) = text.get_mut(later) {
                        *b = 0x00;
                    }
                }
                assert_eq!(plain_run(&text), at, "{special:#x} at {at}");
            }
        }
    }

    #[test]
    fn plain_is_copied() {
        let (b, n) = esc("hello / world");
        assert_eq!(&b[..n], b"\"hello / world\"");
    }
}
