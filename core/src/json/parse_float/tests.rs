//! The parser against `str::parse` (the reference: correctly rounded, half to even), bit for
//! bit, on hard cases and on generated JSON numbers: random digits and exponents, 800+ digit
//! mantissas, exact halfway points between neighbouring floats and numbers a hair above and
//! below them (the hair up to 1 000 digits down), subnormals, the edges of overflow.

use std::format;
use std::string::{String, ToString};
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::product::power_of_five;
use super::{parse, Format};

/// Both formats agree with `str::parse` on `s`, bit for bit (so `-0` and zero differ).
fn check(s: &str) {
    let ours = parse::<f64>(s).map(f64::to_bits);
    let std = s.parse::<f64>().ok().map(f64::to_bits);
    assert_eq!(ours, std, "f64 {s}");
    let ours = parse::<f32>(s).map(f32::to_bits);
    let std = s.parse::<f32>().ok().map(f32::to_bits);
    assert_eq!(ours, std, "f32 {s}");
}

#[test]
fn hard_cases_agree_with_std() {
    for s in [
        "0",
        "-0",
        "0.0",
        "-0.0e-5",
        "0e999999999999999999999",
        "1",
        "-1",
        "0.1",
        "0.2",
        "0.3",
        "21.5",
        "1e23",
        "8.98846567431158e307",
        "9007199254740992",
        "9007199254740993",
        "9007199254740995",
        "9007199254740993.0000000000000000000000000000000000000000001",
        "2.2250738585072011e-308",
        "2.2250738585072012e-308",
        "2.2250738585072014e-308",
        "2.225073858507201136057409796709131975934819546351645648e-308",
        "4.9e-324",
        "5e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "2.47032822920623272088e-324",
        "2.470328229206232720882538e-324",
        "2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125e-324",
        "2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001e-324",
        "1e-400",
        "-1e-400",
        "1e-343",
        "1e-342",
        "1e-324",
        "3e-324",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623158079372897140530341507993413271003782693617377898044496829276475094664e308",
        "1.797693134862315807937289714053034150799341327100378269361737789804449682927647509466490179775872070963302864166928879109465555478519404026306574886715058206819089020007083836762738548458177115317644757302700698555713669596228429148198608349364752927190741684443655107043427115596995080930428801779041744977919e308",
        "1.7976931348623159e308",
        "1e308",
        "1e309",
        "-1e309",
        "1e400",
        "3.4028234663852886e38",
        "3.4028235677973366e38",
        "3.4028235677973367e38",
        "3.40282356779733661637539395458142568447e38",
        "3.40282356779733661637539395458142568448e38",
        "1.401298464324817e-45",
        "7.006492321624085e-46",
        "7.006492321624086e-46",
        "1.1754943508222875e-38",
        "1.17549421e-38",
        "16777217",
        "16777219",
        "1.00000005960464477539062500001",
        "123456789012345678901234567890",
        "0.000000000000000000000000000000000000000000001e300",
        "7.2057594037927933e16",
        "1448997445238699",
        "3.0540412e5",
        "1.2345678901234567e-300",
        "4.9406564584124654e-324",
        "9.8813129168249309e-324",
        "2.225073858507201e-308",
        "1e22",
        "1e-22",
        "9007199254740991e22",
        "123e-22",
    ] {
        check(s);
    }
}

#[test]
fn not_numbers_are_refused() {
    for s in [
        "", "-", "+1", ".5", "1.", "1e", "1e+", "e5", "1.5.5", "1x", "0x10", "inf", "NaN", " 1",
        "1 ", "--1", "1e5e5", "1.e5",
    ] {
        assert_eq!(parse::<f64>(s), None, "{s}");
        assert_eq!(parse::<f32>(s), None, "{s}");
    }
}

