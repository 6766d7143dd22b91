//! One `tools/call` of the QEMU firmware's `read_temperature` tool, phase by phase, for counting
//! instructions under valgrind (`benches/instructions.sh`).
//!
//! `call_phases PHASE ITERATIONS ERA` runs the set-up (schemas compiled, server built, one
//! warm-up call), then PHASE `ITERATIONS` times. Instructions per call are the difference
//! between a run of N iterations and a run of 0, divided by N (no toggles or client requests
//! needed, so inlining cannot blur the phases). ERA is `2026` (a 2026-07-28 request with its
//! `_meta`) or `legacy` (after `initialize`).
//!
//! The phases call the engine's own public pieces in the order `Server::handle_line` does:
//!
//! - `parse`: strict JSON check of the line which finds the members read in the same pass
//!   (`protocol::Envelope::parse`, depth 16), JSON-RPC classification, the `_meta` version
//!   check, and the tool's name looked up;
//! - `validate_input`: the compiled `inputSchema` on the arguments (`Program::validate`);
//! - `handler`: the tool's work: its argument read as an exact integer, the simulated sensor
//!   (the firmware's algorithm: sine table, xorshift noise, hundredths to `f32`);
//! - `encode`: the response envelope and the result (`protocol::write_result_start`,
//!   `result::encode_structured`: `structuredContent` and the same JSON escaped in a text block);
//! - `validate_output`: `structuredContent` checked by the compiled `outputSchema` (the engine
//!   does not parse what its serializer just wrote again: it is JSON by construction);
//! - `total`: the whole line through `Server::handle_line` with the same tool and handler (the
//!   phases plus dispatch, bookkeeping and copying).
//!
//! The schemas are `read_temperature`'s as the firmware wrote them by hand before the derive
//! (the phases measure the engine's pieces, which take any compiled program).

use std::hint::black_box;

use embedded_mcp::json::{Limits, SliceSink, Value};
use embedded_mcp::protocol::{write_result_start, Envelope, Message, RequestId};
use embedded_mcp::result::{encode_structured, Era};
use embedded_mcp::schema::{compile, Program, Storage};
use embedded_mcp::server::{
    Annotations, Call, Config, Done, Handler, Output, SchemaStorage, Server, ServerInfo, Tool,
    ToolError,
};
use serde::Serialize;

const INPUT: &str = r#"{"type":"object","properties":{"sensor":{"type":"integer","minimum":0,"maximum":1,"description":"0: board sensor (default), 1: ambient sensor"}},"additionalProperties":false}"#;
const OUTPUT: &str = r#"{"type":"object","properties":{"value":{"type":"number","minimum":-40,"maximum":125},"unit":{"const":"°C"},"sensorId":{"enum":["tmp-board","tmp-ambient"]},"sample":{"type":"integer","minimum":1}},"required":["value","unit","sensorId","sample"],"additionalProperties":false}"#;

const REQUEST_2026: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"read_temperature","arguments":{"sensor":1}}}"#;
const REQUEST_LEGACY: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_temperature","arguments":{"sensor":1}}}"#;
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"phases","version":"1"}}}"#;

static TOOLS: [Tool; 1] = [Tool::new("read_temperature", INPUT)
    .title("Read temperature")
    .description("Reads one temperature sensor (simulated) in degrees Celsius; every read advances the sample counter.")
    .output_schema(OUTPUT)
    .annotations(Annotations::SENSOR)];

/// `read_temperature`'s result, as the firmware's.
#[derive(Serialize)]
struct Temperature {
    value: f32,
    unit: &'static str,
    #[serde(rename = "sensorId")]
    sensor_id: &'static str,
    sample: u32,
}

/// A 32-step sine in thousandths.
const SINE: [i32; 32] = [
    0, 195, 383, 556, 707, 831, 924, 981, 1000, 981, 924, 831, 707, 556, 383, 195, 0, -195, -383,
    -556, -707, -831, -924, -981, -1000, -981, -924, -831, -707, -556, -383, -195,
];

/// The simulated sensors (the firmware's algorithm).
struct Sensors {
    rng: u32,
    samples: [u32; 2],
}

impl Sensors {
    fn temperature(&mut self, sensor: usize) -> Temperature {
        let sensor = sensor.min(1);
        let (base, amplitude) = [(3650, 150), (2100, 300)][sensor];
        let counter = &mut self.samples[sensor];
        *counter = counter.wrapping_add(1).max(1);
        let sample = *counter;
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        let noise = (x % 25) as i32 - 12;
        let hundredths = base + amplitude * SINE[(sample % 32) as usize] / 1000 + noise;
        Temperature {
            value: hundredths as f32 / 100.0,
            unit: "°C",
            sensor_id: ["tmp-board", "tmp-ambient"][sensor],
            sample,
        }
    }
}

