//! Shortest round-trip float formatting by exact big-integer arithmetic, without tables.
//!
//! The digits are those of the free-format algorithm of Steele & White as refined by Burger &
//! Dybvig ("Printing Floating-Point Numbers Quickly and Accurately", 1996): the value and the
//! half-way points to its neighbours are held exactly as big integers, decimal digits are
//! generated until the digits so far, or those digits with the last one rounded up, fall
//! strictly inside the rounding interval (inclusive when the mantissa is even, as IEEE
//! round-half-even reading includes it). The result is the shortest decimal that reads back
//! to the same float and, of those, the closest (ties to an even digit), which is exactly what
//! `ryu` produces; the text layout (`1.0`, `0.001`, `1e-7`, `1.5e30`) is `ryu`'s too, so the
//! output is byte for byte the same (checked against `ryu` by the tests below: every binary
//! exponent at its extremes, random bit patterns, and, as an ignored test run by hand, all 2^32
//! `f32` bit patterns, each also parsed back to the same bits).
//!
//! The cost is speed, not precision: a few hundred nanoseconds per `f32` on a desktop core and
//! more for an `f64` of large or tiny magnitude, against `ryu`'s tens. The gain is flash:
//! no power-of-five tables (ryu's default tables are 10.7 KB; with its `small` feature about
//! 1 KB of tables and 4 KB of 128-bit arithmetic remain). Selected by the crate feature
//! `compact-float`.

use core::cmp::Ordering;

use super::{EncodeError, Sink};

/// Limbs for an `f32`: the largest number held is below 2^160 (`s` of a subnormal times 10
/// during digit generation: 2^151 * 10), so 6 limbs (192 bits) leave a margin.
const F32_LIMBS: usize = 6;
/// Limbs for an `f64`: the largest number held is below 2^1085 (`s` of a subnormal, 2^1076,
/// times 10, plus the mantissa's bits), so 36 limbs (1152 bits) leave a margin.
const F64_LIMBS: usize = 36;

/// An unsigned integer of at most `N` 32-bit limbs, least significant first; the limbs from
/// `len` on are zero. Sized by the callers so that nothing they compute overflows (the tests
/// check every binary exponent at its extremes).
#[derive(Clone, Copy)]
struct Big<const N: usize> {
    limbs: [u32; N],
    len: usize,
    /// Set if a carry ever fell off the top (never, for the sizes above; checked by tests).
    #[cfg(test)]
    overflow: bool,
}

impl<const N: usize> Big<N> {
    fn from_u64(v: u64) -> Self {
        let mut big = Self {
            limbs: [0; N],
            len: 0,
            #[cfg(test)]
            overflow: false,
        };
        // Truncation intended: the low and the high half.
        big.push(v as u32);
        big.push((v >> 32) as u32);
        big.trim();
        big
    }

    /// Appends a most significant limb (when there is room).
    fn push(&mut self, limb: u32) {
        #[cfg(test)]
        {
            self.overflow |= self.len >= N && limb != 0;
        }
        if let Some(slot) = self.limbs.get_mut(self.len) {
            *slot = limb;
            // `len < N` here: no wrap.
            self.len = self.len.wrapping_add(1);
        }
    }

    /// Drops zero limbs at the top.
    fn trim(&mut self) {
        // `len > 0` before each step down: no wrap.
        while self.len > 0 && self.limbs.get(self.len.wrapping_sub(1)) == Some(&0) {
            self.len = self.len.wrapping_sub(1);
        }
    }

    fn used(&self) -> &[u32] {
        self.limbs.get(..self.len).unwrap_or_default()
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        let len = self.len;
        for limb in self.limbs.iter_mut().take(len) {
            // (2^32 - 1)^2 + 2^32 - 1 < 2^64: no wrap.
            let v = u64::from(*limb)
                .wrapping_mul(u64::from(m))
                .wrapping_add(carry);
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.push(carry as u32);
        }
    }

    fn mul_pow10(&mut self, mut k: u32) {
        const POW10: [u32; 10] = [
            1,
            10,
            100,
            1_000,
            10_000,
            100_000,
            1_000_000,
            10_000_000,
            100_000_000,
            1_000_000_000,
        ];
        while k >= 9 {
            self.mul_small(1_000_000_000);
            k = k.wrapping_sub(9);
        }
        if let Some(&p) = POW10.get(k as usize) {
            self.mul_small(p);
        }
    }