#[test]
fn exponent_saturation_keeps_zero_and_infinity() {
    for (s, bits) in [
        ("1e99999999999999999999999999", f64::INFINITY.to_bits()),
        (
            "0.0000001e99999999999999999999999999",
            f64::INFINITY.to_bits(),
        ),
        ("1e-99999999999999999999999999", 0),
        ("-1e-99999999999999999999999999", (-0.0f64).to_bits()),
        ("0e99999999999999999999999999", 0),
    ] {
        assert_eq!(parse::<f64>(s).map(f64::to_bits), Some(bits), "{s}");
    }
    let long_zeros = format!("0.{}1e400", "0".repeat(390));
    check(&long_zeros);
    let many_digits = format!("1{}e-5000", "0".repeat(5000));
    check(&many_digits);
}

/// A minimal unbounded integer for the tests (32-bit limbs, least significant first).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Nat(Vec<u32>);

impl Nat {
    fn from_u128(mut v: u128) -> Self {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push(v as u32);
            v >>= 32;
        }
        Nat(limbs)
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn pow5(mut self, n: u32) -> Self {
        for _ in 0..n {
            self.mul_small(5);
        }
        self
    }

    fn shl(mut self, n: u32) -> Self {
        for _ in 0..n {
            self.mul_small(2);
        }
        self
    }

    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    /// Decimal digits (`"0"` for zero).
    fn to_decimal(&self) -> String {
        let mut limbs = self.0.clone();
        let mut chunks = Vec::new();
        while !limbs.is_empty() {
            let mut rem = 0u64;
            for limb in limbs.iter_mut().rev() {
                let v = (rem << 32) | u64::from(*limb);
                *limb = (v / 1_000_000_000) as u32;
                rem = v % 1_000_000_000;
            }
            chunks.push(rem);
            while limbs.last() == Some(&0) {
                limbs.pop();
            }
        }
        let mut out = chunks.pop().map_or("0".to_string(), |c| c.to_string());
        for c in chunks.iter().rev() {
            out.push_str(&format!("{c:09}"));
        }
        out
    }
}

#[test]
fn the_power_table_is_within_its_bounds() {
    // 5^q = t * 2^exp with T <= t < T + 3, T = t exactly when `exact`.
    for q in -364i64..=335 {
        let p = power_of_five(q).unwrap();
        assert!(p.mantissa >> 127 == 1, "{q}");
        let t = Nat::from_u128(p.mantissa);
        let t3 = Nat::from_u128(p.mantissa + 3);
        let (low, value, high) = if q >= 0 {
            let five = Nat::from_u128(1).pow5(q as u32);
            if p.exp >= 0 {
                let e = p.exp as u32;
                (t.shl(e), five, t3.shl(e))
            } else {
                (t, five.shl((-p.exp) as u32), t3)
            }
        } else {
            // 5^q = 1 / 5^-q: T * 5^-q <= 2^-exp < (T + 3) * 5^-q.
            let n = (-q) as u32;
            let mut lo = t.clone();
            let mut hi = t3.clone();
            for _ in 0..n {
                lo.mul_small(5);
                hi.mul_small(5);
            }
            (lo, Nat::from_u128(1).shl((-p.exp) as u32), hi)
        };
        use core::cmp::Ordering::*;
        let at_low = low.cmp(&value);
        assert!(at_low != Greater, "{q}");
        assert_eq!(value.cmp(&high), Less, "{q}");
        assert_eq!(at_low == Equal, p.exact, "{q}");
    }
    assert_eq!(power_of_five(-365), None);
    assert_eq!(power_of_five(336), None);
}

/// `m * 2^e` as a JSON number with every digit (exact).
fn exact_decimal(m: u128, e: i32) -> (String, i64) {
    if e >= 0 {
        (Nat::from_u128(m).shl(e as u32).to_decimal(), 0)
    } else {
        // m * 2^-n = m * 5^n * 10^-n
        (
            Nat::from_u128(m).pow5((-e) as u32).to_decimal(),
            i64::from(e),
        )
    }
}

