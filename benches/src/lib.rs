//! Shared fixtures of the benchmarks (sensor readings used by every bench), and the host-SDK
//! path the codec benches compare against.

use serde::{Deserialize, Serialize};

/// A sensor's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Relative humidity in percent.
    Percent,
    /// Air pressure in hectopascal.
    Hectopascal,
}

/// One sensor reading: six fields, one float, one short string, as a device tool returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SensorReading {
    /// Sensor name (short, no escapes).
    pub sensor: heapless::String<16>,
    /// Bus channel.
    pub channel: u8,
    /// The measured value.
    pub value: f32,
    /// Its unit.
    pub unit: Unit,
    /// Milliseconds since the epoch.
    pub timestamp_ms: u64,
    /// Whether the sensor reported no fault.
    pub ok: bool,
}

/// The `i`-th reading of a deterministic series (values with several significant digits).
pub fn reading(i: usize) -> SensorReading {
    let units = [Unit::Celsius, Unit::Percent, Unit::Hectopascal];
    let mut sensor = heapless::String::new();
    // "sensor-" plus at most 8 digits fits the 16-byte capacity for any `i` used here.
    for c in "sensor-"
        .chars()
        .chain((i % 100_000_000).to_string().chars())
    {
        let _ = sensor.push(c);
    }
    SensorReading {
        sensor,
        channel: (i % 8) as u8,
        value: 18.0 + (i as f32) * 0.37 + 0.013,
        unit: units[i % units.len()],
        timestamp_ms: 1_735_689_600_000 + (i as u64) * 1_250,
        ok: i % 7 != 3,
    }
}

/// `n` readings of the series.
pub fn readings(n: usize) -> Vec<SensorReading> {
    (0..n).map(reading).collect()
}

/// What a host-side Rust MCP SDK does with a tool result, built on `serde_json` the way the
/// official Rust SDK (`rmcp`) builds `CallToolResult::structured`: `to_value` the output, render
/// it with `to_string` into a text block, then serialise the whole result struct.
pub mod host {
    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Serialize};
    use serde_json::Value;

    /// A content block, tagged by `type` (only `text` is needed here).
    #[derive(Debug, Clone, Serialize, Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    pub enum Content {
        /// `{"type":"text","text":…}`
        Text {
            /// The text.
            text: String,
        },
    }

    /// The result struct, field for field as the SDK serialises it.
    #[derive(Debug, Clone, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct CallToolResult {
        /// Content blocks.
        pub content: Vec<Content>,
        /// The structured value.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub structured_content: Option<Value>,
        /// `isError` (the SDK writes `false` explicitly).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub is_error: Option<bool>,
        /// `resultType` of 2026-07-28.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub result_type: Option<String>,
    }

    /// Encodes a structured result of `value` into `out` (cleared first).
    pub fn encode<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> serde_json::Result<()> {
        let structured = serde_json::to_value(value)?;
        let text = structured.to_string();
        let result = CallToolResult {
            content: vec![Content::Text { text }],
            structured_content: Some(structured),
            is_error: Some(false),
            result_type: Some("complete".to_owned()),
        };
        out.clear();
        serde_json::to_writer(out, &result)
    }

    /// Decodes `structuredContent` of a result: parse into `serde_json::Value`, then
    /// `from_value` into `T`.
    pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> serde_json::Result<T> {
        let mut result: Value = serde_json::from_slice(bytes)?;
        let structured = result
            .get_mut("structuredContent")
            .map(Value::take)
            .unwrap_or(Value::Null);
        serde_json::from_value(structured)
    }
}
