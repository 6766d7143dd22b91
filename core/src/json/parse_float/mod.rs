//! Decimal to binary floating point: the `f64` or `f32` nearest to a JSON number lexeme,
//! rounded half to even, the same value as `str::parse` (checked against it by the tests), with
//! no panic path, no allocation and a 400-byte table instead of core's 10 KB one.
//!
//! `str::parse::<f64>` cannot be used: the optimiser keeps about ten of its bounds checks, so
//! a firmware that reads floats could not prove it never panics (`examples/panic-free`).
//!
//! The value is `w * 10^q` where `w` holds the first 19 significant digits; three steps, each
//! used only when the one before cannot decide:
//! 1. exact float arithmetic: `w <= 2^53` and `|q| <= 22` (`2^24` and 10 for `f32`) are both
//!    exact floats, so one correctly rounded multiplication or division is the answer;
//! 2. a scaled product (`product.rs`, the idea of Eisel and Lemire): `w` times a 128-bit
//!    approximation of `5^q`, known within a few units, decides the rounding unless the
//!    product's bits below the rounding point are all ones, or, with more than 19 digits,
//!    unless `w` and `w + 1` round differently;
//! 3. exact comparison (`exact.rs`): the digits (the first 800 significant ones, and whether
//!    a later one is non-zero) against the halfway point between the step-2 candidate and the
//!    next float, as big integers.
//!
//! Out of range: values beyond the largest finite float round to infinity (as `str::parse`);
//! the JSON layer refuses those ([`Number::as_f64`](super::Number::as_f64) is `None`, serde's
//! `f32`/`f64` fail with `NumberOutOfRange`). Values below half the smallest subnormal are zero
//! (with the lexeme's sign), as `str::parse` gives.

mod exact;
mod product;
#[cfg(test)]
mod tests;

/// Significant digits held in a `u64` (`10^19 - 1 < 2^64`).
const W_DIGITS: usize = 19;

/// Bound of an exponent's magnitude while it is read: any exponent beyond it gives zero or
/// infinity whatever the digits (a lexeme has fewer than 2^48 digits), and sums of it and a
/// lexeme length cannot overflow an `i64`.
const EXPONENT_SATURATION: i64 = 1 << 48;

/// A binary floating-point format: what differs between `f64` and `f32`. Bit patterns are
/// handled as `u64` (an `f32`'s in the low 32 bits).
pub(crate) trait Format: Copy {
    /// Bits of the stored mantissa (the leading 1 of a normal number is implicit).
    const MANTISSA_BITS: u32;
    /// Exponent of the smallest normal number.
    const MIN_EXP: i64;
    /// Exponent of the largest finite number.
    const MAX_EXP: i64;
    /// Below this decimal exponent `w * 10^q` is zero for every `w < 10^19`.
    const MIN_Q: i64;
    /// Above this decimal exponent `w * 10^q` is infinite for every `w >= 1`.
    const MAX_Q: i64;
    /// The bits of positive infinity.
    const INFINITY_BITS: u64 = ((Self::MAX_EXP - Self::MIN_EXP + 2) as u64) << Self::MANTISSA_BITS;
    /// The float of these bits (an `f32`'s in the low 32), positive.
    fn from_bits(bits: u64) -> Self;
    /// `w * 10^q` by one float operation, when `w` and `10^|q|` are exact floats.
    fn exact(w: u64, q: i64) -> Option<Self>;
    /// The bits of this float (an `f32`'s in the low 32).
    fn to_bits_u64(self) -> u64;
    /// The same value with the opposite sign.
    fn negate(self) -> Self;
}

/// On x87 without SSE2 a float operation rounds twice (to 64 bits, then to the format), so
/// the exact-float step could be off by one unit: it is skipped there.
const DOUBLE_ROUNDING: bool = cfg!(all(target_arch = "x86", not(target_feature = "sse2")));

/// Powers of ten that are exact `f64`s (`5^22 < 2^53`).
const POW10_F64: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Powers of ten that are exact `f32`s (`5^10 < 2^24`).
const POW10_F32: [f32; 11] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];