/// The halfway point above the float of `bits` (`mantissa_bits`, `min_exp` of its format),
/// exactly, as digits and a decimal exponent.
fn halfway(bits: u64, mantissa_bits: u32, min_exp: i32) -> (String, i64) {
    let field = (bits >> mantissa_bits) as i32;
    let fraction = u128::from(bits & ((1 << mantissa_bits) - 1));
    let (m, e) = if field == 0 {
        (fraction, min_exp)
    } else {
        (fraction | 1 << mantissa_bits, min_exp + field - 1)
    };
    exact_decimal(2 * m + 1, e - mantissa_bits as i32 - 1)
}

/// `digits * 10^exp` minus one unit at `extra` more digits (a hair below).
fn below(digits: &str, exp: i64, extra: usize) -> String {
    let mut d: Vec<u8> = digits.bytes().collect();
    // digits - 1 (digits is not zero), then `extra` nines.
    let mut i = d.len();
    loop {
        i -= 1;
        if d[i] == b'0' {
            d[i] = b'9';
        } else {
            d[i] -= 1;
            break;
        }
    }
    let mut s = String::from_utf8(d).unwrap();
    s.push_str(&"9".repeat(extra));
    format!("{s}e{}", exp - extra as i64)
}

/// `digits * 10^exp` plus one unit at `extra` more digits (a hair above).
fn above(digits: &str, exp: i64, extra: usize) -> String {
    format!("{digits}{}1e{}", "0".repeat(extra - 1), exp - extra as i64)
}

/// The halfway point above `bits`, and hairs above and below it, all agree with std.
fn check_halfway(bits: u64, mantissa_bits: u32, min_exp: i32, extra: usize) {
    let (digits, exp) = halfway(bits, mantissa_bits, min_exp);
    check(&format!("{digits}e{exp}"));
    check(&below(&digits, exp, extra));
    check(&above(&digits, exp, extra));
}

#[test]
fn halfway_points_at_the_edges_agree_with_std() {
    let f64_edges = [
        0u64,
        1,
        2,
        (1 << 52) - 1,
        1 << 52,
        (1 << 52) + 1,
        0x3ff0_0000_0000_0000,
        0x4340_0000_0000_0000,
        f64::MAX.to_bits() - 1,
        f64::MAX.to_bits(),
    ];
    for bits in f64_edges {
        for extra in [1, 20, 900] {
            check_halfway(bits, 52, -1022, extra);
        }
    }
    let f32_edges = [
        0u64,
        1,
        (1 << 23) - 1,
        1 << 23,
        0x3f80_0000,
        u64::from(f32::MAX.to_bits()) - 1,
        u64::from(f32::MAX.to_bits()),
    ];
    for bits in f32_edges {
        for extra in [1, 20, 900] {
            check_halfway(bits, 23, -126, extra);
        }
    }
}