    fn shl(&mut self, bits: u32) {
        let limbs = (bits / 32) as usize;
        let bits = bits % 32;
        if self.len == 0 {
            return;
        }
        if bits != 0 {
            let mut carry = 0u32;
            let len = self.len;
            for limb in self.limbs.iter_mut().take(len) {
                let v = *limb;
                *limb = (v << bits) | carry;
                // bits in 1..32: no wrap.
                carry = v >> 32u32.wrapping_sub(bits);
            }
            if carry != 0 {
                self.push(carry);
            }
        }
        if limbs != 0 {
            let new_len = self.len.saturating_add(limbs);
            #[cfg(test)]
            {
                self.overflow |= new_len > N;
            }
            for i in (0..N).rev() {
                let v = match i.checked_sub(limbs) {
                    Some(from) => self.limbs.get(from).copied().unwrap_or(0),
                    None => 0,
                };
                if let Some(slot) = self.limbs.get_mut(i) {
                    *slot = v;
                }
            }
            self.len = new_len.min(N);
            self.trim();
        }
    }

    fn add(&self, other: &Self) -> Self {
        let mut sum = *self;
        let len = self.len.max(other.len);
        let mut carry = 0u64;
        for (i, slot) in sum.limbs.iter_mut().enumerate().take(len) {
            // Two limbs and a carry of one: below 2^33.
            let v = u64::from(*slot)
                .wrapping_add(u64::from(other.limbs.get(i).copied().unwrap_or(0)))
                .wrapping_add(carry);
            *slot = v as u32;
            carry = v >> 32;
        }
        sum.len = len;
        if carry != 0 {
            sum.push(carry as u32);
        }
        sum
    }

    /// `self -= other`; requires `self >= other`.
    fn sub_assign(&mut self, other: &Self) {
        let mut borrow = false;
        let len = self.len;
        for (i, slot) in self.limbs.iter_mut().enumerate().take(len) {
            let (v, b1) = slot.overflowing_sub(other.limbs.get(i).copied().unwrap_or(0));
            let (v, b2) = v.overflowing_sub(u32::from(borrow));
            *slot = v;
            borrow = b1 || b2;
        }
        self.trim();
    }

    fn cmp(&self, other: &Self) -> Ordering {
        self.len
            .cmp(&other.len)
            .then_with(|| self.used().iter().rev().cmp(other.used().iter().rev()))
    }
}

/// How a binary float is laid out and printed.
struct Format {
    /// Mantissa bits including the hidden bit (24 or 53).
    precision: u32,
    /// Exponent bits (8 or 11).
    exponent_bits: u32,
    /// Binary exponent of the smallest subnormal's unit (-149 or -1074).
    min_exponent: i32,
    /// Plain notation up to this many integer digits (ryu: 13 for `f32`, 16 for `f64`).
    max_plain: i32,
    /// Plain notation down to this many zeros after the point, exclusive (ryu: -6 and -5).
    min_plain: i32,
}

const F32: Format = Format {
    precision: 24,
    exponent_bits: 8,
    min_exponent: -149,
    max_plain: 13,
    min_plain: -6,
};

const F64: Format = Format {
    precision: 53,
    exponent_bits: 11,
    min_exponent: -1074,
    max_plain: 16,
    min_plain: -5,
};

