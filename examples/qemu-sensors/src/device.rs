//! The tool handler: runs a tool on the simulated hardware and writes its result.
//!
//! The engine has already checked the arguments against the tool's compiled `inputSchema`
//! (a call that fails never gets here), and it checks the result against the compiled
//! `outputSchema` before sending it (a result that fails is replaced by an `isError` result).
//! Results are written with `Output::structured`: `structuredContent` plus the same JSON in a
//! `text` block.

use embedded_mcp::json::Value;
use embedded_mcp::server::{Call, Done, Handler, Output, ToolError};
use serde::Serialize;

use crate::sensors::{Sensors, LED_CHANNELS};
use crate::tools;
use crate::{clock, stack, uart};

/// `device_info`'s result.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct DeviceInfo {
    firmware: &'static str,
    version: &'static str,
    board: &'static str,
    uptime_ms: u64,
    calls: u32,
    rx_free_bytes: usize,
    input_buffer_bytes: usize,
    output_buffer_bytes: usize,
    stack_peak_bytes: usize,
    stack_size_bytes: usize,
}

/// The board as the engine sees it: simulated hardware and a call counter.
pub struct Device {
    sensors: Sensors,
    calls: u32,
    input_buffer_bytes: usize,
    output_buffer_bytes: usize,
}

impl Device {
    /// A device at power-on; the buffer sizes are reported by `device_info`.
    pub const fn new(input_buffer_bytes: usize, output_buffer_bytes: usize) -> Self {
        Self {
            sensors: Sensors::new(),
            calls: 0,
            input_buffer_bytes,
            output_buffer_bytes,
        }
    }
}

/// A non-negative integer argument (already checked by the `inputSchema`, which accepts any
/// integral number, such as `50`, `50.0` or `5e1`).
fn integer_argument(arguments: Value<'_>, name: &str) -> Option<u64> {
    exact_u64(arguments.get(name)?.as_number()?.raw())
}

/// The value of a JSON number lexeme if it is exactly a non-negative integer that fits a `u64`,
/// computed on its decimal digits: `50`, `50.0`, `5e1`, `500e-1` and `-0` are integers, `50.5`
/// and `-1` are not.
///
/// `Number::as_u64` would do, but for a lexeme with a fraction or an exponent it goes through
/// `f64` parsing, which links 19.6 KB of float tables and code into this firmware.
fn exact_u64(lexeme: &str) -> Option<u64> {
    let bytes = lexeme.as_bytes();
    let (negative, bytes) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, bytes),
    };
    let (mantissa, exponent) = match bytes.iter().position(|&b| b == b'e' || b == b'E') {
        Some(at) => (bytes.get(..at)?, bytes.get(at + 1..)?),
        None => (bytes, &b""[..]),
    };
    // The exponent, saturated: JSON allows any number of digits.
    let (exponent_negative, exponent_digits) = match exponent.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, exponent),
    };
    let magnitude = exponent_digits
        .iter()
        .fold(0i64, |e, &d| (e * 10 + i64::from(d - b'0')).min(1 << 20));
    let dot = mantissa.iter().position(|&b| b == b'.');
    let fraction_len = dot.map_or(0, |at| mantissa.len() - at - 1);
    // value = (mantissa digits) * 10^scale
    let scale = if exponent_negative {
        -magnitude
    } else {
        magnitude
    } - fraction_len as i64;
    let digits = mantissa.iter().copied().filter(|&b| b != b'.');
    let count = mantissa.len() - usize::from(dot.is_some());
    // Digits dropped by a negative scale must all be zeros.
    let kept = if scale < 0 {
        count.saturating_sub(usize::try_from(-scale).ok()?)
    } else {
        count
    };
    if digits.clone().skip(kept).any(|d| d != b'0') {
        return None;
    }
    let mut value: u64 = 0;
    for d in digits.take(kept) {
        value = value.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    if value != 0 {
        for _ in 0..scale.max(0) {
            value = value.checked_mul(10)?;
        }
    }
    (!negative || value == 0).then_some(value)
}

impl Handler for Device {
    type Error = ToolError;

    fn call(&mut self, call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
        self.calls = self.calls.wrapping_add(1);
        let arguments = call.arguments();
        match call.index() {
            tools::TEMPERATURE => {
                let sensor = integer_argument(arguments, "sensor").unwrap_or(0);
                let reading = self.sensors.temperature(sensor as usize);
                Ok(out.structured(&reading))
            }
            tools::ACCELERATION => {
                let axes = self.sensors.acceleration();
                Ok(out.structured(&axes))
            }
            tools::LED => {
                let channel = arguments
                    .get("led")
                    .and_then(|v| v.as_str())
                    .and_then(|name| LED_CHANNELS.iter().position(|c| name.eq_str(c)))
                    .ok_or(ToolError::Message("unknown LED"))?;
                let brightness = integer_argument(arguments, "brightness")
                    .and_then(|b| u8::try_from(b).ok())
                    .ok_or(ToolError::Message("brightness out of range"))?;
                let level = self
                    .sensors
                    .set_led(channel, brightness)
                    .ok_or(ToolError::Message("unknown LED"))?;
                Ok(out.structured(&level))
            }
            tools::INFO => {
                let info = DeviceInfo {
                    firmware: env!("CARGO_PKG_NAME"),
                    version: env!("CARGO_PKG_VERSION"),
                    board: "lm3s6965evb",
                    uptime_ms: clock::uptime_ms(),
                    calls: self.calls,
                    rx_free_bytes: uart::rx_free(),
                    input_buffer_bytes: self.input_buffer_bytes,
                    output_buffer_bytes: self.output_buffer_bytes,
                    stack_peak_bytes: stack::peak_used(),
                    stack_size_bytes: stack::size(),
                };
                Ok(out.structured(&info))
            }
            _ => Err(ToolError::NotImplemented),
        }
    }
}
