//! Exact decimal arithmetic on JSON number lexemes.
//!
//! JSON Schema compares numbers by mathematical value: `1.0` is the integer 1, `1e2 == 100`, and
//! `0.3` is a multiple of `0.1`. Converting to `f64` gets these wrong, so this module reads the
//! lexeme's digits directly: a number is `±0.d1d2…dn × 10^lead`, compared digit by digit without
//! any buffer, whatever its length or exponent.

use core::cmp::Ordering;

/// Exponents are saturated at this magnitude. Lexemes are shorter than 2^32 bytes, so digit
/// positions never come near it and comparisons stay exact.
const EXP_LIMIT: i64 = 1 << 48;

/// The most significant digits a `multipleOf` divisor may have (the remainder is computed in
/// `u64`, which holds `divisor × 10` for every divisor below 10^18).
pub(crate) const MULTIPLE_OF_MAX_DIGITS: usize = 18;

/// A checked JSON number lexeme viewed as an exact decimal.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Decimal<'a> {
    neg: bool,
    /// Integer digits followed by fraction digits (the `.` removed).
    int: &'a [u8],
    frac: &'a [u8],
    /// First and last non-zero digit positions in `int ++ frac`; `None` for zero.
    sig: Option<(usize, usize)>,
    exp: i64,
}