/// The tool's own work: read the argument, take a sample.
#[inline(never)]
fn handler_work(sensors: &mut Sensors, arguments: Value<'_>) -> Temperature {
    let sensor = arguments
        .get("sensor")
        .and_then(|v| v.as_number())
        .and_then(|n| n.as_u64())
        .unwrap_or(0);
    sensors.temperature(sensor as usize)
}

impl Handler for Sensors {
    type Error = ToolError;

    fn call(&mut self, call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
        let reading = handler_work(self, call.arguments());
        Ok(out.structured(&reading))
    }
}

/// What the engine reads of a request before running a tool.
struct Parsed<'a> {
    id: RequestId<'a>,
    arguments: Value<'a>,
}

#[inline(never)]
fn parse(line: &[u8]) -> Option<Parsed<'_>> {
    let envelope = Envelope::parse(line, Limits { max_depth: 16 }).ok()?;
    let Ok(Message::Request { id, method, .. }) = envelope.classify() else {
        return None;
    };
    if !method.eq_str("tools/call") {
        return None;
    }
    envelope.declared_version().ok()?;
    let name = envelope.name?.as_str()?;
    TOOLS.iter().position(|t| name.eq_str(t.name))?;
    Some(Parsed {
        id,
        arguments: envelope.arguments?,
    })
}

#[inline(never)]
fn encode(out: &mut [u8], id: RequestId<'_>, era: Era, reading: &Temperature) -> Option<usize> {
    let mut sink = SliceSink::new(&mut *out);
    write_result_start(&mut sink, id).ok()?;
    let head = sink.finish().ok()?;
    let encoded = encode_structured(out.get_mut(head..)?, era, reading).ok()?;
    Some(head + encoded.len)
}

/// The engine checks the bytes its serializer just wrote against the output schema without
/// parsing them again (they are JSON by construction), so this phase is the schema check alone
/// on the value located once before the loop.
#[inline(never)]
fn validate_output(structured: Value<'_>, program: &Program<'_>) -> bool {
    program.validate(structured).is_ok()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let phase = args.get(1).map_or("total", String::as_str);
    let iterations: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(1);
    let legacy = args.get(3).is_some_and(|e| e == "legacy");
    let (line, era) = if legacy {
        (REQUEST_LEGACY.as_bytes(), Era::Legacy)
    } else {
        (REQUEST_2026.as_bytes(), Era::Stateless)
    };

    let mut input_storage = Storage::<4, 8, 64>::new();
    let mut output_storage = Storage::<8, 24, 96>::new();
    let input = compile(INPUT.as_bytes(), &mut input_storage).expect("input schema compiles");
    let output = compile(OUTPUT.as_bytes(), &mut output_storage).expect("output schema compiles");
    let mut schemas = SchemaStorage::<1, 8, 24, 96>::new();
    let config = Config {
        max_depth: 16,
        ..Config::DEFAULT
    };
    let mut server = Server::with_config(
        ServerInfo::new("qemu-sensors", "0.1.0"),
        &TOOLS,
        &mut schemas,
        Sensors {
            rng: 0x1234_5678,
            samples: [0; 2],
        },
        config,
    )
    .expect("valid tool");
    let mut out = [0u8; 1200];
    if legacy {
        server.handle_line(INITIALIZE.as_bytes(), &mut out);
    }
    // Warm-up, and the phases' inputs.
    let n = server.handle_line(line, &mut out).expect("a response");
    let response = std::str::from_utf8(&out[..n]).expect("UTF-8");
    assert!(
        response.contains("structuredContent") && !response.contains("isError"),
        "{response}"
    );
    let parsed = parse(line).expect("parses");
    let mut sensors = Sensors {
        rng: 0x1234_5678,
        samples: [0; 2],
    };
    let reading = handler_work(&mut sensors, parsed.arguments);
    let mut body = [0u8; 1200];
    let mut sink = SliceSink::new(&mut body);
    write_result_start(&mut sink, parsed.id).expect("fits");
    let head = sink.finish().expect("fits");
    let encoded = encode_structured(&mut body[head..], era, &reading).expect("fits");
    let structured = encoded.structured.expect("structured");
    let structured = head + structured.start..head + structured.end;
    let structured = Value::parse(&body[structured]).expect("JSON");
    assert!(validate_output(structured, &output));
    assert!(input.validate(parsed.arguments).is_ok());

    let mut sum = 0usize;
    for _ in 0..iterations {
        sum += match phase {
            "parse" => usize::from(parse(black_box(line)).is_some()),
            "validate_input" => usize::from(input.validate(black_box(parsed.arguments)).is_ok()),
            "handler" => handler_work(&mut sensors, black_box(parsed.arguments)).sample as usize,
            "encode" => encode(&mut out, parsed.id, era, black_box(&reading)).unwrap_or(0),
            "validate_output" => usize::from(validate_output(black_box(structured), &output)),
            "total" => server.handle_line(black_box(line), &mut out).unwrap_or(0),
            other => panic!("unknown phase {other}"),
        };
    }
    black_box(sum);
}
