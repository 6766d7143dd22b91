//! The tool handler: runs a tool on the simulated hardware and writes its result; the board
//! ([`Board`]) supplies what `device_info` reports.
//!
//! The engine has already checked the arguments against the tool's compiled `inputSchema`
//! (a call that fails never gets here), and it checks the result against the compiled
//! `outputSchema` before sending it (a result that fails is replaced by an `isError` result).
//! Results are written with `Output::structured`: `structuredContent` plus the same JSON in a
//! `text` block.

use core::marker::PhantomData;

use embedded_mcp::json::Value;
use embedded_mcp::server::{Call, Done, Handler, Output, ToolError};
use serde::Serialize;

use crate::board::Board;
use crate::sensors::{Sensors, LED_CHANNELS};
use crate::tools;

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

impl<B: Board> Handler for Device<B> {
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
            _ => Err(ToolError::NotImplemented),
        }
    }
}
