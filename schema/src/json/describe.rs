//! [`Describe`]: message text written piece by piece into a byte [`Sink`], without `core::fmt`.
//!
//! `core::fmt::write`, `Formatter::pad` and the integer `Display` impls take about 1.5 KB of
//! flash on a Cortex-M3 (`benches/SIZES.md`). The messages this crate and the engine write into
//! results (violations, decode and encode errors) are made of strings and unsigned integers, so
//! they are written straight into the result's escaping sink instead. The error types'
//! `Display` impls call the same [`Describe::describe`] through [`fmt_described`], so there is
//! one text per message.

use core::fmt;

use super::{write_u64, EncodeError, Sink};

/// A value whose human-readable text can be written into a [`Sink`] without `core::fmt`.
pub trait Describe {
    /// Writes the text (UTF-8, not escaped) to `out`, in whole `str` pieces.
    fn describe(&self, out: &mut dyn Sink) -> Result<(), EncodeError>;
}

/// One piece of a message: text, an unsigned integer in decimal, or a described value.
#[derive(Clone, Copy)]
pub enum Piece<'a> {
    /// Text as it is.
    Text(&'a str),
    /// An unsigned integer in decimal.
    Dec(u64),
    /// A value's [`Describe`] text.
    Of(&'a dyn Describe),
}

impl Describe for [Piece<'_>] {
    fn describe(&self, out: &mut dyn Sink) -> Result<(), EncodeError> {
        for piece in self {
            match *piece {
                Piece::Text(s) => out.put(s.as_bytes())?,
                Piece::Dec(n) => write_u64(out, n)?,
                Piece::Of(d) => d.describe(out)?,
            }
        }
        Ok(())
    }
}

impl<const N: usize> Describe for [Piece<'_>; N] {
    fn describe(&self, out: &mut dyn Sink) -> Result<(), EncodeError> {
        self.as_slice().describe(out)
    }
}

impl Describe for str {
    fn describe(&self, out: &mut dyn Sink) -> Result<(), EncodeError> {
        out.put(self.as_bytes())
    }
}

/// Writes `value`'s `Describe` text to a formatter: the body of a `Display` impl.
pub fn fmt_described(value: &dyn Describe, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    /// The formatter as a sink; every piece is a whole `str`, so its bytes are UTF-8.
    struct Out<'f, 'g>(&'f mut fmt::Formatter<'g>);
    impl Sink for Out<'_, '_> {
        fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
            let text = core::str::from_utf8(bytes).map_err(|_| EncodeError::Sink)?;
            self.0.write_str(text).map_err(|_| EncodeError::Sink)
        }
    }
    value.describe(&mut Out(f)).map_err(|_| fmt::Error)
}

/// Writes `value`'s `Display` text to `out` (through `core::fmt`): for types that only have
/// `Display`.
pub fn describe_displayed(value: &dyn fmt::Display, out: &mut dyn Sink) -> Result<(), EncodeError> {
    /// The sink as a `fmt::Write`, keeping the sink's own error.
    struct In<'s> {
        out: &'s mut dyn Sink,
        failed: Option<EncodeError>,
    }
    impl fmt::Write for In<'_> {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.out.put(s.as_bytes()).map_err(|e| {
                self.failed = Some(e);
                fmt::Error
            })
        }
    }
    let mut adapter = In { out, failed: None };
    fmt::write(&mut adapter, format_args!("{value}"))
        .map_err(|_| adapter.failed.unwrap_or(EncodeError::Custom))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::SliceSink;

    struct Shown<const N: usize>([Piece<'static>; N]);
    impl<const N: usize> fmt::Display for Shown<N> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            fmt_described(&self.0, f)
        }
    }

    #[test]
    fn pieces_write_text_and_decimals() {
        let mut buf = [0u8; 64];
        let mut sink = SliceSink::new(&mut buf);
        let inner = [Piece::Text("<"), Piece::Dec(0), Piece::Text(">")];
        let pieces = [
            Piece::Text("a\"é "),
            Piece::Dec(u64::MAX),
            Piece::Text(" "),
            Piece::Of(&inner),
        ];
        pieces[..].describe(&mut sink).unwrap();
        let n = sink.finish().unwrap();
        assert_eq!(&buf[..n], "a\"é 18446744073709551615 <0>".as_bytes());
    }

    #[test]
    fn display_gives_the_same_text() {
        let shown = Shown([Piece::Text("x="), Piece::Dec(42)]);
        assert_eq!(std::format!("{shown}"), "x=42");
        let mut buf = [0u8; 16];
        let mut sink = SliceSink::new(&mut buf);
        describe_displayed(&shown, &mut sink).unwrap();
        let n = sink.finish().unwrap();
        assert_eq!(&buf[..n], b"x=42");
    }

    #[test]
    fn a_full_sink_stops_the_displayed_text_with_its_error() {
        let mut buf = [0u8; 2];
        let mut sink = SliceSink::new(&mut buf);
        let shown = Shown([Piece::Text("too long")]);
        // SliceSink keeps counting: the text is written, `finish` reports the overflow.
        describe_displayed(&shown, &mut sink).unwrap();
        assert!(sink.finish().is_err());
    }
}
