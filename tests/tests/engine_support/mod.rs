//! Shared fixture of the engine tests: a simulated sensor device, and helpers that feed it lines
//! and check every response against the official MCP schema of the negotiated revision.
#![allow(dead_code)]

use std::sync::OnceLock;

use embedded_mcp::server::{
    Annotations, Call, Config, Done, Icon, Output, SchemaStorage, Server, ServerInfo, Theme, Tool,
};
use embedded_mcp_std::mcp_schema::McpSchemas;
use embedded_mcp_tests::vectors_dir;
use serde::{Deserialize, Serialize};

/// The `_meta` members of a 2026-07-28 request.
pub const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

static ICONS: [Icon; 1] = [Icon::new("data:image/png;base64,iVBORw0KGgo=")
    .mime_type("image/png")
    .sizes(&["48x48"])
    .theme(Theme::Light)];

/// The device's tools, in listing order.
pub static TOOLS: [Tool; 8] = [
    Tool::new(
        "read_temperature",
        r#"{
            "type": "object",
            "properties": {"sensor": {"type": "integer", "minimum": 0, "maximum": 3}},
            "additionalProperties": false
        }"#,
    )
    .title("Read temperature")
    .description("Temperature of one sensor, in degrees Celsius")
    .output_schema(
        r#"{"type":"object","properties":{"sensor":{"type":"integer"},"celsius":{"type":"number"}},"required":["sensor","celsius"]}"#,
    )
    .annotations(Annotations::SENSOR),
    Tool::new(
        "read_history",
        r#"{"type":"object","properties":{"count":{"type":"integer","minimum":1,"maximum":8}},"required":["count"]}"#,
    )
    .description("The last readings of sensor 0, oldest first")
    .output_schema(r#"{"type":"array","items":{"type":"number"},"maxItems":8}"#)
    .annotations(Annotations::SENSOR),
    Tool::new(
        "set_led",
        r#"{"type":"object","properties":{"brightness":{"type":"integer","minimum":0,"maximum":100}},"required":["brightness"]}"#,
    )
    .title("Set LED brightness")
    .output_schema(
        r#"{"type":"object","properties":{"brightness":{"type":"integer","minimum":0,"maximum":100}},"required":["brightness"]}"#,
    )
    .annotations(Annotations::SETTER.title("LED")),
    Tool::new("device_info", r#"{"type":"object"}"#)
        .title("Device information")
        .output_schema(
            r#"{"type":"object","properties":{"model":{"type":"string"},"firmware":{"type":"string"},"uptime_ms":{"type":"integer"}},"required":["model","firmware","uptime_ms"]}"#,
        )
        .annotations(Annotations::SENSOR)
        .icons(&ICONS)
        .meta(r#"{"com.example/board": "rp2040"}"#),
    Tool::new("sample_count", r#"{"type":"object"}"#)
        .description("Number of samples taken since boot")
        .output_schema(r#"{"type":"integer","minimum":0}"#)
        .annotations(Annotations::SENSOR),
    Tool::new("calibrate", r#"{"type":"object"}"#)
        .description("Calibrates the sensors (fails: no reference attached)"),
    Tool::new("buggy_reading", r#"{"type":"object"}"#)
        .description("Returns output that breaks its own outputSchema (a firmware bug)")
        .output_schema(
            r#"{"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}"#,
        ),
    Tool::new("dump", r#"{"type":"object"}"#)
        .description("Returns more data than the output buffer holds"),
];

#[derive(Serialize)]
struct Temperature {
    sensor: u8,
    celsius: f32,
}

#[derive(Deserialize)]
struct TemperatureArgs {
    #[serde(default)]
    sensor: u8,
}

#[derive(Deserialize)]
struct HistoryArgs {
    count: usize,
}

#[derive(Serialize, Deserialize)]
struct Led {
    brightness: u8,
}

#[derive(Serialize)]
struct Info<'a> {
    model: &'a str,
    firmware: &'a str,
    uptime_ms: u64,
}

#[derive(Serialize)]
struct WrongReading<'a> {
    fahrenheit: &'a str,
}

/// The simulated device: sensors, an LED and a counter.
#[derive(Debug, Default)]
pub struct Device {
    pub led: u8,
    pub samples: u32,
}

/// The device's error type (its `Display` text becomes the `isError` message).
#[derive(Debug)]
pub enum DeviceError {
    NoReference,
    Args(embedded_mcp::json::DecodeError),
    Unknown,
}

impl std::fmt::Display for DeviceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoReference => f.write_str("calibration failed: no reference sensor attached"),
            Self::Args(e) => write!(f, "bad arguments: {e}"),
            Self::Unknown => f.write_str("not implemented"),
        }
    }
}

/// The `Display` text, through `core::fmt` (the trait's default).
impl embedded_mcp::server::ToolFailure for DeviceError {}

impl embedded_mcp::server::Handler for Device {
    type Error = DeviceError;

    fn call(&mut self, call: &Call<'_>, out: Output<'_>) -> Result<Done, DeviceError> {
        self.samples += 1;
        match call.name() {
            "read_temperature" => {
                let args: TemperatureArgs = call.parse(&mut []).map_err(DeviceError::Args)?;
                let celsius = 21.5 + f32::from(args.sensor);
                Ok(out.structured(&Temperature {
                    sensor: args.sensor,
                    celsius,
                }))
            }
            "read_history" => {
                let args: HistoryArgs = call.parse(&mut []).map_err(DeviceError::Args)?;
                let all = [20.5f32, 20.75, 21.0, 21.25, 21.5, 21.75, 22.0, 22.25];
                let n = args.count.min(all.len());
                Ok(out.structured(&all[all.len() - n..]))
            }
            "set_led" => {
                let led: Led = call.parse(&mut []).map_err(DeviceError::Args)?;
                self.led = led.brightness;
                Ok(out.structured(&led))
            }
            "device_info" => Ok(out.structured(&Info {
                model: "sim-1",
                firmware: "0.1.0",
                uptime_ms: 123_456,
            })),
            "sample_count" => Ok(out.structured(&self.samples)),
            "calibrate" => Err(DeviceError::NoReference),
            "buggy_reading" => Ok(out.structured(&WrongReading { fahrenheit: "hot" })),
            "dump" => {
                let data = vec![7u32; 4096];
                Ok(out.structured(&data))
            }
            _ => Err(DeviceError::Unknown),
        }
    }
}

/// Who the device says it is.
pub const INFO: ServerInfo = ServerInfo::new("sim-sensors", "0.1.0")
    .title("Simulated sensors")
    .instructions("Read sensors with read_temperature; set_led changes the LED.");

/// The device as a server; `page_bytes` sets the `tools/list` page budget.
pub fn device(page_bytes: usize) -> Server<'static, Device, 8> {
    let config = Config {
        page_bytes,
        ..Config::DEFAULT
    };
    // Each test leaks one storage; the server borrows it for its whole life.
    let storage = Box::leak(Box::new(SchemaStorage::<8, 16, 48, 128>::new()));
    Server::with_config(INFO, &TOOLS, storage, Device::default(), config)
        .expect("valid definitions")
}

/// The official schemas, loaded once.
pub fn schemas() -> &'static McpSchemas {
    static SCHEMAS: OnceLock<McpSchemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        McpSchemas::load(&vectors_dir().join("mcp-schema")).expect("official MCP schemas")
    })
}

