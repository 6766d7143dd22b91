//! The exact step: which of two neighbouring floats is nearest to the decimal digits, decided
//! by comparing the digits with the halfway point between them as big integers.
//!
//! The candidate `b` from the scaled product is at or below the value and the nearest float is
//! `b` or the next one up (the value is below `b + 1` unit plus a hair). The halfway point
//! `H = (2 m + 1) * 2^(e - 1)` (for `b = m * 2^e`) is compared with `D = d * 10^k`, where `d`
//! holds the first [`KEPT_DIGITS`] significant digits: above `H` rounds up, below rounds down,
//! equal rounds to the even mantissa unless a later digit is non-zero (then `D` is above).
//!
//! Why 800 digits are enough: `H` has at most 768 significant digits (`(2m+1) * 5^1075 <
//! 2^54 * 5^1075 < 10^768` for the smallest `f64` exponent; far fewer for `f32`). If `H`'s
//! last digit is at or above the last kept digit of `D`, `H` is a multiple of that digit's
//! unit and the kept digits alone order `D` and `H` (the dropped tail is below one unit); if
//! not, `H` is below `10^(lead - 31)` while `D` is at least `10^lead`.
//!
//! Sizes: both sides are below 2^2668 (`d < 10^800`; `h * 5^1124`, `h < 2^55`, for the
//! smallest `D` with 800 digits; the two sides differ by a factor below 4, the value being
//! between `b` and two units above it), so [`LIMBS`] 32-bit limbs hold them with room.

use core::cmp::Ordering;

use super::{Decimal, Format};

/// Significant digits compared exactly (at least 769: see the module documentation).
const KEPT_DIGITS: usize = 800;

/// 32-bit limbs of a [`Big`]: 2 816 bits.
const LIMBS: usize = 88;

/// The largest power of five in a limb.
const POW5_13: u32 = 1_220_703_125;

/// Rounds the decimal to `F` given the float `candidate` (bits) at or below it.
pub(super) fn round<F: Format>(decimal: &Decimal<'_>, candidate: u64) -> u64 {
    let (m, h, eh) = halfway::<F>(candidate);
    let Some((left, right, sticky)) = sides(decimal, h, eh) else {
        // Impossible for these sizes (see the module documentation, and the tests):
        // the candidate stands.
        return candidate;
    };
    let up = match left.cmp(&right) {
        Ordering::Less => false,
        Ordering::Greater => true,
        Ordering::Equal => sticky || m & 1 == 1,
    };
    candidate.wrapping_add(u64::from(up))
}

/// The candidate's mantissa `m` and the halfway point above it, `h * 2^eh`.
fn halfway<F: Format>(candidate: u64) -> (u64, u64, i64) {
    let mantissa_bits = F::MANTISSA_BITS;
    let field = candidate.checked_shr(mantissa_bits).unwrap_or(0);
    let fraction = candidate & !u64::MAX.checked_shl(mantissa_bits).unwrap_or(0);
    // candidate = m * 2^e (a subnormal has field 0 and the exponent of field 1).
    let (m, e) = if field == 0 {
        (fraction, F::MIN_EXP)
    } else {
        let field = i64::try_from(field).unwrap_or(i64::MAX);
        (
            fraction | 1u64.wrapping_shl(mantissa_bits),
            F::MIN_EXP.wrapping_add(field).wrapping_sub(1),
        )
    };
    let e = e.wrapping_sub(i64::from(mantissa_bits));
    // h = 2m + 1 < 2^55.
    (m, m.wrapping_shl(1) | 1, e.wrapping_sub(1))
}

