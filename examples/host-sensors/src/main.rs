//! `host-sensors`: the same engine a microcontroller runs, as an MCP stdio server on a PC.
//!
//! Any MCP host can start it as a stdio server (`"command": "host-sensors"`). It speaks the
//! legacy handshake (2025-06-18, 2025-11-25) and 2026-07-28 per-request metadata, reads one
//! JSON-RPC message per line on stdin and writes one response line per request on stdout;
//! diagnostics go to stderr only. The tools are the methods of `Board` under `#[tools]`, their
//! schemas derived from the argument and result types; the sensors are simulated:
//!
//! - `read_temperature`: one sensor's temperature (object output);
//! - `read_history`: the last readings of a sensor (array output: wrapped for 2025 hosts);
//! - `set_led`: an actuator with bounds (brightness 0..=100, checked by the input schema);
//! - `device_info`: model, firmware and uptime.

use std::io::{Read as _, Write as _};
use std::time::Instant;

use embedded_mcp::server::{output_len, Annotations, Config, Server, ServerInfo};
use embedded_mcp::transport::LineReader;
use embedded_mcp::{tools, McpSchema};
use serde::{Deserialize, Serialize};

/// Standard input as an `embedded-io` reader.
struct Stdin(std::io::Stdin);

impl embedded_io::ErrorType for Stdin {
    type Error = std::io::Error;
}

impl embedded_io::Read for Stdin {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, std::io::Error> {
        self.0.lock().read(buf)
    }
}

/// Standard output as an `embedded-io` writer.
struct Stdout(std::io::Stdout);

impl embedded_io::ErrorType for Stdout {
    type Error = std::io::Error;
}

impl embedded_io::Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> Result<usize, std::io::Error> {
        self.0.lock().write(buf)
    }
    fn flush(&mut self) -> Result<(), std::io::Error> {
        self.0.lock().flush()
    }
}

/// The simulated board.
struct Board {
    started: Instant,
    led: u8,
}

impl Board {
    fn uptime_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// A smooth temperature curve per sensor over wall-clock time (period 60 s).
    fn temperature(&self, sensor: u8, seconds_ago: u64) -> f32 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let t = (now.saturating_sub(seconds_ago) % 3600) as f32;
        let phase = t * std::f32::consts::TAU / 60.0 + f32::from(sensor);
        let raw = 21.0 + f32::from(sensor) * 0.5 + 1.5 * phase.sin();
        (raw * 100.0).round() / 100.0
    }
}

// Doc comments on these types and fields become the schemas' `description`s; notes for readers
// are plain comments. The argument types stay open (`additional_properties`): unknown members
// were accepted before their schemas were derived, and still are.

// `read_temperature`'s arguments.
#[derive(McpSchema, Deserialize)]
#[mcp(additional_properties)]
struct SensorArgs {
    /// Sensor index
    #[serde(default)]
    #[mcp(maximum = 3)]
    sensor: u8,
}

// `read_history`'s arguments.
#[derive(McpSchema, Deserialize)]
#[mcp(additional_properties)]
struct HistoryArgs {
    #[serde(default)]
    #[mcp(maximum = 3)]
    sensor: u8,
    #[mcp(minimum = 1, maximum = 16)]
    count: u8,
}

// `set_led`'s arguments.
#[derive(McpSchema, Deserialize)]
struct LedArgs {
    /// Percent
    #[mcp(maximum = 100)]
    brightness: u8,
}

// `device_info` takes no arguments.
#[derive(McpSchema, Deserialize)]
#[mcp(additional_properties)]
struct NoArgs {}

#[derive(McpSchema, Serialize)]
struct Temperature {
    sensor: u8,
    celsius: f32,
    uptime_ms: u64,
}

// `read_history`'s result: an array (wrapped as `{"result":…}` for 2025 hosts).
#[derive(McpSchema, Serialize)]
struct History(heapless::Vec<f32, 16>);

#[derive(McpSchema, Serialize)]
struct Led {
    #[mcp(maximum = 100)]
    brightness: u8,
    previous: u8,
}

#[derive(McpSchema, Serialize)]
struct Info {
    model: &'static str,
    firmware: &'static str,
    uptime_ms: u64,
    led: u8,
}

#[tools]
impl Board {
    /// Temperature of one of the four sensors, in degrees Celsius (sensor 0 by default)
    #[tool(title = "Read temperature", annotations = Annotations::SENSOR)]
    fn read_temperature(&mut self, args: SensorArgs) -> Temperature {
        Temperature {
            sensor: args.sensor,
            celsius: self.temperature(args.sensor, 0),
            uptime_ms: self.uptime_ms(),
        }
    }

    /// The last `count` readings of a sensor, oldest first, one per second
    #[tool(title = "Temperature history", annotations = Annotations::SENSOR)]
    fn read_history(&mut self, args: HistoryArgs) -> History {
        let mut readings = History(heapless::Vec::new());
        let count = u64::from(args.count.min(16));
        for i in 0..count {
            // At most 16 pushes into a capacity of 16: never refused.
            let _ = readings
                .0
                .push(self.temperature(args.sensor, count - 1 - i));
        }
        readings
    }

    /// Sets the status LED's brightness in percent and returns the new state
    #[tool(title = "Set LED brightness", annotations = Annotations::SETTER)]
    fn set_led(&mut self, args: LedArgs) -> Led {
        let previous = std::mem::replace(&mut self.led, args.brightness);
        eprintln!("host-sensors: LED {previous}% -> {}%", self.led);
        Led {
            brightness: self.led,
            previous,
        }
    }

    /// Model, firmware version and uptime of the device
    #[tool(title = "Device information", annotations = Annotations::SENSOR)]
    fn device_info(&mut self, _args: NoArgs) -> Info {
        Info {
            model: "host-sensors (simulated)",
            firmware: env!("CARGO_PKG_VERSION"),
            uptime_ms: self.uptime_ms(),
            led: self.led,
        }
    }
}

const INFO: ServerInfo = ServerInfo::new("host-sensors", env!("CARGO_PKG_VERSION"))
    .title("Simulated sensor board")
    .description("The embedded-mcp engine on a PC, with simulated sensors")
    .instructions(
        "A sensor board: read_temperature and read_history read sensors 0-3, set_led sets \
         the status LED (0-100 %), device_info reports the firmware.",
    );

/// Input line capacity (LF included) and output buffer size: what a small MCU would give.
const LINE: usize = 2048;
const OUT: usize = 4096;
// Every response fits the output buffer: checked while compiling.
const _: () = assert!(OUT >= output_len::<Board, { Board::TOOL_COUNT }>(&INFO, &Config::DEFAULT));

fn main() -> std::process::ExitCode {
    let board = Board {
        started: Instant::now(),
        led: 0,
    };
    let mut server = match Server::from_tools(INFO, board) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("host-sensors: bad tool definition: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let mut reader = LineReader::<_, LINE>::new(Stdin(std::io::stdin()));
    let mut writer = Stdout(std::io::stdout());
    let mut out = vec![0u8; OUT];
    eprintln!("host-sensors: serving MCP on stdin/stdout");
    let result = server.serve(&mut reader, &mut writer, &mut out);
    eprintln!("host-sensors: stopped; {:?}", server.stats());
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("host-sensors: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
