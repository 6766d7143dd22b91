//! The tool handler: runs a tool on the simulated hardware and writes its result; the board
//! ([`Board`]) supplies what `device_info` reports and the timer. It is an `AsyncHandler`:
//! `sample_temperature` awaits its sampling interval, reports progress and logs; `set_led` logs
//! each change.
//!
//! The engine has already checked the arguments against the tool's compiled `inputSchema`
//! (a call that fails never gets here), and it checks the result against the compiled
//! `outputSchema` before sending it (a result that fails is replaced by an `isError` result).
//! Results are written with `Output::structured`: `structuredContent` plus the same JSON in a
//! `text` block.

use core::marker::PhantomData;

use embedded_mcp::json::Value;
use embedded_mcp::protocol::LogLevel;
use embedded_mcp::server::{AsyncHandler, Call, Context, Done, Output, ToolError};
use serde::Serialize;

use crate::board::Board;
use crate::sensors::{Sensors, LED_CHANNELS, TEMPERATURE_SENSORS};
use crate::tools;

/// Normal range of each temperature sensor, °C: `sample_temperature` logs a `warning` for a
/// reading outside it.
const NORMAL_RANGE: [(f32, f32); 2] = [(35.0, 37.5), (19.0, 23.0)];

/// `sample_temperature`'s start message (logged at `info`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Sampling {
    sensor_id: &'static str,
    samples: u32,
    interval_ms: u64,
}

/// A reading out of its normal range (logged at `warning`).
#[derive(Serialize)]
struct OutOfRange {
    sample: u32,
    value: f32,
    low: f32,
    high: f32,
}

/// `sample_temperature`'s result.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Sampled {
    average: f32,
    min: f32,
    max: f32,
    samples: u32,
    sensor_id: &'static str,
}

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
pub struct Device<B> {
    sensors: Sensors,
    calls: u32,
    input_buffer_bytes: usize,
    output_buffer_bytes: usize,
    board: PhantomData<B>,
}

impl<B> Device<B> {
    /// A device at power-on; the buffer sizes are reported by `device_info`.
    pub const fn new(input_buffer_bytes: usize, output_buffer_bytes: usize) -> Self {
        Self {
            sensors: Sensors::new(),
            calls: 0,
            input_buffer_bytes,
            output_buffer_bytes,
            board: PhantomData,
        }
    }
}

/// A non-negative integer argument (already checked by the `inputSchema`, which accepts any
/// integral number, such as `50`, `50.0` or `5e1`). `Number::as_u64` works on the decimal digits,
/// so no float-parsing code is linked.
fn integer_argument(arguments: Value<'_>, name: &str) -> Option<u64> {
    arguments.get(name)?.as_number()?.as_u64()
}

impl<B: Board> Device<B> {
    /// `sample_temperature`: `samples` readings `interval_ms` apart, one progress report after
    /// each; the engine drops this future if the host cancels the call.
    async fn sample(
        &mut self,
        arguments: Value<'_>,
        out: Output<'_>,
        cx: &mut Context<'_>,
    ) -> Result<Done, ToolError> {
        let sensor = integer_argument(arguments, "sensor").unwrap_or(0).min(1) as usize;
        let samples = integer_argument(arguments, "samples")
            .unwrap_or(5)
            .clamp(1, 20) as u32;
        let interval_ms = integer_argument(arguments, "intervalMs").unwrap_or(100);
        let sensor_id = TEMPERATURE_SENSORS[sensor];
        let start = Sampling {
            sensor_id,
            samples,
            interval_ms,
        };
        cx.log(LogLevel::Info, Some("sample_temperature"), &start)
            .await;
        let (low, high) = NORMAL_RANGE[sensor];
        let (mut sum, mut min, mut max) = (0.0f32, f32::MAX, f32::MIN);
        for i in 1..=samples {
            if i > 1 {
                B::sleep_ms(interval_ms).await;
            }
            let value = self.sensors.temperature(sensor).value;
            sum += value;
            min = min.min(value);
            max = max.max(value);
            if !(low..=high).contains(&value) {
                let warning = OutOfRange {
                    sample: i,
                    value,
                    low,
                    high,
                };
                cx.log(LogLevel::Warning, Some("sample_temperature"), &warning)
                    .await;
            }
            cx.progress(i, Some(samples), None).await;
        }
        Ok(out.structured(&Sampled {
            // Rounded to hundredths, as the readings are.
            average: ((sum / samples as f32) * 100.0 + 0.5) as i32 as f32 / 100.0,
            min,
            max,
            samples,
            sensor_id,
        }))
    }
}

impl<B: Board> AsyncHandler for Device<B> {
    type Error = ToolError;

    async fn call(
        &mut self,
        call: &Call<'_>,
        out: Output<'_>,
        cx: &mut Context<'_>,
    ) -> Result<Done, ToolError> {
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
                cx.log(LogLevel::Info, Some("set_led"), &level).await;
                Ok(out.structured(&level))
            }
            tools::INFO => {
                let info = DeviceInfo {
                    firmware: B::FIRMWARE,
                    version: B::VERSION,
                    board: B::NAME,
                    uptime_ms: B::uptime_ms(),
                    calls: self.calls,
                    rx_free_bytes: B::rx_free(),
                    input_buffer_bytes: self.input_buffer_bytes,
                    output_buffer_bytes: self.output_buffer_bytes,
                    stack_peak_bytes: B::stack_peak(),
                    stack_size_bytes: B::stack_size(),
                };
                Ok(out.structured(&info))
            }
            tools::SAMPLE => self.sample(arguments, out, cx).await,
            _ => Err(ToolError::NotImplemented),
        }
    }
}
