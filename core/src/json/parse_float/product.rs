//! The scaled product: `w * 10^q` rounded to a float from `w * 5^q` in 192 bits, decided when
//! the product's error cannot move it across a rounding boundary (the idea of Eisel and
//! Lemire; the table and its error bound are this file's own).
//!
//! `5^q = t * 2^f` with `t` in `[2^127, 2^128)`: [`power_of_five`] gives `t` rounded down (`T`,
//! with `T <= t < T + 3`, and `T = t` for `0 <= q <= 55`) from a 25-entry table of
//! `5^(28 k)` and an exact `5^r`, `r < 28`. With `W = w * 2^z` normalised to `[2^63, 2^64)`, the
//! value is `V * 2^(f + q - z)` where `V = W * t` lies in `[X, X + 3 W)`, `X = W * T` (computed
//! exactly, 192 bits). The float's last kept bit is bit `s` of `V` and the rounding depends on
//! which multiple of `2^(s-1)` `V` is between; `s - 1 >= 137` while `3 W < 2^66`, so unless the
//! bits of `X` from 64 to `s - 2` are within 3 of all ones, every `V` in the interval rounds
//! as `X` with a non-zero remainder (an exact halfway case is impossible for an inexact `t`).
//! Otherwise the caller compares exactly (`exact.rs`).

use super::Format;

/// `5^(28 k)` for `k` in `-13..=11` (index `k + 13`): the mantissa `T` in `[2^127, 2^128)`,
/// rounded down, and `f` such that `5^(28 k) = t * 2^f`, `T <= t < T + 1` (`T = t` for `k` 0 and
/// 1). Generated with exact integer arithmetic and checked by the tests (`T * 2^f <= 5^(28 k) <
/// (T + 1) * 2^f`, by big-integer multiplication).
const POWERS: [(u128, i16); 25] = [
    (0xe1afa13a_fbd14d6d_82189c09_a3a1ec21, -973), // 5^-364
    (0xe3e27a44_4d8d98b7_fd1b1b23_08169b25, -908), // 5^-336
    (0xe61acf03_3d1a45df_6fb92487_298e33bd, -843), // 5^-308
    (0xe858ad24_8f5c22c9_d1b3400f_8f9cff68, -778), // 5^-280
    (0xea9c2277_23ee8bcb_465e15a9_79c1cadc, -713), // 5^-252
    (0xece53cec_4a314ebd_a4f8bf56_35246428, -648), // 5^-224
    (0xef340a98_172aace4_86fb8971_16c87c34, -583), // 5^-196
    (0xf18899b1_bc3f8ca1_dc44e6c3_cb279ac1, -518), // 5^-168
    (0xf3e2f893_dec3f126_5a89dba3_c3efccfa, -453), // 5^-140
    (0xf64335bc_f065d37d_4d4617b5_ff4a16d5, -388), // 5^-112
    (0xf8a95fcf_88747d94_75a44c63_97ce912a, -323), // 5^-84
    (0xfb158592_be068d2e_eed6e2f0_f0d56712, -258), // 5^-56
    (0xfd87b5f2_8300ca0d_8bca9d6e_188853fc, -193), // 5^-28
    (0x80000000_00000000_00000000_00000000, -127), // 5^0
    (0x813f3978_f8940984_40000000_00000000, -62),  // 5^28
    (0x82818f12_81ed449f_bff8f10e_7a8921a4, 3),    // 5^56
    (0x83c7088e_1aab65db_792667c6_da79e0fa, 68),   // 5^84
    (0x850fadc0_9923329e_03e2cf6b_c604ddb0, 133),  // 5^112
    (0x865b8692_5b9bc5c2_0b8a2392_ba45a9b2, 198),  // 5^140
    (0x87aa9aff_79042286_90fb44d2_f05d0842, 263),  // 5^168
    (0x88fcf317_f22241e2_441fece3_bdf81f03, 328),  // 5^196
    (0x8a5296ff_e33cc92f_82bd6b70_d99aaa6f, 393),  // 5^224
    (0x8bab8eef_b6409c1a_1ad089b6_c2f7548e, 458),  // 5^252
    (0x8d07e334_55637eb2_db0b487b_6423e1e8, 523),  // 5^280
    (0x8e679c2f_5e44ff8f_570f09ea_a7ea7648, 588),  // 5^308
];

/// The step between table entries: `5^27 < 2^63` is the largest power of five in a `u64`.
const STEP: i64 = 28;

/// `5^q = t * 2^exp` with `mantissa <= t < mantissa + 3`, `mantissa` in `[2^127, 2^128)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Power {
    pub(super) mantissa: u128,
    pub(super) exp: i64,
    /// `mantissa = t` exactly.
    pub(super) exact: bool,
}

/// `5^q` for `q` in `-364..=335`, `None` outside.
pub(super) fn power_of_five(q: i64) -> Option<Power> {
    let (k, r) = (q.div_euclid(STEP), q.rem_euclid(STEP));
    let &(big, big_exp) = POWERS.get(usize::try_from(k.checked_add(13)?).ok()?)?;
    // r < 28: 5^r < 2^63.
    let small = 5u64.wrapping_pow(u32::try_from(r).ok()?);
    // big * small < 2^128 * 2^64, as hi * 2^64 + lo: both products are below 2^128 and the
    // sum below 2^192 (so `hi` below 2^128).
    let lo_product = (big & u128::from(u64::MAX)).wrapping_mul(u128::from(small));
    let hi = (big >> 64)
        .wrapping_mul(u128::from(small))
        .wrapping_add(lo_product >> 64);
    // Truncation intended: the low 64 bits.
    let lo = lo_product as u64;
    // big >= 2^127, so the product is at least 2^127: `hi >= 2^63`, `shift <= 64`. Keep the
    // top 128 bits.
    let shift = hi.leading_zeros();
    let mantissa = hi.checked_shl(shift).unwrap_or(0)
        | u128::from(lo.checked_shr(64u32.wrapping_sub(shift)).unwrap_or(0));
    Some(Power {
        mantissa,
        exp: i64::from(big_exp)
            .wrapping_add(64)
            .wrapping_sub(i64::from(shift)),
        // 5^q < 2^128 exactly for q in 0..=55, and then the table entries (5^0, 5^28) and the
        // product are exact and the bits dropped by the normalisation are zeros.
        exact: (0..=55).contains(&q),
    })
}

