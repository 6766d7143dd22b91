//! Writing JSON text a second time, as the body of a JSON string (the `text` channel).
//!
//! The escapes are those of [`json::write_escaped`](crate::json::write_escaped): `\"`, `\\`,
//! `\b \f \n \r \t`, other control characters as `\u00XX`; every other byte is copied. Escaping
//! works byte by byte, which is correct for UTF-8 because every byte of a multi-byte sequence
//! is at least 0x80 and is copied unchanged.

use crate::json::{escape_word, EncodeError, Sink};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// True for the bytes a JSON string cannot hold as they are.
#[inline]
fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// A [`Sink`] adapter that escapes everything written through it as the body of a JSON string.
///
/// Serialising a value through it writes the value's JSON text as a JSON string body, which is
/// how [`write_structured`](super::write_structured) fills the `text` block when the output
/// cannot be read back. The surrounding quotes are the caller's.
#[derive(Debug)]
pub struct EscapingSink<'s, S: Sink + ?Sized> {
    inner: &'s mut S,
}

impl<'s, S: Sink + ?Sized> EscapingSink<'s, S> {
    /// An adapter writing the escaped bytes to `inner`.
    pub fn new(inner: &'s mut S) -> Self {
        Self { inner }
    }
}

/// Bytes escaped at a time by [`EscapingSink`]: each becomes at most six (`\u00XX`).
const CHUNK: usize = 16;

impl<S: Sink + ?Sized> Sink for EscapingSink<'_, S> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        // Through `escape_into`, a few bytes at a time: one escaping loop in the crate.
        let mut escaped = [0u8; 6 * CHUNK];
        for chunk in bytes.chunks(CHUNK) {
            let n = escape_into(chunk, &mut escaped).unwrap_or_default();
            self.inner.put(escaped.get(..n).unwrap_or_default())?;
        }
        Ok(())
    }

    fn put_byte(&mut self, byte: u8) -> Result<(), EncodeError> {
        self.put(&[byte])
    }
}

/// A [`Sink`] that counts every byte twice: once as it is and once escaped (the length of a
/// structured result's JSON and of its escaped copy in the text block, without writing them).
#[derive(Debug, Default)]
pub(crate) struct TwiceCount {
    /// Bytes counted so far.
    pub(crate) count: usize,
}

impl Sink for TwiceCount {
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        for &b in bytes {
            // The escape's length (see `escape_byte`), plus the byte itself.
            let twice = match b {
                b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 3,
                0..=0x1f => 7,
                _ => 2,
            };
            self.count = self.count.saturating_add(twice);
        }
        Ok(())
    }
}

/// Bytes of a machine word.
const WORD: usize = core::mem::size_of::<usize>();

/// Copies `src` escaped into the start of `dst`; the number of bytes written, or `None` when
/// `dst` is too small (its content is then unspecified).
///
/// A machine word at a time: each word is copied whole (bytes past the first one to escape are
/// overwritten afterwards), so runs between escapes, which are short in JSON text, cost no
/// variable-length copy.
pub(crate) fn escape_into(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    let capacity = dst.len();
    let mut src = src;
    let mut out = dst;
    while let Some(&word) = src.first_chunk::<WORD>() {
        let Some(head) = out.first_chunk_mut::<WORD>() else {
            break;
        };
        *head = word;
        let mask = escape_word(usize::from_le_bytes(word));
        // Bytes copied as they are: the whole word, or those before the first to escape.
        let plain = if mask == 0 {
            WORD
        } else {
            (mask.trailing_zeros() >> 3) as usize
        };
        src = src.get(plain..)?;
        out = core::mem::take(&mut out).get_mut(plain..)?;
        if mask != 0 {
            let (&b, after) = src.split_first()?;
            let n = escape_byte(b, out)?;
            out = core::mem::take(&mut out).get_mut(n..)?;
            src = after;
        }
    }
    // The last few bytes (or those that meet the end of `dst`), one at a time.
    for &b in src {
        if needs_escape(b) {
            let n = escape_byte(b, out)?;
            out = core::mem::take(&mut out).get_mut(n..)?;
        } else {
            let (first, after) = core::mem::take(&mut out).split_first_mut()?;
            *first = b;
            out = after;
        }
    }
    // `out` is the unwritten end of `dst`.
    Some(capacity.saturating_sub(out.len()))
}

/// Writes the escape of `b` (a byte that [`needs_escape`]) at the start of `dst`: `\x` for
/// the bytes JSON has a short form for, `\u00XX` for the other control characters. Fixed-size
/// stores only (a variable-length copy is a `memcpy` call).
fn escape_byte(b: u8, dst: &mut [u8]) -> Option<usize> {
    let short = match b {
        b'"' | b'\\' => b,
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0x08 => b'b',
        0x0c => b'f',
        _ => 0,
    };
    if short != 0 {
        let [backslash, byte, ..] = dst else {
            return None;
        };
        *backslash = b'\\';
        *byte = short;
        return Some(2);
    }
    let [backslash, u, zero, zero2, hi, lo, ..] = dst else {
        return None;
    };
    *backslash = b'\\';
    *u = b'u';
    *zero = b'0';
    *zero2 = b'0';
    *hi = HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0');
    *lo = HEX.get(usize::from(b & 0xf)).copied().unwrap_or(b'0');
    Some(6)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{write_escaped, SliceSink};

    const SAMPLE: &str = "{\"a\":\"x\\\"y\\\\z\"}\u{0}\u{1f}\u{7f}\n\r\t\u{8}\u{c}é😀/";

    fn reference(s: &str) -> std::vec::Vec<u8> {
        let mut buf = [0u8; 256];
        let mut sink = SliceSink::new(&mut buf);
        write_escaped(&mut sink, s).unwrap();
        let n = sink.finish().unwrap();
        buf[..n].to_vec()
    }

    #[test]
    fn sink_matches_write_escaped_in_any_chunking() {
        let expected = reference(SAMPLE);
        let bytes = SAMPLE.as_bytes();
        for cut in 0..=bytes.len() {
            let mut buf = [0u8; 256];
            let mut out = SliceSink::new(&mut buf);
            let mut esc = EscapingSink::new(&mut out);
            esc.put(&bytes[..cut]).unwrap();
            if let Some((&first, rest)) = bytes[cut..].split_first() {
                esc.put_byte(first).unwrap();
                esc.put(rest).unwrap();
            }
            let n = out.finish().unwrap();
            assert_eq!(&buf[..n], &expected[..], "cut at {cut}");
        }
    }

    #[test]
    fn escape_into_matches_and_reports_overflow() {
        let expected = reference(SAMPLE);
        let mut dst = [0u8; 256];
        let n = escape_into(SAMPLE.as_bytes(), &mut dst).unwrap();
        assert_eq!(&dst[..n], &expected[..]);
        assert_eq!(escape_into(SAMPLE.as_bytes(), &mut dst[..n]), Some(n));
        for short in 0..n {
            assert_eq!(escape_into(SAMPLE.as_bytes(), &mut dst[..short]), None);
        }
        assert_eq!(escape_into(b"", &mut []), Some(0));
    }
}