/// The two sides of `D` against `h * 2^eh` as integers in the same ratio, and whether a
/// digit beyond the kept ones is non-zero; `None` if a side does not fit.
fn sides(decimal: &Decimal<'_>, h: u64, eh: i64) -> Option<(Big, Big, bool)> {
    let (mut left, kept, total, sticky) = digits(decimal);
    let k = decimal.exponent_after(kept, total);
    // D / H = d * 5^k * 2^(k - eh) / h: the powers go to the side where they are positive.
    let mut right = Big::from_u64(h);
    if k >= 0 {
        left.mul_pow5(k.unsigned_abs());
    } else {
        right.mul_pow5(k.unsigned_abs());
    }
    let twos = k.saturating_sub(eh);
    if twos >= 0 {
        left.shl(twos.unsigned_abs());
    } else {
        right.shl(twos.unsigned_abs());
    }
    (!left.overflow && !right.overflow).then_some((left, right, sticky))
}

/// The first [`KEPT_DIGITS`] significant digits as an integer, how many they are, how many
/// significant digits there are in all, and whether a later one is non-zero.
fn digits(decimal: &Decimal<'_>) -> (Big, usize, usize, bool) {
    let mut big = Big::zero();
    let mut chunk = 0u32;
    let mut chunk_len = 0u32;
    let mut total = 0usize;
    let mut sticky = false;
    for d in decimal.significant() {
        if total < KEPT_DIGITS {
            // Nine digits stay below 10^9 < 2^32.
            chunk = chunk.wrapping_mul(10).wrapping_add(u32::from(d));
            chunk_len = chunk_len.wrapping_add(1);
            if chunk_len == 9 {
                big.mul_add(1_000_000_000, chunk);
                (chunk, chunk_len) = (0, 0);
            }
        } else if d != 0 {
            sticky = true;
        }
        total = total.saturating_add(1);
    }
    if chunk_len > 0 {
        big.mul_add(10u32.wrapping_pow(chunk_len), chunk);
    }
    (big, total.min(KEPT_DIGITS), total, sticky)
}

/// An unsigned integer of up to [`LIMBS`] 32-bit limbs, least significant first; the limbs from
/// `len` on are zero and `limbs[len - 1]` is not.
#[derive(Clone, Copy)]
struct Big {
    limbs: [u32; LIMBS],
    len: usize,
    /// A result did not fit (never for the sizes used; checked by the tests).
    overflow: bool,
}

impl Big {
    fn zero() -> Self {
        Self {
            limbs: [0; LIMBS],
            len: 0,
            overflow: false,
        }
    }

    fn from_u64(v: u64) -> Self {
        let mut big = Self::zero();
        // Truncation intended: the high and the low half.
        big.mul_add(1, (v >> 32) as u32);
        big.shl(32);
        big.mul_add(1, v as u32);
        big
    }

    /// `self * m + a`.
    fn mul_add(&mut self, m: u32, a: u32) {
        let mut carry = u64::from(a);
        for limb in self.limbs.iter_mut().take(self.len) {
            // (2^32 - 1)^2 + 2^32 - 1 < 2^64.
            let v = u64::from(*limb)
                .wrapping_mul(u64::from(m))
                .wrapping_add(carry);
            // Truncation intended: the low limb, the rest carries.
            *limb = v as u32;
            carry = v >> 32;
        }
        self.push(carry);
    }

    /// Appends a non-zero carry as the most significant limb.
    fn push(&mut self, carry: u64) {
        if carry == 0 {
            return;
        }
        match self.limbs.get_mut(self.len) {
            Some(slot) => {
                // The carry of one limb times a limb is below 2^32.
                *slot = carry as u32;
                // `len < LIMBS` here.
                self.len = self.len.wrapping_add(1);
            }
            None => self.overflow = true,
        }
    }

    /// `self * 5^n`.
    fn mul_pow5(&mut self, mut n: u64) {
        while n >= 13 && !self.overflow {
            self.mul_add(POW5_13, 0);
            n = n.wrapping_sub(13);
        }
        // n < 13: 5^n fits a limb.
        self.mul_add(5u32.wrapping_pow(n as u32), 0);
    }

