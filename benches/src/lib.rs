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

/// Measuring helpers shared by the benches: criterion's median estimates of this run, and an
/// interleaved measurement that is steadier on a shared machine.
pub mod measure {
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant, SystemTime};

    /// Where criterion writes its estimates (the same rule criterion uses, pinned for this run).
    pub fn criterion_dir() -> PathBuf {
        if let Some(dir) = std::env::var_os("CRITERION_HOME") {
            return PathBuf::from(dir);
        }
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
        let dir = target.join("criterion");
        std::env::set_var("CRITERION_HOME", &dir);
        dir
    }

    /// The median estimate (ns) of one benchmark, if it was measured during this run.
    pub fn median_ns(dir: &Path, group: &str, function: &str, since: SystemTime) -> Option<f64> {
        let path = dir.join(group).join(function).join("new/estimates.json");
        let modified = std::fs::metadata(&path).ok()?.modified().ok()?;
        if modified < since {
            return None; // left over from an earlier run (filtered out this time)
        }
        let text = std::fs::read_to_string(&path).ok()?;
        let v: serde_json::Value = serde_json::from_str(&text).ok()?;
        v["median"]["point_estimate"].as_f64()
    }

    /// Time per call (ns) of `ours` and of `peer`, measured in alternating batches of about
    /// 2 ms (61 rounds, the order swapped every round), each side's fastest batch: on a shared
    /// machine other processes only ever add time, so the fastest batch is the closest to the
    /// cost of the code, and alternating gives both sides the same chances of a quiet moment.
    pub fn interleaved(mut ours: impl FnMut(), mut peer: impl FnMut()) -> (f64, f64) {
        fn calibrate(f: &mut impl FnMut()) -> u32 {
            let mut n = 1u32;
            loop {
                let t = Instant::now();
                for _ in 0..n {
                    f();
                }
                if t.elapsed() >= Duration::from_millis(2) || n >= 1 << 24 {
                    return n;
                }
                n *= 2;
            }
        }
        fn batch(f: &mut impl FnMut(), n: u32) -> f64 {
            let t = Instant::now();
            for _ in 0..n {
                f();
            }
            t.elapsed().as_nanos() as f64 / f64::from(n)
        }
        let (n_ours, n_peer) = (calibrate(&mut ours), calibrate(&mut peer));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for round in 0..61 {
            if round % 2 == 0 {
                a.push(batch(&mut ours, n_ours));
                b.push(batch(&mut peer, n_peer));
            } else {
                b.push(batch(&mut peer, n_peer));
                a.push(batch(&mut ours, n_ours));
            }
        }
        let fastest = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        (fastest(&a), fastest(&b))
    }

    /// The load average of the machine (first figure of /proc/loadavg), to print beside
    /// ratios measured on a shared machine.
    pub fn load_average() -> String {
        std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().next().map(str::to_owned))
            .unwrap_or_else(|| "unknown".to_owned())
    }
}

/// The sensor tool of the request bench (`benches/request.rs`) and of the profiling binary
/// `request_line`: schemas, request lines, handler and engine set-up.
pub mod sensor_tool {
    use embedded_mcp::server::{
        Annotations, Call, Done, Handler, Output, SchemaStorage, Server, ServerInfo, Tool,
        ToolError,
    };
    use serde::Deserialize;

    use super::{reading, SensorReading};

    /// The tool's `inputSchema`.
    pub const INPUT_SCHEMA: &str = r#"{"type":"object","properties":{"channel":{"type":"integer","minimum":0,"maximum":7}},"required":["channel"]}"#;
    /// The tool's `outputSchema`.
    pub const OUTPUT_SCHEMA: &str = r#"{"type":"object","properties":{"sensor":{"type":"string"},"channel":{"type":"integer"},"value":{"type":"number"},"unit":{"enum":["celsius","percent","hectopascal"]},"timestamp_ms":{"type":"integer"},"ok":{"type":"boolean"}},"required":["sensor","channel","value","unit","timestamp_ms","ok"]}"#;

    /// The request both servers answer (legacy era, as stdio hosts use today).
    pub const REQUEST: &str = r#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"read_sensor","arguments":{"channel":3}}}"#;
    /// The legacy handshake sent before the request.
    pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;

    #[derive(Deserialize)]
    struct Args {
        channel: usize,
    }

    /// The one tool, `read_sensor`.
    pub static TOOLS: [Tool; 1] = [Tool::new("read_sensor", INPUT_SCHEMA)
        .description("One reading of a sensor channel")
        .output_schema(OUTPUT_SCHEMA)
        .annotations(Annotations::SENSOR)];

    /// The readings the tool returns, made once (the fixture's constructor formats a string with
    /// the heap; the handlers only copy a reading).
    pub fn readings() -> [SensorReading; 8] {
        std::array::from_fn(reading)
    }

    /// The engine's handler: a copy of the channel's reading as structured output.
    pub struct Sensors {
        /// The reading of each channel.
        pub readings: [SensorReading; 8],
    }

    impl Handler for Sensors {
        type Error = ToolError;

        fn call(&mut self, call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
            let args: Args = call.parse(&mut [])?;
            let r = self
                .readings
                .get(args.channel)
                .ok_or(ToolError::Message("no such channel"))?;
            Ok(out.structured(r))
        }
    }

    /// The same tool without the checks rmcp does not make either: `inputSchema` is just
    /// `{"type":"object"}` and there is no `outputSchema`, so the engine neither checks the
    /// arguments' properties nor the result.
    pub static TOOLS_UNCHECKED: [Tool; 1] = [Tool::new("read_sensor", r#"{"type":"object"}"#)
        .description("One reading of a sensor channel")
        .annotations(Annotations::SENSOR)];

    /// The engine with the bench tool, initialized for 2025-11-25.
    pub fn engine() -> Server<'static, Sensors, 1> {
        engine_with(&TOOLS)
    }

    /// The engine serving `tools` (one of [`TOOLS`], [`TOOLS_UNCHECKED`]), initialized for
    /// 2025-11-25.
    pub fn engine_with(tools: &'static [Tool; 1]) -> Server<'static, Sensors, 1> {
        let storage = Box::leak(Box::new(SchemaStorage::<1, 16, 48, 160>::new()));
        let mut server = Server::new(
            ServerInfo::new("bench", "1.0.0"),
            tools,
            storage,
            Sensors {
                readings: readings(),
            },
        )
        .expect("valid tool");
        let mut out = [0u8; 1024];
        server.handle_line(INITIALIZE.as_bytes(), &mut out);
        server
    }
}
