//! Hexadecimal text to bytes (postcard programs are binary; the UART protocol is lines).

/// Decodes `text` (pairs of hex digits, either case) into the start of `out`; returns the
/// decoded length, or `None` for an odd length, a non-hex digit or an `out` too small.
pub fn decode(text: &[u8], out: &mut [u8]) -> Option<usize> {
    let (pairs, rest) = text.as_chunks::<2>();
    if !rest.is_empty() || pairs.len() > out.len() {
        return None;
    }
    for (slot, &[high, low]) in out.iter_mut().zip(pairs) {
        *slot = (digit(high)? << 4) | digit(low)?;
    }
    Some(pairs.len())
}

fn digit(c: u8) -> Option<u8> {
    char::from(c)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}