/// Output buffer size used by the conversations.
pub const OUT: usize = 4096;

/// Sends one line; returns the response line without its LF (checked to end with one, to be
/// one line, and to be JSON).
pub fn ask(server: &mut Server<'static, Device, 8>, line: &str) -> Option<String> {
    let mut out = vec![0u8; OUT];
    let n = server.handle_line(line.as_bytes(), &mut out)?;
    assert_eq!(out[n - 1], b'\n', "a response ends with LF");
    let text = String::from_utf8(out[..n - 1].to_vec()).expect("UTF-8 response");
    assert!(!text.contains('\n'), "one line: {text}");
    serde_json::from_str::<serde_json::Value>(&text).expect("JSON response");
    Some(text)
}

/// Checks a response against the official schema of `version`: the whole message, and the
/// envelope plus the result's own type for `method`.
pub fn check(version: &str, method: &str, response: &str) {
    let value: serde_json::Value = serde_json::from_str(response).expect("JSON");
    schemas()
        .check_message(version, &value)
        .unwrap_or_else(|e| panic!("{e}\n{response}"));
    schemas()
        .check_response(version, method, &value)
        .unwrap_or_else(|e| panic!("{e}\n{response}"));
}

/// Sends a request, checks the response against the schema and returns it.
pub fn exchange(
    server: &mut Server<'static, Device, 8>,
    version: &str,
    method: &str,
    line: &str,
) -> String {
    let response = ask(server, line).unwrap_or_else(|| panic!("no response to {line}"));
    check(version, method, &response);
    response
}

/// A 2026-07-28 request line.
pub fn req26(id: &str, method: &str, extra_params: &str) -> String {
    let sep = if extra_params.is_empty() { "" } else { "," };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{META}{sep}{extra_params}}}}}"#
    )
}

/// A legacy request line (`params` omitted when empty).
pub fn req(id: &str, method: &str, params: &str) -> String {
    if params.is_empty() {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#)
    } else {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}}}}}"#)
    }
}

/// The JSON value of a response.
pub fn json(response: &str) -> serde_json::Value {
    serde_json::from_str(response).expect("JSON")
}

/// Collects what a serve loop writes (blocking and async).
#[derive(Debug, Default)]
pub struct Collect(pub Vec<u8>);

impl embedded_io::ErrorType for Collect {
    type Error = core::convert::Infallible;
}

impl embedded_io::Write for Collect {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

impl embedded_io_async::Write for Collect {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    async fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Polls a future whose I/O never waits (in-memory streams).
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}
