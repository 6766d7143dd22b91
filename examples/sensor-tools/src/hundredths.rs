//! Hundredths (the sensors' integer unit) as `f32`, without floating-point arithmetic: how the
//! results were made before they became `FixedPoint<2>`, kept to prove that the wire did not
//! change (`fixed_point_writes_the_f32_text`).
//!
//! The Cortex-M3 has no FPU: `h as f32 / 100.0` links the soft-float division, conversion and
//! (for the averages and range checks) addition, multiplication and comparisons, about 2 KB of
//! flash. The sensors compute in hundredths, so only this conversion remains: it builds the
//! `f32` bits with integer division and gives exactly what `h as f32 / 100.0` gives (IEEE
//! division rounds the exact quotient to nearest, ties to even; so does this).

/// The `f32` nearest to `h / 100` (ties to even), for `|h| <= 2^24`: the same value as
/// `h as f32 / 100.0`.
pub fn to_f32(h: i32) -> f32 {
    if h == 0 {
        return 0.0;
    }
    let sign = if h < 0 { 1u32 << 31 } else { 0 };
    // In `u32`: the loop stops at the first `n << shift` of at least `100 << 23`, so every value
    // is below `200 << 23 < 2^32` (and a `u64` would bring in the 64-bit divide).
    let n = h.unsigned_abs().min(1 << 24);
    // The smallest shift with `n << shift >= 100 << 23`: then `(n << shift) / 100` has 24 bits
    // (the mantissa with its leading one). `n >= 1` needs at most 30 steps.
    let mut shift = 0u32;
    while (n << shift) < (100 << 23) {
        shift += 1;
    }
    let scaled = n << shift;
    let (mut mantissa, rest) = (scaled / 100, scaled % 100);
    if rest > 50 || (rest == 50 && mantissa & 1 == 1) {
        // A carry out of the 24 bits (mantissa 2^24) moves into the exponent below.
        mantissa += 1;
    }
    // value = mantissa * 2^-shift = (mantissa / 2^23) * 2^(23 - shift); the leading one is
    // implicit in the bits, so it is subtracted from the mantissa and added to the exponent.
    let exponent = (127 + 23 - shift) << 23;
    f32::from_bits(sign | (exponent + (mantissa - (1 << 23))))
}

#[cfg(test)]
mod tests {
    use super::to_f32;
    use embedded_mcp::json::{to_slice, FixedPoint, SliceSink, ToJson};

    /// Every value the sensors and averages produce is written as `FixedPoint<2>` with the
    /// bytes its `f32` had.
    #[test]
    fn fixed_point_writes_the_f32_text() {
        let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
        for h in -20_000..=20_000 {
            let n = to_slice(&to_f32(h), &mut a).unwrap();
            let mut sink = SliceSink::new(&mut b);
            FixedPoint::<2>(h).to_json(&mut sink).unwrap();
            let m = sink.finish().unwrap();
            assert_eq!(&a[..n], &b[..m], "hundredths {h}");
        }
    }

    #[test]
    fn same_bits_as_float_division() {
        let check = |h: i32| {
            assert_eq!(
                to_f32(h).to_bits(),
                (h as f32 / 100.0).to_bits(),
                "hundredths {h}"
            );
        };
        // Every value the sensors and averages can produce (-40 to 125 degrees, m/s²), then
        // spot checks up to the limit.
        (-20_000..=20_000).for_each(check);
        [
            1 << 24,
            -(1 << 24),
            (1 << 24) - 1,
            9_999_999,
            12_345_678,
            1 << 23,
        ]
        .into_iter()
        .for_each(check);
        (0..24).map(|k| 1 << k).for_each(check);
    }
}