impl Format for f64 {
    const MANTISSA_BITS: u32 = 52;
    const MIN_EXP: i64 = -1022;
    const MAX_EXP: i64 = 1023;
    // 10^19 * 10^-343 = 10^-324 is below 2^-1075, half the smallest subnormal.
    const MIN_Q: i64 = -342;
    // 10^309 is beyond the largest finite f64 and the halfway point above it.
    const MAX_Q: i64 = 308;

    fn from_bits(bits: u64) -> Self {
        f64::from_bits(bits)
    }

    fn exact(w: u64, q: i64) -> Option<Self> {
        if DOUBLE_ROUNDING || w > 1 << 53 {
            return None;
        }
        let pow = *POW10_F64.get(usize::try_from(q.unsigned_abs()).ok()?)?;
        // `w <= 2^53` converts exactly.
        let w = w as f64;
        Some(if q < 0 { w / pow } else { w * pow })
    }

    fn to_bits_u64(self) -> u64 {
        self.to_bits()
    }

    fn negate(self) -> Self {
        -self
    }
}

impl Format for f32 {
    const MANTISSA_BITS: u32 = 23;
    const MIN_EXP: i64 = -126;
    const MAX_EXP: i64 = 127;
    // 10^19 * 10^-65 = 10^-46 is below 2^-150, half the smallest subnormal.
    const MIN_Q: i64 = -64;
    // 10^39 is beyond the largest finite f32 and the halfway point above it.
    const MAX_Q: i64 = 38;

    fn from_bits(bits: u64) -> Self {
        // Truncation intended: an f32's bits are the low 32 (all the callers make).
        f32::from_bits(bits as u32)
    }

    fn exact(w: u64, q: i64) -> Option<Self> {
        if DOUBLE_ROUNDING || w > 1 << 24 {
            return None;
        }
        let pow = *POW10_F32.get(usize::try_from(q.unsigned_abs()).ok()?)?;
        // `w <= 2^24` converts exactly.
        let w = w as f32;
        Some(if q < 0 { w / pow } else { w * pow })
    }

    fn to_bits_u64(self) -> u64 {
        u64::from(self.to_bits())
    }

    fn negate(self) -> Self {
        -self
    }
}

/// The nearest `F` to a JSON number lexeme (`-?digits(.digits)?([eE][+-]?digits)?`; leading
/// zeros are accepted), rounded half to even; infinite beyond the largest finite value.
/// `None` when `lexeme` is not a number of that form.
pub(crate) fn parse<F: Format>(lexeme: &str) -> Option<F> {
    let decimal = Decimal::parse(lexeme.as_bytes())?;
    let magnitude = F::from_bits(magnitude_bits::<F>(&decimal));
    Some(if decimal.negative {
        magnitude.negate()
    } else {
        magnitude
    })
}

/// The bits of the nearest `F` to the lexeme's magnitude.
fn magnitude_bits<F: Format>(decimal: &Decimal<'_>) -> u64 {
    let Some(lead) = decimal.leading() else {
        return 0;
    };
    if lead.q < F::MIN_Q {
        return 0;
    }
    if lead.q > F::MAX_Q {
        return F::INFINITY_BITS;
    }
    if !lead.truncated {
        if let Some(value) = F::exact(lead.w, lead.q) {
            return value.to_bits_u64();
        }
    }
    let low = product::round::<F>(lead.w, lead.q);
    if let Some(bits) = low.bits() {
        if !lead.truncated {
            return bits;
        }
        // The digits are in [w, w + 1) * 10^q: one answer if both ends round alike.
        let high = lead
            .w
            .checked_add(1)
            .map(|w| product::round::<F>(w, lead.q));
        if high.and_then(|r| r.bits()) == Some(bits) {
            return bits;
        }
    }
    exact::round::<F>(decimal, low.candidate)
}