/// The rounding of `w * 10^q` to a float: the bits of the float below or equal to the value
/// (`candidate`) and, when decided, whether the nearest is the next one up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Rounding {
    /// The float at or below the value (within one unit below it: the nearest is this or the
    /// next one up).
    pub(super) candidate: u64,
    /// `Some(true)`: the nearest float is `candidate + 1`; `Some(false)`: `candidate`; `None`:
    /// the product cannot tell.
    pub(super) up: Option<bool>,
}

impl Rounding {
    /// The nearest float's bits, when decided.
    pub(super) fn bits(self) -> Option<u64> {
        // The candidate is at most the infinity bits and `up` only when it is finite.
        self.up.map(|up| self.candidate.wrapping_add(u64::from(up)))
    }
}

/// Rounds `w * 10^q` (`w >= 1`, `F::MIN_Q <= q <= F::MAX_Q`) to `F`.
pub(super) fn round<F: Format>(w: u64, q: i64) -> Rounding {
    let decided = |candidate, up| Rounding {
        candidate,
        up: Some(up),
    };
    let Some(power) = power_of_five(q) else {
        // Outside the table (not for q in range): whatever the exact step decides from zero.
        return Rounding {
            candidate: 0,
            up: None,
        };
    };
    let z = w.leading_zeros();
    let big_w = u128::from(w.checked_shl(z).unwrap_or(0));
    // X = W * T = x_hi * 2^64 + x_lo, exactly: each partial product is below 2^128, X below
    // 2^192.
    let lo_product = big_w.wrapping_mul(power.mantissa & u128::from(u64::MAX));
    let x_hi = big_w
        .wrapping_mul(power.mantissa >> 64)
        .wrapping_add(lo_product >> 64);
    // Truncation intended: the low 64 bits.
    let x_lo = lo_product as u64;
    // X >= 2^63 * 2^127: its top bit `p` is 190 or 191.
    let p = 191i64.wrapping_sub(i64::from(x_hi.leading_zeros()));
    // The value is in [2^e, 2^(e + 1)) (or a hair above it: then X is within 3 W of 2^(p+1)
    // and the rounding below is not decided). All terms are small (|q| <= 364, |f| <= 1000).
    let e = p
        .wrapping_add(power.exp)
        .wrapping_add(q)
        .wrapping_sub(i64::from(z));
    let mantissa_bits = i64::from(F::MANTISSA_BITS);
    if e > F::MAX_EXP {
        return decided(F::INFINITY_BITS, false);
    }
    // Below 2^(MIN_EXP - MANTISSA_BITS - 2), a quarter of the smallest subnormal, the value
    // (at most a hair above 2^(e+1)) is below half of it: zero.
    if e < F::MIN_EXP.wrapping_sub(mantissa_bits).wrapping_sub(2) {
        return decided(0, false);
    }
    // Bit `s` of V is the float's last bit (subnormals keep fewer bits): s in [138, p + 2].
    let subnormal_shift = F::MIN_EXP.wrapping_sub(e).max(0);
    let s = p.wrapping_sub(mantissa_bits).wrapping_add(subnormal_shift);
    // s >= 138, so the float's bits are all in x_hi: bits `s - 64` and up.
    let s_hi = u32::try_from(s.wrapping_sub(64)).unwrap_or(u32::MAX);
    // No truncation: the float's bits are below 2^(MANTISSA_BITS + 1).
    let mantissa = x_hi.checked_shr(s_hi).map_or(0, |m| m as u64);
    // In 0..=MAX_EXP - MIN_EXP. Normal: the mantissa's implicit bit adds one to it, making the
    // biased exponent; subnormal: 0.
    let exponent_field = e.max(F::MIN_EXP).wrapping_sub(F::MIN_EXP);
    let candidate = (exponent_field as u64)
        .wrapping_shl(F::MANTISSA_BITS)
        .wrapping_add(mantissa);
    // The rounding bit (s - 1) is bit j = s - 65 of x_hi, and the bits below it there decide.
    let Some(j) = s_hi.checked_sub(1).filter(|&j| j < 128) else {
        return Rounding {
            candidate,
            up: None,
        };
    };
    let below = u128::MAX.checked_shr(128u32.wrapping_sub(j)).unwrap_or(0);
    let rest = x_hi & below;
    let round_bit = x_hi.checked_shr(j).is_some_and(|b| b & 1 == 1);
    let up = if power.exact {
        // V = X: everything is known, halfway cases round to the even mantissa.
        let sticky = rest != 0 || x_lo != 0;
        round_bit && (sticky || mantissa & 1 == 1)
    } else if below.wrapping_sub(rest) >= 3 {
        // V in (X, X + 3 W) crosses no multiple of 2^(s-1), and its remainder is not zero.
        round_bit
    } else {
        return Rounding {
            candidate,
            up: None,
        };
    };
    decided(candidate, up)
}
