//! [`FixedPoint`]: a decimal number kept as an integer, written as a JSON number without any
//! floating-point code.

use serde::{Serialize, Serializer};

use super::{EncodeError, Sink, ToJson};

/// `PLACES` decimal places: `FixedPoint::<2>(3688)` is 36.88.
///
/// Written as plain decimal text with the trailing zeros of its fraction dropped and at least
/// one fraction digit: `36.88`, `0.4`, `-0.05`, `37.0`. For `PLACES` up to 4 that is exactly the
/// text the nearest `f32` or `f64` is written as (the shortest text that reads back), so a
/// value can move from `f32` to `FixedPoint` without changing a byte on the wire, while a
/// firmware without an FPU links no float formatter. `#[derive(McpSchema)]` gives it
/// `"type":"number"`. `PLACES` above 9 cannot be written ([`EncodeError::Custom`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FixedPoint<const PLACES: u32>(pub i32);

impl<const PLACES: u32> FixedPoint<PLACES> {
    /// The value as the nearest `f64`.
    pub fn to_f64(self) -> f64 {
        const POWERS: [f64; 10] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
        let scale = usize::try_from(PLACES)
            .ok()
            .and_then(|p| POWERS.get(p))
            .copied()
            .unwrap_or(f64::NAN);
        f64::from(self.0) / scale
    }
}

impl<const PLACES: u32> ToJson for FixedPoint<PLACES> {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        write_fixed(sink, self.0, PLACES)
    }
}

/// serde writes the nearest `f64` (the same text for `PLACES` up to 4; links float code).
impl<const PLACES: u32> Serialize for FixedPoint<PLACES> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.to_f64())
    }
}

/// `value / 10^places` as decimal text: one copy for every `PLACES`. The text is built from
/// the right in one buffer (fraction digits without their trailing zeros, at least one; the
/// point; the integer digits; the sign) and written with one `put`.
fn write_fixed(sink: &mut dyn Sink, value: i32, places: u32) -> Result<(), EncodeError> {
    if places > 9 {
        return Err(EncodeError::Custom);
    }
    // Sign, 10 integer digits, point, 9 fraction digits.
    let mut text = [0u8; 21];
    let mut at = text.len();
    let mut push = |byte: u8| {
        at = at.saturating_sub(1);
        if let Some(b) = text.get_mut(at) {
            *b = byte;
        }
    };
    // `n % 10` < 10: the sums are ASCII digits.
    let digit = |n: u32| b'0'.saturating_add((n % 10) as u8);
    let mut n = value.unsigned_abs();
    let mut significant = false;
    for _ in 0..places {
        if !n.is_multiple_of(10) || significant {
            significant = true;
            push(digit(n));
        }
        n /= 10;
    }
    if !significant {
        push(b'0');
    }
    push(b'.');
    loop {
        push(digit(n));
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if value < 0 {
        push(b'-');
    }
    sink.put(text.get(at..).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::SliceSink;

    fn text<const P: u32>(v: i32) -> std::string::String {
        let mut buf = [0u8; 32];
        let mut sink = SliceSink::new(&mut buf);
        FixedPoint::<P>(v).to_json(&mut sink).unwrap();
        let n = sink.finish().unwrap();
        std::string::String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    #[test]
    fn decimal_text() {
        assert_eq!(text::<2>(3688), "36.88");
        assert_eq!(text::<2>(40), "0.4");
        assert_eq!(text::<2>(-5), "-0.05");
        assert_eq!(text::<2>(3700), "37.0");
        assert_eq!(text::<2>(0), "0.0");
        assert_eq!(text::<0>(-12), "-12.0");
        assert_eq!(text::<9>(1), "0.000000001");
        assert_eq!(text::<9>(i32::MIN), "-2.147483648");
        assert_eq!(text::<3>(i32::MAX), "2147483.647");
    }

    #[test]
    fn same_text_as_the_nearest_float() {
        fn check<const P: u32>(v: i32) {
            let mut buf = [0u8; 32];
            let n = crate::json::to_slice(&FixedPoint::<P>(v), &mut buf).unwrap();
            assert_eq!(text::<P>(v).as_bytes(), &buf[..n], "{v} / 10^{P}");
            let as_f32 = FixedPoint::<P>(v).to_f64() as f32;
            let n = crate::json::to_slice(&as_f32, &mut buf).unwrap();
            assert_eq!(text::<P>(v).as_bytes(), &buf[..n], "{v} / 10^{P} as f32");
        }
        for v in -20_000..=20_000 {
            check::<1>(v);
            check::<2>(v);
            check::<3>(v);
            check::<4>(v);
        }
        for v in [999_999, -999_999, 123_456, 100_000, 5, 1] {
            check::<2>(v);
            check::<4>(v);
        }
    }

    #[test]
    fn too_many_places_cannot_be_written() {
        let mut buf = [0u8; 32];
        let mut sink = SliceSink::new(&mut buf);
        assert_eq!(
            FixedPoint::<10>(1).to_json(&mut sink),
            Err(EncodeError::Custom)
        );
    }
}
