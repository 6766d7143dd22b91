//! Numbers: exact integer formatting, shortest round-trip float formatting, and a borrowed view
//! of a JSON number lexeme whose integer conversions are exact decimal arithmetic.

use super::{EncodeError, Sink};

/// Writes an unsigned integer in decimal.
pub fn write_u64<S: Sink + ?Sized>(sink: &mut S, v: u64) -> Result<(), EncodeError> {
    // As in `write_escaped`: one copy through `dyn Sink` below 64 bits.
    #[cfg(not(target_pointer_width = "64"))]
    let mut sink = sink;
    #[cfg(not(target_pointer_width = "64"))]
    let sink: &mut dyn Sink = &mut sink;
    write_u64_digits(sink, v)
}

/// Writes a signed integer in decimal.
pub fn write_i64<S: Sink + ?Sized>(sink: &mut S, v: i64) -> Result<(), EncodeError> {
    if v < 0 {
        sink.put_byte(b'-')?;
    }
    write_u64(sink, v.unsigned_abs())
}

/// Writes a 128-bit unsigned integer in decimal (the 128-bit loop is linked only by callers of
/// 128-bit integers).
pub(crate) fn write_u128<S: Sink + ?Sized>(sink: &mut S, v: u128) -> Result<(), EncodeError> {
    match u64::try_from(v) {
        Ok(small) => write_u64(sink, small),
        Err(_) => u128_into(sink, v),
    }
}

fn u128_into<S: Sink + ?Sized>(sink: &mut S, mut v: u128) -> Result<(), EncodeError> {
    // 128-bit division is a slow library call (and costs flash on small targets): only values
    // beyond 64 bits come here.
    let mut buf = [0u8; 39];
    let mut i = buf.len();
    loop {
        i = i.wrapping_sub(1);
        if let Some(slot) = buf.get_mut(i) {
            // `v % 10` is below 10, so the cast cannot truncate.
            *slot = b'0'.wrapping_add((v % 10) as u8);
        }
        v /= 10;
        if v == 0 || i == 0 {
            break;
        }
    }
    sink.put(buf.get(i..).unwrap_or_default())
}

/// `v / 10` and `v % 10`: 64-bit targets divide by a multiplication.
#[cfg(target_pointer_width = "64")]
fn div_rem_10(v: u64) -> (u64, u8) {
    // `v % 10` is below 10, so the cast cannot truncate.
    (v / 10, (v % 10) as u8)
}

#[cfg(not(target_pointer_width = "64"))]
use div_rem_10_shift_add as div_rem_10;

/// `v / 10` and `v % 10` by shifts and adds (Hacker's Delight, `divu10`), for 32-bit targets:
/// a Cortex-M has no 64-bit divide, and the library's (`__aeabi_uldivmod`) takes about 0.9 KB
/// of flash. Compiled everywhere so that the host tests check it.
#[cfg_attr(target_pointer_width = "64", allow(dead_code))]
fn div_rem_10_shift_add(v: u64) -> (u64, u8) {
    let mut q = (v >> 1).wrapping_add(v >> 2);
    q = q.wrapping_add(q >> 4);
    q = q.wrapping_add(q >> 8);
    q = q.wrapping_add(q >> 16);
    q = q.wrapping_add(q >> 32);
    q >>= 3;
    // `q` is `v / 10` or one less: `r` is below 20.
    let r = v.wrapping_sub(q.wrapping_mul(10));
    if r > 9 {
        (q.wrapping_add(1), r.wrapping_sub(10) as u8)
    } else {
        (q, r as u8)
    }
}