/// A JSON number: optional sign, integer part without leading zeros, optional fraction and
/// exponent (with optional sign and leading zeros).
fn json_number(int_digits: usize, frac_digits: usize, exp: i32) -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        proptest::collection::vec(0u8..10, 1..=int_digits),
        proptest::option::of(proptest::collection::vec(0u8..10, 1..=frac_digits)),
        proptest::option::of((-exp..=exp, 0usize..3, any::<bool>(), any::<bool>())),
    )
        .prop_map(|(negative, int, frac, exponent)| {
            let mut s = String::new();
            if negative {
                s.push('-');
            }
            let int: String = int.iter().map(|d| char::from(b'0' + d)).collect();
            let int = int.trim_start_matches('0');
            s.push_str(if int.is_empty() { "0" } else { int });
            if let Some(frac) = frac {
                s.push('.');
                s.extend(frac.iter().map(|d| char::from(b'0' + d)));
            }
            if let Some((e, zeros, upper, plus)) = exponent {
                s.push(if upper { 'E' } else { 'e' });
                if e < 0 {
                    s.push('-');
                } else if plus {
                    s.push('+');
                }
                s.push_str(&"0".repeat(zeros));
                s.push_str(&e.unsigned_abs().to_string());
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn short_numbers_agree_with_std(s in json_number(25, 30, 400)) {
        check(&s);
    }

    #[test]
    fn numbers_near_the_edges_agree_with_std(
        s in json_number(20, 20, 30),
        shift in prop_oneof![Just(-324i32), Just(-310), Just(-45), Just(-38), Just(38), Just(308)],
    ) {
        // Scale the number to the subnormal or overflow edge of either format.
        let (mantissa, exp) = match s.split_once(['e', 'E']) {
            Some((m, e)) => (m.to_string(), e.parse::<i32>().unwrap()),
            None => (s.clone(), 0),
        };
        check(&format!("{mantissa}e{}", exp + shift));
    }

    #[test]
    fn shortest_and_long_forms_of_random_floats_agree_with_std(bits in any::<u64>(), precision in 0usize..40) {
        let v = f64::from_bits(bits);
        prop_assume!(v.is_finite());
        check(&format!("{v:e}"));
        check(&format!("{v:.precision$e}"));
        let w = f32::from_bits(bits as u32);
        if w.is_finite() {
            check(&format!("{w:e}"));
            check(&format!("{w:.precision$e}"));
        }
    }

    #[test]
    fn subnormals_agree_with_std(bits in 0u64..(1 << 52), precision in 0usize..30) {
        let v = f64::from_bits(bits);
        check(&format!("{v:e}"));
        check(&format!("{v:.precision$e}"));
        let w = f32::from_bits((bits as u32) & 0x7f_ffff);
        check(&format!("{w:e}"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn long_mantissas_agree_with_std(
        digits in proptest::collection::vec(0u8..10, 800..1300),
        point in 0usize..1300,
        exp in -700i32..400,
        negative in any::<bool>(),
    ) {
        let mut s: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
        let point = point.min(s.len() - 1).max(1);
        s.insert(point, '.');
        let s = format!("{}{s}e{exp}", if negative { "-" } else { "" });
        check(&s);
    }

    #[test]
    fn f64_halfway_points_agree_with_std(bits in 0u64..0x7fef_ffff_ffff_ffff, extra in prop_oneof![Just(1usize), 2usize..40, 700usize..1000]) {
        check_halfway(bits, 52, -1022, extra);
    }

    #[test]
    fn f32_halfway_points_agree_with_std(bits in 0u64..0x7f7f_ffff, extra in prop_oneof![Just(1usize), 2usize..40, 700usize..1000]) {
        check_halfway(bits, 23, -126, extra);
    }

    #[test]
    fn subnormal_halfway_points_agree_with_std(bits in 0u64..(1 << 52), extra in prop_oneof![Just(1usize), 2usize..40, 700usize..1000]) {
        check_halfway(bits, 52, -1022, extra);
        check_halfway(bits & 0x7f_ffff, 23, -126, extra);
    }
}

#[test]
fn both_formats_round_trip_their_bits() {
    for bits in [0u64, 1, 0x3ff0_0000_0000_0000, f64::MAX.to_bits()] {
        assert_eq!(f64::from_bits(bits).to_bits_u64(), bits);
        assert_eq!(<f64 as Format>::from_bits(bits).to_bits(), bits);
    }
    for bits in [0u32, 1, 0x3f80_0000, f32::MAX.to_bits()] {
        assert_eq!(<f32 as Format>::from_bits(u64::from(bits)).to_bits(), bits);
    }
    assert_eq!(<f64 as Format>::INFINITY_BITS, f64::INFINITY.to_bits());
    assert_eq!(
        <f32 as Format>::INFINITY_BITS,
        u64::from(f32::INFINITY.to_bits())
    );
    let _ = vec![0u8];
}
