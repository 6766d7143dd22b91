//! Compacting checked JSON text: the whitespace between tokens goes, strings stay as they are.

use super::{EncodeError, Sink};

/// Writes checked JSON text without the whitespace between tokens.
///
/// Checked JSON may hold line feeds between tokens (a static schema written over several lines,
/// a [`Value`](super::Value) taken from pretty input); they must not reach a line-framed channel,
/// and one value should have one canonical text. `raw` must be checked JSON: the function only
/// tracks strings and escapes, it does not check the grammar.
pub fn write_compact<S: Sink + ?Sized>(sink: &mut S, raw: &[u8]) -> Result<(), EncodeError> {
    // Below 64 bits (microcontrollers), one copy of the loop for every sink, through `dyn Sink`
    // (`&mut S` is a sized sink): flash first. On 64-bit hosts, inlined for the caller's sink.
    #[cfg(not(target_pointer_width = "64"))]
    let mut sink = sink;
    #[cfg(not(target_pointer_width = "64"))]
    let sink: &mut dyn Sink = &mut sink;
    compact_into(sink, raw)
}

fn compact_into<S: Sink + ?Sized>(sink: &mut S, raw: &[u8]) -> Result<(), EncodeError> {
    let mut in_string = false;
    let mut escaped = false;
    let mut start = 0;
    for (i, &b) in raw.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
        } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            if start < i {
                sink.put(raw.get(start..i).unwrap_or_default())?;
            }
            start = i.wrapping_add(1);
        }
    }
    if start < raw.len() {
        sink.put(raw.get(start..).unwrap_or_default())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::SliceSink;

    #[test]
    fn compacts_outside_strings_only() {
        let mut buf = [0u8; 64];
        let mut sink = SliceSink::new(&mut buf);
        write_compact(&mut sink, b"{ \"a b\" :\n [ 1 ,\t\"x\\\" y\" ] }").unwrap();
        let n = sink.finish().unwrap();
        assert_eq!(&buf[..n], br#"{"a b":[1,"x\" y"]}"#);
    }
}