impl<'a> Decimal<'a> {
    /// Reads a lexeme that follows the JSON number grammar; `None` when it does not.
    pub(crate) fn parse(raw: &'a str) -> Option<Self> {
        let bytes = raw.as_bytes();
        let (neg, rest) = match bytes.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, bytes),
        };
        let mantissa_end = rest
            .iter()
            .position(|&b| b == b'e' || b == b'E')
            .unwrap_or(rest.len());
        let (mantissa, exp_part) = rest.split_at(mantissa_end);
        let (int, frac) = match mantissa.iter().position(|&b| b == b'.') {
            Some(dot) => (mantissa.get(..dot)?, mantissa.get(dot.wrapping_add(1)..)?), // dot < len
            None => (mantissa, &[][..]),
        };
        if int.is_empty()
            || !int.iter().all(u8::is_ascii_digit)
            || !frac.iter().all(u8::is_ascii_digit)
            || (int.len() > 1 && int.first() == Some(&b'0'))
            || (mantissa.contains(&b'.') && frac.is_empty())
        {
            return None;
        }
        let exp = match exp_part.split_first() {
            None => 0,
            Some((_, e)) => parse_exponent(e)?,
        };
        Some(Self::from_parts(neg, int, frac, exp))
    }

    /// Reads a lexeme already known to follow the JSON number grammar (an instance number
    /// from a checked document, or a program string checked on load) in one pass. On other
    /// input the result is meaningless but nothing panics.
    pub(crate) fn parse_checked(raw: &'a str) -> Self {
        let b = raw.as_bytes();
        let neg = b.first() == Some(&b'-');
        // `i` only steps past a byte that exists (`b.get(i)` is `Some`): `i <= b.len()`.
        let mut i = usize::from(neg);
        let int_start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i = i.wrapping_add(1);
        }
        let int = b.get(int_start..i).unwrap_or_default();
        let mut frac: &[u8] = &[];
        if b.get(i) == Some(&b'.') {
            i = i.wrapping_add(1);
            let frac_start = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i = i.wrapping_add(1);
            }
            frac = b.get(frac_start..i).unwrap_or_default();
        }
        let exp = match b.get(i) {
            Some(b'e' | b'E') => {
                parse_exponent(b.get(i.wrapping_add(1)..).unwrap_or_default()).unwrap_or(0)
            }
            _ => 0,
        };
        Self::from_parts(neg, int, frac, exp)
    }

    fn from_parts(neg: bool, int: &'a [u8], frac: &'a [u8], exp: i64) -> Self {
        let nonzero = |b: &u8| *b != b'0';
        // Two byte slices are each at most `isize::MAX` long, so `int.len() + p` (`p` a
        // position in `frac`) does not wrap.
        let first = int.iter().position(nonzero).or_else(|| {
            frac.iter()
                .position(nonzero)
                .map(|p| int.len().wrapping_add(p))
        });
        let last = frac
            .iter()
            .rposition(nonzero)
            .map(|p| int.len().wrapping_add(p))
            .or_else(|| int.iter().rposition(nonzero));
        Self {
            neg,
            int,
            frac,
            sig: first.zip(last),
            exp,
        }
    }

    /// Digit `i` of `int ++ frac` (0 past the end).
    fn digit(&self, i: usize) -> u8 {
        let b = match i.checked_sub(self.int.len()) {
            None => self.int.get(i),
            Some(j) => self.frac.get(j),
        };
        b.map_or(0, |b| b.wrapping_sub(b'0'))
    }

    /// Power of ten of digit position `i`.
    fn place(&self, i: usize) -> i64 {
        // Lengths are far below 2^47, so none of this saturates (it only could past that).
        let int_len = i64::try_from(self.int.len()).unwrap_or(EXP_LIMIT);
        let i = i64::try_from(i).unwrap_or(EXP_LIMIT);
        int_len
            .saturating_sub(1)
            .saturating_sub(i)
            .saturating_add(self.exp)
    }

    /// True for zero (any sign, any exponent).
    pub(crate) fn is_zero(&self) -> bool {
        self.sig.is_none()
    }

    /// True when the value is strictly negative.
    pub(crate) fn is_negative(&self) -> bool {
        self.neg && !self.is_zero()
    }

    /// True when the value is a mathematical integer (`1.0`, `1e3`, `-0`).
    pub(crate) fn is_integer(&self) -> bool {
        match self.sig {
            None => true,
            Some((_, last)) => self.place(last) >= 0,
        }
    }

    /// Number of significant digits (0 for zero).
    pub(crate) fn significant_digits(&self) -> usize {
        self.sig.map_or(0, |(f, l)| sig_len(f, l))
    }

    /// The value as `u64` when it is a non-negative integer; saturates at `u64::MAX`.
    pub(crate) fn to_u64_saturating(self) -> Option<u64> {
        if self.is_negative() || !self.is_integer() {
            return None;
        }
        let Some((first, last)) = self.sig else {
            return Some(0);
        };
        let top = self.place(first);
        if top >= 20 {
            return Some(u64::MAX);
        }
        let mut v: u64 = 0;
        // Every place from `top` down to 0 contributes a digit (0 past `last`).
        let places = usize::try_from(top).unwrap_or(0).wrapping_add(1); // top < 20
        for i in (first..).take(places) {
            let d = if i <= last { self.digit(i) } else { 0 };
            v = match v.checked_mul(10).and_then(|v| v.checked_add(u64::from(d))) {
                Some(v) => v,
                None => return Some(u64::MAX),
            };
        }
        Some(v)
    }

    /// Exact comparison of two numbers.
    pub(crate) fn cmp(&self, other: &Decimal<'_>) -> Ordering {
        let (sa, sb) = (self.sign(), other.sign());
        if sa != sb {
            return sa.cmp(&sb);
        }
        let magnitude = self.cmp_magnitude(other);
        if sa < 0 {
            magnitude.reverse()
        } else {
            magnitude
        }
    }

    fn sign(&self) -> i8 {
        match (self.is_zero(), self.neg) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        }
    }

    fn cmp_magnitude(&self, other: &Decimal<'_>) -> Ordering {
        let (Some((fa, la)), Some((fb, lb))) = (self.sig, other.sig) else {
            return self.is_zero().cmp(&other.is_zero()).reverse();
        };
        let lead = self.place(fa).cmp(&other.place(fb));
        if lead != Ordering::Equal {
            return lead;
        }
        let (na, nb) = (sig_len(fa, la), sig_len(fb, lb));
        for k in 0..na.max(nb) {
            // `k < n` makes `f + k <= l`: no wrap.
            let da = if k < na {
                self.digit(fa.wrapping_add(k))
            } else {
                0
            };
            let db = if k < nb {
                other.digit(fb.wrapping_add(k))
            } else {
                0
            };
            if da != db {
                return da.cmp(&db);
            }
        }
        Ordering::Equal
    }

    /// True when `self` is an integer multiple of `divisor` (exact).
    ///
    /// `None` when the divisor is zero, negative or has more than
    /// [`MULTIPLE_OF_MAX_DIGITS`] significant digits (the compiler refuses those).
    pub(crate) fn is_multiple_of(&self, divisor: &Decimal<'_>) -> Option<bool> {
        let (df, dl) = divisor.sig?;
        if divisor.neg || sig_len(df, dl) > MULTIPLE_OF_MAX_DIGITS {
            return None;
        }
        let Some((xf, xl)) = self.sig else {
            return Some(true);
        };
        // self = X × 10^a and divisor = D × 10^b, X and D without trailing zeros.
        // 1 <= D < 10^18, so `r * 10 + 9 < 10^19` stays inside a u64 in the loops below, and
        // no step needs a division or 128-bit arithmetic (both are large and slow on small
        // cores).
        let mut d: u64 = 0;
        for i in df..=dl {
            // At most 18 digits (checked above): `d < 10^18`.
            d = d.wrapping_mul(10).wrapping_add(u64::from(divisor.digit(i)));
        }
        let (a, b) = (self.place(xl), divisor.place(dl));
        if a < b {
            // X is not divisible by 10, so X × 10^a / 10^b is not even an integer.
            return Some(false);
        }
        if d == 1 {
            // Every integer is a multiple of 1 (divisors such as `0.01`, `0.1`, `1e-8`).
            return Some(true);
        }
        let mut r: u64 = 0;
        for i in xf..=xl {
            r = digit_step(r, self.digit(i), d);
        }
        // X × 10^shift mod D.
        let shift = a.abs_diff(b); // `a >= b`: this is `a - b`, and never overflows
        if shift <= 64 {
            for _ in 0..shift {
                r = digit_step(r, 0, d);
            }
            return Some(r == 0);
        }
        Some(mul_mod(r, pow10_mod(shift, d), d) == 0)
    }
}