fn write_u64_digits<S: Sink + ?Sized>(sink: &mut S, mut v: u64) -> Result<(), EncodeError> {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i = i.wrapping_sub(1);
        let (q, digit) = div_rem_10(v);
        if let Some(slot) = buf.get_mut(i) {
            *slot = b'0'.wrapping_add(digit);
        }
        v = q;
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
/// The text is `ryu`'s (`1.0`, `0.001`, `1e-7`, `1.5e30`); with the crate feature
/// `compact-float` the same text is computed by exact big-integer arithmetic instead of
/// `ryu`'s tables (smaller, slower; see the crate's `Cargo.toml`).
pub fn write_f64<S: Sink + ?Sized>(sink: &mut S, v: f64) -> Result<(), EncodeError> {
    if !v.is_finite() {
        return Err(EncodeError::NonFiniteFloat);
    }
    #[cfg(feature = "compact-float")]
    {
        super::float::write_f64(sink, v)
    }
    #[cfg(not(feature = "compact-float"))]
    {
        let mut buf = ryu::Buffer::new();
        sink.put(buf.format_finite(v).as_bytes())
    }
}

/// Writes an `f32` in the shortest form that reads back to the same `f32` (the same text with
/// and without the feature `compact-float`, as for [`write_f64`]).
pub fn write_f32<S: Sink + ?Sized>(sink: &mut S, v: f32) -> Result<(), EncodeError> {
    if !v.is_finite() {
        return Err(EncodeError::NonFiniteFloat);
    }
    #[cfg(feature = "compact-float")]
    {
        super::float::write_f32(sink, v)
    }
    #[cfg(not(feature = "compact-float"))]
    {
        let mut buf = ryu::Buffer::new();
        sink.put(buf.format_finite(v).as_bytes())
    }
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
    ///
    /// Computed on the decimal digits of the lexeme, without floating point: `50`, `50.0`,
    /// `5e1`, `500e-1` and `-0` are 50, 50, 50, 50 and 0; `50.5` and `-1` are `None`.
    pub fn as_u64(&self) -> Option<u64> {
        match exact_integer(self.raw)? {
            (true, 0) => Some(0),
            (true, _) => None,
            (false, magnitude) => Some(magnitude),
        }
    }

    /// The value as `i64` if it is exactly an integer in range (computed on the decimal digits,
    /// as [`Number::as_u64`]).
    pub fn as_i64(&self) -> Option<i64> {
        match exact_integer(self.raw)? {
            (true, magnitude) => 0i64.checked_sub_unsigned(magnitude),
            (false, magnitude) => i64::try_from(magnitude).ok(),
        }
    }

    /// The nearest `f64` (correctly rounded, half to even: the value `str::parse` gives), or
    /// `None` when it overflows to infinity. Values below half the smallest subnormal are
    /// zero, with the lexeme's sign.
    ///
    /// Computed by the crate's own parser, which has no panic path (core's `str::parse` keeps
    /// bounds checks the optimiser cannot remove).
    pub fn as_f64(&self) -> Option<f64> {
        let f: f64 = super::parse_float::parse(self.raw)?;
        f.is_finite().then_some(f)
    }
}

/// Bound of the exponent's magnitude while it is read: beyond any lexeme length that fits in
/// memory with room to spare (a value scaled that far is 0 or out of range whatever its
/// digits), far below `usize` overflow.
const EXPONENT_SATURATION: usize = usize::MAX / 4;

/// Sign and magnitude of a checked number lexeme that is exactly an integer whose magnitude
/// fits a `u64`; `None` for a fraction or a larger magnitude.
///
/// Exact decimal arithmetic in one pass over the mantissa: the value is `digits * 10^scale`,
/// where `digits` runs from the first to the last non-zero digit (zeros between them are
/// multiplied in when the next non-zero digit comes, trailing ones are left in `scale`) and
/// `scale` is the exponent minus the fraction's length plus the trailing zeros. It is an integer
/// exactly when there are no significant digits or `scale >= 0`; `digits` beyond a `u64` means
/// the value is too (or is a fraction). Counts are `usize` (machine words); no floating point
/// is involved, so no float-parsing code is linked.
#[inline(never)]
pub(crate) fn exact_integer(raw: &str) -> Option<(bool, u64)> {
    let bytes = raw.as_bytes();
    let (negative, rest) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, bytes),
    };
    // The usual case first: a plain integer of at most 19 digits cannot overflow a `u64`.
    if rest.len() <= 19 {
        let plain = rest.iter().try_fold(0u64, |acc, &b| {
            // 19 digits stay below 10^19 < 2^64.
            b.is_ascii_digit().then(|| {
                acc.wrapping_mul(10)
                    .wrapping_add(u64::from(b.wrapping_sub(b'0')))
            })
        });
        if let Some(magnitude) = plain {
            return Some((negative, magnitude));
        }
    }
    let (mantissa, exponent) = match rest.iter().position(|&b| b == b'e' || b == b'E') {
        Some(at) => rest.split_at_checked(at)?,
        None => (rest, &[][..]),
    };
    let mut digits = 0u64;
    // Zeros after the last non-zero digit so far, and digits after the decimal point.
    let mut zeros = 0usize;
    let mut fraction = 0usize;
    let mut in_fraction = false;
    for &b in mantissa {
        if b == b'.' {
            in_fraction = true;
            continue;
        }
        if in_fraction {
            fraction = fraction.saturating_add(1);
        }
        if b == b'0' {
            if digits != 0 {
                zeros = zeros.saturating_add(1);
            }
            continue;
        }
        digits = times_ten(digits, zeros.saturating_add(1))?
            .checked_add(u64::from(b.wrapping_sub(b'0')))?;
        zeros = 0;
    }
    if digits == 0 {
        return Some((negative, 0));
    }
    // After the `e`: an optional sign, then digits.
    let (exponent_negative, exponent_digits) = match exponent.get(1..).unwrap_or_default() {
        [b'-', digits @ ..] => (true, digits),
        [b'+', digits @ ..] => (false, digits),
        digits => (false, digits),
    };
    let magnitude = exponent_digits.iter().fold(0usize, |e, &d| {
        e.saturating_mul(10)
            .saturating_add(usize::from(d.wrapping_sub(b'0')))
            .min(EXPONENT_SATURATION)
    });
    // scale = up - down, each side a sum of two counts of at most a quarter of `usize`.
    let (up, down) = if exponent_negative {
        (zeros, magnitude.saturating_add(fraction))
    } else {
        (magnitude.saturating_add(zeros), fraction)
    };
    times_ten(digits, up.checked_sub(down)?).map(|v| (negative, v))
}