/// Digits of the shortest representation of `f * 2^e` (`f > 0`): stores them in `digits` and
/// returns their count `n` and the decimal exponent `k`, with value `0.d1..dn * 10^k`.
fn shortest<const N: usize>(f: u64, e: i32, closer: bool, digits: &mut [u8; 20]) -> (usize, i32) {
    let even = f & 1 == 0;
    let shift = if closer { 2 } else { 1 };
    let mut r = Big::<N>::from_u64(f);
    let mut s = Big::<N>::from_u64(1);
    let mut m_plus = Big::<N>::from_u64(1);
    let mut m_minus = Big::<N>::from_u64(1);
    // value = r / s; the half-way points to the neighbours are (r - m-) / s and (r + m+) / s.
    // |e| <= 1074 and shift is 1 or 2: the shift counts cannot wrap.
    if e >= 0 {
        let e = e.unsigned_abs();
        r.shl(e.wrapping_add(shift));
        s.shl(shift);
        m_plus.shl(e.wrapping_add(shift).wrapping_sub(1));
        m_minus.shl(e);
    } else {
        r.shl(shift);
        s.shl(shift.wrapping_add(e.unsigned_abs()));
        m_plus.shl(shift.wrapping_sub(1));
    }
    // Estimate k from the binary exponent of the leading bit (at most one too high before
    // the `- 1`, so at or below the true k), then raise it until (r + m+) / s < 1.
    // |e| <= 1074 and bits <= 64: the product stays below 2^27, nothing wraps.
    let bits = 64i32.wrapping_sub(f.leading_zeros() as i32);
    let mut k = ((e.wrapping_add(bits).wrapping_sub(1).wrapping_mul(78_913)) >> 18).wrapping_sub(1);
    if k >= 0 {
        s.mul_pow10(k.unsigned_abs());
    } else {
        let p = k.unsigned_abs();
        r.mul_pow10(p);
        m_plus.mul_pow10(p);
        m_minus.mul_pow10(p);
    }
    for _ in 0..4 {
        match r.add(&m_plus).cmp(&s) {
            Ordering::Greater => {}
            Ordering::Equal if even => {}
            _ => break,
        }
        s.mul_small(10);
        // At most four times.
        k = k.wrapping_add(1);
    }
    let mut n = 0usize;
    loop {
        r.mul_small(10);
        m_plus.mul_small(10);
        m_minus.mul_small(10);
        let mut d = 0u8;
        while d < 9 && r.cmp(&s) != Ordering::Less {
            r.sub_assign(&s);
            // d < 9 here.
            d = d.wrapping_add(1);
        }
        let low = match r.cmp(&m_minus) {
            Ordering::Less => true,
            Ordering::Equal => even,
            Ordering::Greater => false,
        };
        let high = match r.add(&m_plus).cmp(&s) {
            Ordering::Greater => true,
            Ordering::Equal => even,
            Ordering::Less => false,
        };
        // n < 20 (each digit stored is counted, and the last one ends the loop): no wraps
        // below.
        let last = n.wrapping_add(1) >= digits.len();
        if !(low || high || last) {
            if let Some(slot) = digits.get_mut(n) {
                *slot = d;
            }
            n = n.wrapping_add(1);
            continue;
        }
        let up = match (low, high) {
            (true, false) => false,
            (false, true) => true,
            _ => {
                let mut twice = r;
                twice.shl(1);
                match twice.cmp(&s) {
                    Ordering::Less => false,
                    Ordering::Greater => true,
                    Ordering::Equal => d & 1 == 1,
                }
            }
        };
        if let Some(slot) = digits.get_mut(n) {
            // At most 10.
            *slot = d.wrapping_add(u8::from(up));
        }
        n = n.wrapping_add(1);
        #[cfg(test)]
        {
            assert!(
                !(r.overflow || s.overflow || m_plus.overflow || m_minus.overflow),
                "bignum overflow at f={f} e={e}"
            );
        }
        break;
    }
    // A rounded-up 9 carries into the digits before it (kept for safety: the termination test
    // stops before a digit could round up to 10).
    let mut i = n;
    // `i > 0` before each step down, and a digit is at most 10: no wraps.
    while i > 0 && digits.get(i.wrapping_sub(1)) == Some(&10) {
        i = i.wrapping_sub(1);
        if let Some(slot) = digits.get_mut(i) {
            *slot = 0;
        }
        match i.checked_sub(1).and_then(|j| digits.get_mut(j)) {
            Some(prev) => *prev = prev.wrapping_add(1),
            None => {
                if let Some(first) = digits.first_mut() {
                    *first = 1;
                }
                n = 1;
                k = k.wrapping_add(1);
            }
        }
    }
    // `n > 1` before each step down: no wrap.
    while n > 1 && digits.get(n.wrapping_sub(1)) == Some(&0) {
        n = n.wrapping_sub(1);
    }
    (n, k)
}

/// Longest text: `-`, 17 digits, `.`, `e-324` stays well below this.
const TEXT_CAPACITY: usize = 32;

/// Bytes written into a fixed buffer; what does not fit is dropped (nothing printed here is
/// longer than [`TEXT_CAPACITY`]).
struct Text {
    buf: [u8; TEXT_CAPACITY],
    len: usize,
}

impl Text {
    fn put(&mut self, byte: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = byte;
            // `len < TEXT_CAPACITY` here: no wrap.
            self.len = self.len.wrapping_add(1);
        }
    }

    fn put_digits(&mut self, digits: &[u8]) {
        for &d in digits {
            // A digit: 0 to 9.
            self.put(b'0'.wrapping_add(d));
        }
    }

    fn put_zeros(&mut self, count: i32) {
        for _ in 0..count {
            self.put(b'0');
        }
    }
}