/// Exact comparison of two checked number lexemes. Lexemes without an exponent (the common
/// case) are compared digit by digit in place; others go through [`Decimal`].
pub(crate) fn cmp_lexemes(a: &str, b: &str) -> Ordering {
    // Different signs decide without reading the digits (a number whose first digit is not
    // `0` is not zero: JSON has no leading zeros).
    if let (Some(x), Some(y)) = (nonzero_sign(a), nonzero_sign(b)) {
        if x != y || x == 0 {
            return x.cmp(&y);
        }
    }
    let (Some((sa, ai, af)), Some((sb, bi, bf))) = (split_plain(a), split_plain(b)) else {
        return Decimal::parse_checked(a).cmp(&Decimal::parse_checked(b));
    };
    if sa != sb || sa == 0 {
        return sa.cmp(&sb);
    }
    // Integer parts have no leading zeros (JSON grammar), so longer is larger.
    let mut magnitude = ai.len().cmp(&bi.len());
    if magnitude == Ordering::Equal {
        magnitude = cmp_digits(ai, bi);
    }
    if magnitude == Ordering::Equal {
        // Fractions: compare the common prefix, then whichever is longer is larger unless
        // its extra digits are all zeros.
        magnitude = cmp_digits(af, bf);
        if magnitude == Ordering::Equal {
            let common = af.len().min(bf.len());
            let extra = |f: &[u8]| {
                f.get(common..)
                    .unwrap_or_default()
                    .iter()
                    .any(|&c| c != b'0')
            };
            magnitude = extra(af).cmp(&extra(bf));
        }
    }
    if sa < 0 {
        magnitude.reverse()
    } else {
        magnitude
    }
}

/// The sign (-1, 0 or 1) of a lexeme when its first digit tells: not `0` (so not zero), or
/// the lexeme is `0` or `-0`; `None` otherwise (`0.5`, `0e3`).
fn nonzero_sign(s: &str) -> Option<i8> {
    match s.as_bytes() {
        [b'-', b'1'..=b'9', ..] => Some(-1),
        [b'1'..=b'9', ..] => Some(1),
        [b'0'] | [b'-', b'0'] => Some(0),
        _ => None,
    }
}

/// The first difference between two digit strings over their common length.
fn cmp_digits(a: &[u8], b: &[u8]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    Ordering::Equal
}

/// Sign (-1, 0 or 1), integer digits and fraction digits of a checked lexeme, in one pass;
/// `None` when it has an exponent.
fn split_plain(s: &str) -> Option<(i8, &[u8], &[u8])> {
    let b = s.as_bytes();
    let (neg, body) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    let int_len = body
        .iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(body.len());
    let int = body.get(..int_len).unwrap_or_default();
    let frac = match body.get(int_len..).unwrap_or_default().split_first() {
        None => &[][..],
        Some((b'.', frac)) if frac.iter().all(u8::is_ascii_digit) => frac,
        Some(_) => return None, // an exponent
    };
    let zero = int == b"0" && frac.iter().all(|&c| c == b'0');
    Some(match (zero, neg) {
        (true, _) => (0, int, frac),
        (false, true) => (-1, int, frac),
        (false, false) => (1, int, frac),
    })
}