    /// `self * 2^n`.
    fn shl(&mut self, n: u64) {
        if self.len == 0 {
            return;
        }
        let limbs = usize::try_from(n / 32).unwrap_or(usize::MAX);
        // n % 32 < 32.
        let bits = (n % 32) as u32;
        if bits > 0 {
            self.mul_add(1 << bits, 0);
        }
        if limbs == 0 {
            return;
        }
        let Some(len) = self.len.checked_add(limbs).filter(|&len| len <= LIMBS) else {
            self.overflow = true;
            return;
        };
        let mut shifted = [0u32; LIMBS];
        for (to, from) in shifted.iter_mut().skip(limbs).zip(&self.limbs) {
            *to = *from;
        }
        self.limbs = shifted;
        self.len = len;
    }

    /// Compares the values.
    fn cmp(&self, other: &Self) -> Ordering {
        self.len.cmp(&other.len).then_with(|| {
            let a = self.limbs.iter().take(self.len).rev();
            a.cmp(other.limbs.iter().take(other.len).rev())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The low 128 bits.
    fn low_u128(big: &Big) -> u128 {
        big.limbs
            .iter()
            .take(4)
            .rev()
            .fold(0u128, |acc, &l| (acc << 32) | u128::from(l))
    }

    #[test]
    fn big_arithmetic_matches_u128() {
        for (x, fives, twos) in [
            (0u64, 3u64, 70u64),
            (1, 0, 0),
            (1, 55, 0),
            (0xdead_beef_1234_5678, 20, 17),
            (u64::MAX, 0, 64),
            (3, 13, 31),
            (7, 26, 32),
            (9, 1, 33),
        ] {
            let mut big = Big::from_u64(x);
            big.mul_pow5(fives);
            big.shl(twos);
            let expected = (u128::from(x) * 5u128.pow(fives as u32)) << twos;
            assert_eq!(low_u128(&big), expected, "{x} {fives} {twos}");
            assert!(big.len <= 4 && !big.overflow);
            assert_eq!(
                big.limbs.get(big.len.wrapping_sub(1)).map(|&l| l != 0),
                (x != 0).then_some(true)
            );
            assert_eq!(
                big.cmp(&Big::from_u64(0)),
                if x == 0 {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            );
        }
        let mut a = Big::from_u64(1);
        a.shl(64);
        let b = Big::from_u64(u64::MAX);
        assert_eq!(a.cmp(&b), Ordering::Greater);
        assert_eq!(b.cmp(&a), Ordering::Less);
    }

    /// The sides for the largest operands: 800 digits at the subnormal end (where `5^-k` is
    /// largest against `d`), at the maximum and in between, and few digits at both ends.
    #[test]
    fn the_largest_sides_fit_with_room() {
        use crate::json::parse_float::product;
        use std::format;
        let nines = "9".repeat(799);
        let mut largest = 0;
        for s in [
            format!("2{nines}e-1123"),
            format!("1{nines}e-1123"),
            format!("6{nines}e-1124"),
            format!("4{nines}e-1123"),
            format!("22250738585072011{}e-1107", "9".repeat(783)),
            format!("17976931348623157{}e-491", "9".repeat(783)),
            format!("1{nines}e-799"),
            format!("3{}e-1123", "0".repeat(799)),
            "3e-324".into(),
            "1.7976931348623158e308".into(),
        ] {
            let decimal = Decimal::parse(s.as_bytes()).unwrap();
            let lead = decimal.leading().unwrap();
            let candidate = product::round::<f64>(lead.w, lead.q).candidate;
            let (_, h, eh) = halfway::<f64>(candidate);
            let (left, right, _) = sides(&decimal, h, eh).expect(&s);
            largest = largest.max(left.len).max(right.len);
        }
        // Below the bound of the module documentation (2 668 bits, 84 limbs), and near it.
        assert!((80..=84).contains(&largest), "{largest}");
    }

    #[test]
    fn overflow_is_flagged_not_wrapped() {
        let mut a = Big::from_u64(1);
        a.shl(32 * LIMBS as u64 - 1);
        assert!(!a.overflow);
        a.shl(1);
        assert!(a.overflow);
        let mut b = Big::from_u64(1);
        b.mul_pow5(1300);
        assert!(b.overflow);
    }
}