/// `v * 10^n`, or `None` beyond a `u64` (at most 20 rounds for a non-zero `v`).
fn times_ten(mut v: u64, n: usize) -> Option<u64> {
    for _ in 0..n {
        v = v.checked_mul(10)?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn div_rem_10_is_exact() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let edges = [
            0,
            1,
            9,
            10,
            11,
            19,
            20,
            99,
            100,
            u64::from(u32::MAX),
            u64::MAX,
            u64::MAX - 1,
        ];
        for v in edges.into_iter().chain((0..100_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x >> (x % 64)
        })) {
            assert_eq!(div_rem_10(v), (v / 10, (v % 10) as u8), "{v}");
            assert_eq!(div_rem_10_shift_add(v), (v / 10, (v % 10) as u8), "{v}");
        }
        for v in 0..1_000_000u64 {
            assert_eq!(div_rem_10(v), (v / 10, (v % 10) as u8), "{v}");
            assert_eq!(div_rem_10_shift_add(v), (v / 10, (v % 10) as u8), "{v}");
        }
    }
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

    #[test]
    fn integer_conversions_are_exact_without_floats() {
        let u = |s: &str| Number::from_checked(s).as_u64();
        let i = |s: &str| Number::from_checked(s).as_i64();
        for lexeme in [
            "50", "50.0", "5e1", "5E+1", "500e-1", "0.5e2", "0.05e3", "5000e-2",
        ] {
            assert_eq!(u(lexeme), Some(50), "{lexeme}");
            assert_eq!(i(lexeme), Some(50), "{lexeme}");
            assert_eq!(i(&std::format!("-{lexeme}")), Some(-50), "-{lexeme}");
        }
        for zero in [
            "0",
            "-0",
            "0.0",
            "-0.000e-99999999999999999999",
            "0e999999999",
            "00.00",
        ] {
            assert_eq!(u(zero), Some(0), "{zero}");
            assert_eq!(i(zero), Some(0), "{zero}");
        }
        for fraction in [
            "50.5",
            "5e-1",
            "1.0000000000000000000001",
            "123456789e-9",
            "1e-99999",
        ] {
            assert_eq!(u(fraction), None, "{fraction}");
            assert_eq!(i(fraction), None, "{fraction}");
        }
        // Beyond 2^53 the old f64 route rounded; the digits are exact.
        assert_eq!(u("9007199254740993.0"), Some(9_007_199_254_740_993));
        assert_eq!(u("9.007199254740993e15"), Some(9_007_199_254_740_993));
        assert_eq!(u("1.8446744073709551615e19"), Some(u64::MAX));
        assert_eq!(u("18446744073709551615.000"), Some(u64::MAX));
        assert_eq!(u("1.8446744073709551616e19"), None);
        assert_eq!(u("1e20"), None);
        assert_eq!(u("1e99999999999999999999999"), None);
        assert_eq!(u("-1"), None);
        assert_eq!(u("-1e0"), None);
        assert_eq!(i("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(i("-9.223372036854775808e18"), Some(i64::MIN));
        assert_eq!(i("-9223372036854775809"), None);
        assert_eq!(i("9223372036854775807"), Some(i64::MAX));
        assert_eq!(i("9223372036854775808"), None);
        // Many digits that scale back into range.
        let long = std::format!("1{}e-300", "0".repeat(300));
        assert_eq!(u(&long), Some(1));
        let long = std::format!("0.{}1e301", "0".repeat(299));
        assert_eq!(u(&long), Some(10));
    }

    #[test]
    fn integer_conversions_agree_with_u128_arithmetic() {
        // Every u64 written with its decimal point moved and an exponent compensating for it,
        // plus appended zeros, must read back exactly; a digit after the point must not.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let v = state >> (state % 64);
            let digits = std::format!("{v}");
            let shift = (state % 7) as usize;
            let zeros = "0".repeat((state % 5) as usize);
            // v = digits[..len-shift] . digits[len-shift..] e shift
            let cut = digits.len().saturating_sub(shift);
            let (a, b) = digits.split_at(cut);
            let a = if a.is_empty() { "0" } else { a };
            let lexeme = std::format!("{a}.{b}{zeros}e{}", b.len());
            assert_eq!(Number::from_checked(&lexeme).as_u64(), Some(v), "{lexeme}");
            let expected = i64::try_from(v).ok().map(|x| -x);
            assert_eq!(
                Number::from_checked(&std::format!("-{lexeme}")).as_i64(),
                expected,
                "-{lexeme}"
            );
            if v != 0 {
                let lexeme = std::format!("{a}.{b}{zeros}e{}", b.len() as i64 - 1);
                let exact = u128::from(v) % 10 == 0;
                let expect = exact.then_some(v / 10);
                assert_eq!(Number::from_checked(&lexeme).as_u64(), expect, "{lexeme}");
            }
        }
    }
}