/// True when a checked number lexeme is a mathematical integer.
pub(crate) fn lexeme_is_integer(raw: &str) -> bool {
    let b = raw.as_bytes();
    // One pass: digits (and a sign) only is an integer; a fraction of zeros is too.
    let Some(dot_or_exp) = b.iter().position(|&c| matches!(c, b'.' | b'e' | b'E')) else {
        return true;
    };
    let rest = b.get(dot_or_exp.wrapping_add(1)..).unwrap_or_default(); // a position < len
    if b.get(dot_or_exp) == Some(&b'.') && rest.iter().all(|&c| c == b'0') {
        return true;
    }
    Decimal::parse_checked(raw).is_integer()
}

/// True when the checked lexeme `x` is a multiple of the checked lexeme `divisor` (`false`
/// for a divisor the compiler refuses). Out of line: the validator's frames stay small.
#[inline(never)]
pub(crate) fn lexeme_is_multiple_of(x: &str, divisor: &str) -> bool {
    // A power of ten without exponent (`0.01`, `1`, `100`, the usual divisors) and an
    // instance without exponent: only the digits' positions matter.
    if let (Some(k), Some((_, int, frac))) = (power_of_ten(divisor), split_plain(x)) {
        // `p < frac.len()`: no wrap.
        let frac_len = frac
            .iter()
            .rposition(|&c| c != b'0')
            .map_or(0, |p| p.wrapping_add(1));
        return match usize::try_from(k) {
            // 10^-k: at most k significant fraction digits.
            Err(_) => frac_len as u64 <= k.unsigned_abs(),
            // 10^k: an integer whose last k digits are zeros (or zero).
            Ok(k) => {
                frac_len == 0
                    && (int == b"0"
                        || int.len() > k
                            && int
                                .get(int.len().wrapping_sub(k)..) // `int.len() > k`
                                .is_some_and(|z| z.iter().all(|&c| c == b'0')))
            }
        };
    }
    Decimal::parse_checked(x)
        .is_multiple_of(&Decimal::parse_checked(divisor))
        .unwrap_or(false)
}

/// `k` when the lexeme (without exponent) is exactly 10^k.
fn power_of_ten(s: &str) -> Option<i64> {
    let (sign, int, frac) = split_plain(s)?;
    if sign != 1 {
        return None;
    }
    let zeros = |d: &[u8]| d.iter().all(|&c| c == b'0');
    if int != b"0" {
        // `1`, `10`, `100`, …, with a fraction of zeros if any.
        let (first, rest) = int.split_first()?;
        return (*first == b'1' && zeros(rest) && zeros(frac))
            .then(|| i64::try_from(rest.len()).ok())
            .flatten();
    }
    // `0.1`, `0.01`, …, possibly followed by zeros.
    let one = frac.iter().position(|&c| c != b'0')?;
    // `one < frac.len()`, so `one + 1` does not wrap; `k >= 1` negates.
    let after = frac.get(one.wrapping_add(1)..).unwrap_or_default();
    (frac.get(one) == Some(&b'1') && zeros(after))
        .then(|| {
            i64::try_from(one.wrapping_add(1))
                .ok()
                .map(i64::wrapping_neg)
        })
        .flatten()
}

/// `(r × 10 + digit) mod m` for `r < m <= 10^18`, by subtraction (the sum is below `10 m`).
fn digit_step(r: u64, digit: u8, m: u64) -> u64 {
    // `r < 10^18`: the sum is below `10^19 + 10 < 2^64`; `x >= m` before each subtraction.
    let mut x = r.wrapping_mul(10).wrapping_add(u64::from(digit));
    while x >= m {
        x = x.wrapping_sub(m);
    }
    x
}

/// `(a + b) mod m` for `a, b < m < 2^63`.
fn add_mod(a: u64, b: u64, m: u64) -> u64 {
    // Below `2m < 2^64`; `s >= m` before the subtraction.
    let s = a.wrapping_add(b);
    if s >= m {
        s.wrapping_sub(m)
    } else {
        s
    }
}

/// `(a × b) mod m` for `a, b < m < 2^63`, by doubling and adding.
fn mul_mod(a: u64, mut b: u64, m: u64) -> u64 {
    let (mut a, mut r) = (a, 0);
    while b > 0 {
        if b & 1 == 1 {
            r = add_mod(r, a, m);
        }
        a = add_mod(a, a, m);
        b >>= 1;
    }
    r
}