/// A number lexeme split into its parts (digits as ASCII).
struct Decimal<'a> {
    negative: bool,
    /// The digits before the decimal point (at least one).
    int: &'a [u8],
    /// The digits after it (none without a point).
    frac: &'a [u8],
    /// The exponent after `e`, saturated at +-[`EXPONENT_SATURATION`].
    exp: i64,
}

/// The first significant digits of a [`Decimal`]: its value is `w * 10^q` exactly when not
/// `truncated`, and in `(w * 10^q, (w + 1) * 10^q)` when it is.
struct Leading {
    w: u64,
    q: i64,
    /// A non-zero digit follows the first 19 significant ones.
    truncated: bool,
}

impl<'a> Decimal<'a> {
    /// Splits a lexeme, or `None` when it is not a number.
    fn parse(bytes: &'a [u8]) -> Option<Self> {
        let (negative, rest) = match bytes.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, bytes),
        };
        let (int, rest) = split_digits(rest)?;
        let (frac, rest) = match rest.split_first() {
            Some((b'.', rest)) => split_digits(rest)?,
            _ => (&[][..], rest),
        };
        let exp = match rest.split_first() {
            None => 0,
            Some((b'e' | b'E', rest)) => {
                let (negative, rest) = match rest.split_first() {
                    Some((b'-', rest)) => (true, rest),
                    Some((b'+', rest)) => (false, rest),
                    _ => (false, rest),
                };
                let (digits, rest) = split_digits(rest)?;
                if !rest.is_empty() {
                    return None;
                }
                let magnitude = digits.iter().fold(0i64, |e, &d| {
                    e.saturating_mul(10)
                        .saturating_add(i64::from(d.wrapping_sub(b'0')))
                        .min(EXPONENT_SATURATION)
                });
                if negative {
                    magnitude.wrapping_neg()
                } else {
                    magnitude
                }
            }
            Some(_) => return None,
        };
        Some(Self {
            negative,
            int,
            frac,
            exp,
        })
    }

    /// The significant digits (values 0 to 9): leading zeros skipped.
    fn significant(&self) -> impl Iterator<Item = u8> + Clone + 'a {
        self.int
            .iter()
            .chain(self.frac)
            .map(|d| d.wrapping_sub(b'0'))
            .skip_while(|&d| d == 0)
    }

    /// The decimal exponent of the last of the first `kept` of `total` significant digits.
    fn exponent_after(&self, kept: usize, total: usize) -> i64 {
        let frac = i64::try_from(self.frac.len()).unwrap_or(i64::MAX);
        let dropped = i64::try_from(total.saturating_sub(kept)).unwrap_or(i64::MAX);
        self.exp.saturating_sub(frac).saturating_add(dropped)
    }

    /// The first 19 significant digits, or `None` for zero.
    fn leading(&self) -> Option<Leading> {
        // The two slices one after the other (a plain loop each: faster than a chain).
        let mut acc = Accumulator::default();
        acc.feed(self.int);
        acc.feed(self.frac);
        if acc.total == 0 {
            return None;
        }
        let kept = acc.total.min(W_DIGITS);
        Some(Leading {
            w: acc.w,
            q: self.exponent_after(kept, acc.total),
            truncated: acc.truncated,
        })
    }
}

/// The state of [`Decimal::leading`]'s pass over the digits.
#[derive(Default)]
struct Accumulator {
    w: u64,
    /// Significant digits seen.
    total: usize,
    truncated: bool,
}

impl Accumulator {
    fn feed(&mut self, digits: &[u8]) {
        for &b in digits {
            let d = b.wrapping_sub(b'0');
            if self.total < W_DIGITS {
                if self.total == 0 && d == 0 {
                    // A leading zero.
                    continue;
                }
                // 19 digits stay below 10^19 < 2^64.
                self.w = self.w.wrapping_mul(10).wrapping_add(u64::from(d));
            } else if d != 0 {
                self.truncated = true;
            }
            self.total = self.total.saturating_add(1);
        }
    }
}

/// The leading ASCII digits of `bytes` (at least one) and the rest.
fn split_digits(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let n = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    if n == 0 {
        return None;
    }
    bytes.split_at_checked(n)
}