/// Formats a finite float given its raw bits, in ryu's layout. Not generic over the sink, and
/// not inlined, so that one copy serves every sink.
#[inline(never)]
fn format_bits<const N: usize>(bits: u64, format: &Format) -> Text {
    let mut text = Text {
        buf: [0; TEXT_CAPACITY],
        len: 0,
    };
    // The format's constants (precision 24 or 53, 8 or 11 exponent bits): nothing wraps.
    let fraction_bits = format.precision.wrapping_sub(1);
    let fraction = bits & (1u64 << fraction_bits).wrapping_sub(1);
    let biased = (bits >> fraction_bits) & (1u64 << format.exponent_bits).wrapping_sub(1);
    if bits >> fraction_bits.wrapping_add(format.exponent_bits) != 0 {
        text.put(b'-');
    }
    if biased == 0 && fraction == 0 {
        text.put(b'0');
        text.put(b'.');
        text.put(b'0');
        return text;
    }
    // `biased` has at most 11 bits.
    let (f, e) = if biased == 0 {
        (fraction, format.min_exponent)
    } else {
        (
            fraction | (1u64 << fraction_bits),
            format
                .min_exponent
                .wrapping_sub(1)
                .wrapping_add(biased as i32),
        )
    };
    let closer = fraction == 0 && biased > 1;
    let mut digits = [0u8; 20];
    let (n, kk) = shortest::<N>(f, e, closer, &mut digits);
    let digits = digits.get(..n).unwrap_or_default();
    let n = n as i32;
    // `kk` is the decimal exponent: 10^(kk-1) <= value < 10^kk; |kk| <= 325 and n <= 20, so
    // the differences below cannot wrap.
    if kk >= n && kk <= format.max_plain {
        text.put_digits(digits);
        text.put_zeros(kk.wrapping_sub(n));
        text.put(b'.');
        text.put(b'0');
    } else if 0 < kk && kk <= format.max_plain {
        let (int, frac) = digits.split_at((kk as usize).min(digits.len()));
        text.put_digits(int);
        text.put(b'.');
        text.put_digits(frac);
    } else if format.min_plain < kk && kk <= 0 {
        text.put(b'0');
        text.put(b'.');
        text.put_zeros(kk.wrapping_neg());
        text.put_digits(digits);
    } else {
        let (first, rest) = digits.split_first().unwrap_or((&0, &[]));
        text.put_digits(core::slice::from_ref(first));
        if !rest.is_empty() {
            text.put(b'.');
            text.put_digits(rest);
        }
        text.put(b'e');
        let exponent = kk.wrapping_sub(1);
        if exponent < 0 {
            text.put(b'-');
        }
        // At most three digits (324).
        let exponent = exponent.unsigned_abs();
        let mut started = false;
        let digits = [exponent / 100 % 10, exponent / 10 % 10, exponent % 10];
        for (i, digit) in digits.into_iter().enumerate() {
            started |= digit != 0 || i == 2;
            if started {
                // A digit: 0 to 9.
                text.put(b'0'.wrapping_add(digit as u8));
            }
        }
    }
    text
}

fn put_text<S: Sink + ?Sized>(sink: &mut S, text: &Text) -> Result<(), EncodeError> {
    sink.put(text.buf.get(..text.len).unwrap_or_default())
}

/// Writes a finite `f32` (the caller refuses NaN and infinities).
pub(crate) fn write_f32<S: Sink + ?Sized>(sink: &mut S, v: f32) -> Result<(), EncodeError> {
    put_text(
        sink,
        &format_bits::<F32_LIMBS>(u64::from(v.to_bits()), &F32),
    )
}