/// `10^e mod m` for `1 <= m <= 10^18`.
fn pow10_mod(mut e: u64, m: u64) -> u64 {
    let mut result = digit_step(0, 1, m);
    let mut base = digit_step(1, 0, m);
    while e > 0 {
        if e & 1 == 1 {
            result = mul_mod(result, base, m);
        }
        base = mul_mod(base, base, m);
        e >>= 1;
    }
    result
}

/// The number of digits from position `first` to `last` (`first <= last`, both positions in
/// one lexeme, so this never wraps).
const fn sig_len(first: usize, last: usize) -> usize {
    last.wrapping_sub(first).wrapping_add(1)
}

fn parse_exponent(e: &[u8]) -> Option<i64> {
    let (neg, digits) = match e.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, e),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // `v <= EXP_LIMIT` (2^48) before each step, so `v * 10 + 9` does not wrap; `b` is an ASCII
    // digit (checked above).
    let mut v: i64 = 0;
    for &b in digits {
        v = v
            .wrapping_mul(10)
            .wrapping_add(i64::from(b.wrapping_sub(b'0')))
            .min(EXP_LIMIT);
    }
    Some(if neg { v.wrapping_neg() } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal<'_> {
        Decimal::parse(s).unwrap()
    }

    #[test]
    fn compares_by_value() {
        assert_eq!(d("1").cmp(&d("1.0")), Ordering::Equal);
        assert_eq!(d("1e2").cmp(&d("100")), Ordering::Equal);
        assert_eq!(d("100").cmp(&d("10E+1")), Ordering::Equal);
        assert_eq!(d("0.1").cmp(&d("1e-1")), Ordering::Equal);
        assert_eq!(d("-0").cmp(&d("0.000")), Ordering::Equal);
        assert_eq!(d("1.5").cmp(&d("1.25")), Ordering::Greater);
        assert_eq!(d("-1.5").cmp(&d("-1.25")), Ordering::Less);
        assert_eq!(d("-1").cmp(&d("0")), Ordering::Less);
        assert_eq!(d("0").cmp(&d("1e-400")), Ordering::Less);
        assert_eq!(d("99").cmp(&d("100")), Ordering::Less);
        assert_eq!(
            d("18446744073709551616").cmp(&d("18446744073709551615")),
            Ordering::Greater
        );
        assert_eq!(
            d("1e999999999999999999").cmp(&d("1e308")),
            Ordering::Greater
        );
    }

    #[test]
    fn integers() {
        for s in [
            "0",
            "-0",
            "1.0",
            "1e3",
            "1.5e1",
            "-12.000",
            "1e400",
            "123456789012345678901234567890",
        ] {
            assert!(d(s).is_integer(), "{s}");
        }
        for s in ["0.5", "1.05e1", "1e-1", "-0.0001"] {
            assert!(!d(s).is_integer(), "{s}");
        }
        assert_eq!(d("2.0").to_u64_saturating(), Some(2));
        assert_eq!(d("1e3").to_u64_saturating(), Some(1000));
        assert_eq!(d("1e30").to_u64_saturating(), Some(u64::MAX));
        assert_eq!(d("0.0").to_u64_saturating(), Some(0));
        assert_eq!(d("-1").to_u64_saturating(), None);
        assert_eq!(d("1.5").to_u64_saturating(), None);
    }

    #[test]
    fn multiples_are_exact() {
        let m = |x: &str, y: &str| d(x).is_multiple_of(&d(y)).unwrap();
        assert!(m("0.3", "0.1"));
        assert!(m("4.5", "1.5"));
        assert!(!m("35", "1.5"));
        assert!(m("0.0075", "0.0001"));
        assert!(!m("0.00751", "0.0001"));
        assert!(m("10", "2"));
        assert!(!m("7", "2"));
        assert!(m("0", "7"));
        assert!(m("1e308", "1"));
        assert!(!m("1e308", "0.123456789"));
        assert!(m("12391239123", "1e-8"));
        assert!(m("-6", "3"));
        assert!(m("19.99", "0.01"));
        // Shifts beyond the short loop go through modular exponentiation.
        assert!(m("7e100", "7e30"));
        assert!(!m("1e100", "7e30"));
        assert!(!m("1e100", "3"));
        assert!(m("3e100", "3"));
        assert!(m("999999999999999999e80", "999999999999999999"));
        assert!(!m("999999999999999998e80", "999999999999999999"));
        assert!(m("12e70", "0.000000000000000004"));
        assert!(lexeme_is_multiple_of("1013.25", "0.01"));
        assert!(!lexeme_is_multiple_of("1013.255", "0.01"));
        assert!(!lexeme_is_multiple_of("1", "0"));
        assert_eq!(d("1").is_multiple_of(&d("0")), None);
        assert_eq!(d("1").is_multiple_of(&d("1234567890123456789")), None);
    }

    /// `x × 10^e mod m` the slow, obvious way with 128-bit products.
    fn reference_mod(x: u64, e: u64, m: u64) -> u64 {
        let m = u128::from(m);
        let mut r = u128::from(x) % m;
        for _ in 0..e {
            r = r * 10 % m;
        }
        r as u64
    }

    #[test]
    fn modular_steps_agree_with_128_bit_arithmetic() {
        for m in [
            1u64,
            2,
            3,
            7,
            9,
            10,
            97,
            999_983,
            123_456_789_012_345_678,
            999_999_999_999_999_999,
        ] {
            for x in [0u64, 1, 5, 42, 999_999, 123_456_789_012_345] {
                for e in [0u64, 1, 2, 17, 64, 65, 100, 301] {
                    let x = x % m;
                    let fast = mul_mod(x, pow10_mod(e, m), m);
                    assert_eq!(fast, reference_mod(x, e, m), "{x} × 10^{e} mod {m}");
                }
            }
        }
    }

    #[test]
    fn power_of_ten_divisors_agree_with_exact_arithmetic() {
        let xs = [
            "0",
            "-0",
            "0.0",
            "1",
            "-1",
            "10",
            "100",
            "1000",
            "120",
            "1013.25",
            "1013.250",
            "1013.255",
            "-19.99",
            "0.001",
            "0.0100",
            "5",
            "50",
            "500.00",
            "123456789012345678901",
        ];
        let divisors = [
            "1", "10", "100", "1.0", "0.1", "0.01", "0.010", "0.001", "0.5", "2",
        ];
        for x in xs {
            for d in divisors {
                let exact = Decimal::parse_checked(x)
                    .is_multiple_of(&Decimal::parse_checked(d))
                    .unwrap();
                assert_eq!(lexeme_is_multiple_of(x, d), exact, "{x} multipleOf {d}");
            }
        }
        assert_eq!(power_of_ten("0.01"), Some(-2));
        assert_eq!(power_of_ten("100.0"), Some(2));
        assert_eq!(power_of_ten("1"), Some(0));
        assert_eq!(power_of_ten("0.5"), None);
        assert_eq!(power_of_ten("1e2"), None);
        assert_eq!(power_of_ten("-1"), None);
    }

    #[test]
    fn lexeme_fast_paths_agree() {
        let samples = [
            "0",
            "-0",
            "0.0",
            "-0.00",
            "1",
            "1.0",
            "1.5",
            "-1.5",
            "10",
            "9.99",
            "10.001",
            "-10",
            "100",
            "1e2",
            "1E-2",
            "0.01",
            "-2.5e1",
            "123456789012345678901234567890",
            "0.5",
            "-0.5",
            "2",
            "2.000",
            "-7",
            "-70",
            "1.0e1",
            "5e-0",
            "0e5",
        ];
        for a in samples {
            for b in samples {
                assert_eq!(cmp_lexemes(a, b), d(a).cmp(&d(b)), "{a} vs {b}");
            }
            assert_eq!(lexeme_is_integer(a), d(a).is_integer(), "{a}");
        }
    }

    #[test]
    fn checked_parse_agrees() {
        for s in [
            "0",
            "-0",
            "1.0",
            "1e3",
            "-12.50e-2",
            "0.000",
            "123456789012345678901234567890",
        ] {
            let (a, b) = (d(s), Decimal::parse_checked(s));
            assert_eq!(a.cmp(&b), Ordering::Equal, "{s}");
            assert_eq!(a.is_integer(), b.is_integer(), "{s}");
            assert_eq!(a.significant_digits(), b.significant_digits(), "{s}");
        }
        // Garbage does not panic.
        for s in ["", "-", "e", "1e", "--", ".", "1.e"] {
            let _ = Decimal::parse_checked(s).is_integer();
        }
    }

    #[test]
    fn rejects_non_lexemes() {
        for s in ["", "-", "01", "1.", ".5", "1e", "abc", "1.2.3"] {
            assert!(Decimal::parse(s).is_none(), "{s}");
        }
    }
}
