//! Numbers: exact integer formatting, shortest round-trip float formatting, and a borrowed view
//! of a JSON number lexeme.

use super::{EncodeError, Sink};

/// Writes an unsigned integer in decimal.
pub fn write_u64<S: Sink + ?Sized>(sink: &mut S, v: u64) -> Result<(), EncodeError> {
    write_u128(sink, u128::from(v))
}

/// Writes a signed integer in decimal.
pub fn write_i64<S: Sink + ?Sized>(sink: &mut S, v: i64) -> Result<(), EncodeError> {
    write_i128(sink, i128::from(v))
}

pub(crate) fn write_u128<S: Sink + ?Sized>(sink: &mut S, mut v: u128) -> Result<(), EncodeError> {
    // 128-bit division is a slow library call (and costs flash on small targets): values that
    // fit 64 bits, nearly all of them, are formatted with 64-bit arithmetic.
    if let Ok(small) = u64::try_from(v) {
        return write_u64_digits(sink, small);
    }
    let mut buf = [0u8; 39];
    let mut i = buf.len();
    loop {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            // `v % 10` is below 10, so the cast cannot truncate.
            *slot = b'0' + (v % 10) as u8;
        }
        v /= 10;
        if v == 0 || i == 0 {
            break;
        }
    }
    sink.put(buf.get(i..).unwrap_or_default())
}

fn write_u64_digits<S: Sink + ?Sized>(sink: &mut S, mut v: u64) -> Result<(), EncodeError> {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            // `v % 10` is below 10, so the cast cannot truncate.
            *slot = b'0' + (v % 10) as u8;
        }
        v /= 10;
        if v == 0 || i == 0 {
            break;
        }
    }
    sink.put(buf.get(i..).unwrap_or_default())
}

pub(crate) fn write_i128<S: Sink + ?Sized>(sink: &mut S, v: i128) -> Result<(), EncodeError> {
    if v < 0 {
        sink.put_byte(b'-')?;
    }
    write_u128(sink, v.unsigned_abs())
}

/// Writes an `f64` in the shortest form that reads back to the same value.
///
/// NaN and infinities are refused with [`EncodeError::NonFiniteFloat`]: JSON cannot hold them.
pub fn write_f64<S: Sink + ?Sized>(sink: &mut S, v: f64) -> Result<(), EncodeError> {
    if !v.is_finite() {
        return Err(EncodeError::NonFiniteFloat);
    }
    let mut buf = ryu::Buffer::new();
    sink.put(buf.format_finite(v).as_bytes())
}

/// Writes an `f32` in the shortest form that reads back to the same `f32`.
pub fn write_f32<S: Sink + ?Sized>(sink: &mut S, v: f32) -> Result<(), EncodeError> {
    if !v.is_finite() {
        return Err(EncodeError::NonFiniteFloat);
    }
    let mut buf = ryu::Buffer::new();
    sink.put(buf.format_finite(v).as_bytes())
}

/// A JSON number exactly as written in the input (a checked lexeme).
///
/// Conversions never round silently: [`Number::as_u64`] and [`Number::as_i64`] succeed only for
/// values that are exactly integers in range (`1.0` and `1e2` count as integers, as JSON Schema
/// says); [`Number::as_f64`] is the nearest double.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Number<'a> {
    raw: &'a str,
}

impl<'a> Number<'a> {
    pub(crate) const fn from_checked(raw: &'a str) -> Self {
        Self { raw }
    }

    /// The lexeme as it appeared in the input.
    pub fn raw(&self) -> &'a str {
        self.raw
    }

    /// True when the value is negative (a leading `-`; `-0` counts).
    pub fn is_negative(&self) -> bool {
        self.raw.starts_with('-')
    }

    /// True when the lexeme has neither a fraction nor an exponent.
    pub fn is_plain_integer(&self) -> bool {
        !self.raw.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
    }

    /// The value as `u64` if it is exactly an integer in range.
    pub fn as_u64(&self) -> Option<u64> {
        if self.is_plain_integer() {
            if self.raw == "-0" {
                return Some(0);
            }
            return self.raw.parse().ok();
        }
        let f = self.as_f64()?;
        if !(0.0..=MAX_EXACT).contains(&f) {
            return None;
        }
        // In range: the cast is exact when `f` is integral, which the round trip checks.
        let i = f as u64;
        (i as f64 == f).then_some(i)
    }

    /// The value as `i64` if it is exactly an integer in range.
    pub fn as_i64(&self) -> Option<i64> {
        if self.is_plain_integer() {
            return self.raw.parse().ok();
        }
        let f = self.as_f64()?;
        if !(-MAX_EXACT..=MAX_EXACT).contains(&f) {
            return None;
        }
        let i = f as i64;
        (i as f64 == f).then_some(i)
    }

    /// The nearest `f64` (correctly rounded), or `None` when it overflows to infinity.
    pub fn as_f64(&self) -> Option<f64> {
        let f: f64 = self.raw.parse().ok()?;
        f.is_finite().then_some(f)
    }
}

/// 2^53: integers up to this magnitude are exact in an `f64`.
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::SliceSink;

    fn fmt_f64(v: f64) -> Result<([u8; 40], usize), EncodeError> {
        let mut buf = [0u8; 40];
        let mut s = SliceSink::new(&mut buf);
        write_f64(&mut s, v)?;
        let n = s.finish()?;
        Ok((buf, n))
    }

    #[test]
    fn integers_exact() {
        let mut buf = [0u8; 40];
        let mut s = SliceSink::new(&mut buf);
        write_i64(&mut s, i64::MIN).unwrap();
        let n = s.finish().unwrap();
        assert_eq!(&buf[..n], b"-9223372036854775808");
        let mut s = SliceSink::new(&mut buf);
        write_u64(&mut s, 0).unwrap();
        let n = s.finish().unwrap();
        assert_eq!(&buf[..n], b"0");
    }

    #[test]
    fn floats_shortest_and_finite() {
        let (b, n) = fmt_f64(0.1).unwrap();
        assert_eq!(&b[..n], b"0.1");
        let (b, n) = fmt_f64(21.5).unwrap();
        assert_eq!(&b[..n], b"21.5");
        assert_eq!(fmt_f64(f64::NAN), Err(EncodeError::NonFiniteFloat));
        assert_eq!(fmt_f64(f64::INFINITY), Err(EncodeError::NonFiniteFloat));
    }

    #[test]
    fn number_conversions() {
        assert_eq!(Number::from_checked("1.0").as_u64(), Some(1));
        assert_eq!(Number::from_checked("1e2").as_i64(), Some(100));
        assert_eq!(Number::from_checked("1.5").as_i64(), None);
        assert_eq!(Number::from_checked("-1").as_u64(), None);
        assert_eq!(Number::from_checked("-0").as_u64(), Some(0));
        assert_eq!(
            Number::from_checked("18446744073709551615").as_u64(),
            Some(u64::MAX)
        );
        assert_eq!(Number::from_checked("18446744073709551616").as_u64(), None);
        assert_eq!(Number::from_checked("1e400").as_f64(), None);
    }
}