/// Writes a finite `f64` (the caller refuses NaN and infinities).
pub(crate) fn write_f64<S: Sink + ?Sized>(sink: &mut S, v: f64) -> Result<(), EncodeError> {
    put_text(sink, &format_bits::<F64_LIMBS>(v.to_bits(), &F64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::SliceSink;

    fn compact32(v: f32) -> std::string::String {
        let mut buf = [0u8; 48];
        let mut sink = SliceSink::new(&mut buf);
        write_f32(&mut sink, v).unwrap();
        let n = sink.finish().unwrap();
        std::string::String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    fn compact64(v: f64) -> std::string::String {
        let mut buf = [0u8; 48];
        let mut sink = SliceSink::new(&mut buf);
        write_f64(&mut sink, v).unwrap();
        let n = sink.finish().unwrap();
        std::string::String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    fn check32(v: f32) {
        if !v.is_finite() {
            return;
        }
        let ours = compact32(v);
        assert_eq!(
            ours,
            ryu::Buffer::new().format_finite(v),
            "bits {:#x}",
            v.to_bits()
        );
        assert_eq!(
            ours.parse::<f32>().unwrap().to_bits(),
            v.to_bits(),
            "{ours}"
        );
    }

    fn check64(v: f64) {
        if !v.is_finite() {
            return;
        }
        let ours = compact64(v);
        assert_eq!(
            ours,
            ryu::Buffer::new().format_finite(v),
            "bits {:#x}",
            v.to_bits()
        );
        assert_eq!(
            ours.parse::<f64>().unwrap().to_bits(),
            v.to_bits(),
            "{ours}"
        );
    }

    #[test]
    fn golden() {
        assert_eq!(compact32(21.5), "21.5");
        assert_eq!(compact32(0.1), "0.1");
        assert_eq!(compact32(-0.0), "-0.0");
        assert_eq!(compact32(1e30), "1e30");
        assert_eq!(compact32(1.5e-7), "1.5e-7");
        assert_eq!(compact32(123.0), "123.0");
        assert_eq!(compact32(f32::MAX), "3.4028235e38");
        assert_eq!(compact32(f32::from_bits(1)), "1e-45");
        assert_eq!(compact64(0.3), "0.3");
        assert_eq!(compact64(f64::MAX), "1.7976931348623157e308");
        assert_eq!(compact64(f64::from_bits(1)), "5e-324");
        assert_eq!(compact64(1e16), "1e16");
        assert_eq!(compact64(123456789012345.6), "123456789012345.6");
    }

    /// Every binary exponent with the mantissas that make the numbers largest (all ones, the
    /// power of two with its closer lower neighbour, the smallest): no bignum overflows (the
    /// digit generator asserts it in test builds) and the output matches ryu.
    #[test]
    fn every_exponent_at_its_extremes_matches_ryu() {
        for biased in 0u32..255 {
            for fraction in [0u32, 1, 2, 0x7f_ffff, 0x40_0000, 0x12_3456] {
                check32(f32::from_bits((biased << 23) | fraction));
            }
        }
        for biased in 0u64..2047 {
            for fraction in [0u64, 1, 2, (1 << 52) - 1, 1 << 51, 0x1_2345_6789_abcd] {
                check64(f64::from_bits((biased << 52) | fraction));
            }
        }
    }

    #[test]
    fn random_bits_match_ryu_and_read_back() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            check32(f32::from_bits(state as u32));
            check32(f32::from_bits((state >> 32) as u32));
            check64(f64::from_bits(state));
        }
    }

    #[test]
    fn short_decimals_match_ryu() {
        // Values a sensor produces: hundredths and thousandths over a wide range.
        for i in -20_000i32..20_000 {
            check32(i as f32 / 100.0);
            check64(f64::from(i) / 1000.0);
        }
        for p in -45..39 {
            check32(10f32.powi(p));
            check64(10f64.powi(p * 8));
        }
    }

    /// All 2^32 `f32` bit patterns (NaNs and infinities skipped): the text equals ryu's and
    /// reads back to the same bits. 26 CPU-minutes in release (passed on 2026-11-29):
    /// `cargo test --release -p embedded-mcp --lib -- --ignored every_f32`.
    #[test]
    #[ignore = "exhaustive: minutes in release, hours in debug"]
    fn every_f32_matches_ryu_and_reads_back() {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
        let per = (1u64 << 32) / threads + 1;
        let workers: std::vec::Vec<_> = (0..threads)
            .map(|t| {
                std::thread::spawn(move || {
                    let start = t * per;
                    let end = ((t + 1) * per).min(1 << 32);
                    let mut checked = 0u64;
                    let mut buf = [0u8; 48];
                    let mut ryu_buf = ryu::Buffer::new();
                    for bits in start..end {
                        let v = f32::from_bits(bits as u32);
                        if !v.is_finite() {
                            continue;
                        }
                        let mut sink = SliceSink::new(&mut buf);
                        write_f32(&mut sink, v).unwrap();
                        let n = sink.finish().unwrap();
                        let ours = core::str::from_utf8(&buf[..n]).unwrap();
                        assert_eq!(ours, ryu_buf.format_finite(v), "bits {bits:#x}");
                        assert_eq!(
                            ours.parse::<f32>().unwrap().to_bits(),
                            bits as u32,
                            "{ours}"
                        );
                        checked += 1;
                    }
                    checked
                })
            })
            .collect();
        let checked: u64 = workers.into_iter().map(|w| w.join().unwrap()).sum();
        // Every pattern except the 2^24 - 2 NaNs and the 2 infinities (exponent all ones).
        assert_eq!(checked, (1u64 << 32) - (1 << 24));
    }
}
