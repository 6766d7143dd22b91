//! `Display` adapters that write with `Formatter::write_str` only.
//!
//! `{}` of a `&str` goes through `Formatter::pad` (width, precision and fill support, with
//! UTF-8 character counting) and `{}` of an integer through `Formatter::pad_integral`; a
//! firmware that formats nothing else links about 1.3 KB of `core::fmt` for them (measured on
//! a Cortex-M3, `benches/SIZES.md`). The engine's and this layer's messages use these instead.

use core::fmt;

use super::{write_u64, SliceSink};

/// Writes the string as it is (no padding).
#[derive(Debug, Clone, Copy)]
#[doc(hidden)]
pub struct Text<'a>(pub &'a str);

impl fmt::Display for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// Writes an unsigned integer in decimal (no padding).
#[derive(Debug, Clone, Copy)]
#[doc(hidden)]
pub struct Dec(pub u64);

impl Dec {
    /// A `usize` (at most 64 bits on every target).
    pub fn of(n: usize) -> Self {
        Self(n as u64)
    }
}

impl fmt::Display for Dec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The JSON layer's integer writer (linked anyway), into a buffer that always fits.
        let mut buf = [0u8; 20];
        let mut sink = SliceSink::new(&mut buf);
        let _ = write_u64(&mut sink, self.0);
        let digits = sink.written().unwrap_or_default();
        f.write_str(core::str::from_utf8(digits).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_text_as_core_fmt() {
        for n in [0u64, 7, 10, 99, 1_000, 4_294_967_295, u64::MAX] {
            assert_eq!(std::format!("{}", Dec(n)), std::format!("{n}"));
        }
        assert_eq!(std::format!("<{}>", Text("a\"é")), "<a\"é>");
    }
}
