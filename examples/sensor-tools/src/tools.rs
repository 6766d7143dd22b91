//! The tools this firmware serves: static definitions (names, titles, descriptions, schemas,
//! annotations), all in flash. [`crate::device`] implements them.
//!
//! Every `inputSchema` closes its object with `additionalProperties: false`, so an unexpected
//! argument is an error rather than silently ignored. The schemas are compiled at start-up by the
//! core's schema compiler ([`crate::checks`]) and enforced by the engine on every call.

use embedded_mcp::server::{Annotations, ServerInfo, Tool};

/// Who this server is (sent by `initialize` and `server/discover`).
pub const SERVER_INFO: ServerInfo = ServerInfo::new("qemu-sensors", env!("CARGO_PKG_VERSION"))
    .title("QEMU sensor board")
    .description("Simulated sensors and an RGB LED on an LM3S6965 (Cortex-M3) under QEMU")
    .instructions(
        "Sensor values are simulated: deterministic sequences that change on every call.",
    );

/// Index of [`READ_TEMPERATURE`] in [`TOOLS`].
pub const TEMPERATURE: usize = 0;
/// Index of [`READ_ACCELERATION`] in [`TOOLS`].
pub const ACCELERATION: usize = 1;
/// Index of [`SET_LED`] in [`TOOLS`].
pub const LED: usize = 2;
/// Index of [`DEVICE_INFO`] in [`TOOLS`].
pub const INFO: usize = 3;

/// Index of [`SAMPLE_TEMPERATURE`] in [`TOOLS`].
pub const SAMPLE: usize = 4;

/// Number of tools.
pub const TOOL_COUNT: usize = 5;

/// `inputSchema` of `read_temperature`.
pub const TEMPERATURE_INPUT: &str = r#"{"type":"object","properties":{"sensor":{"type":"integer","minimum":0,"maximum":1,"description":"0: board sensor (default), 1: ambient sensor"}},"additionalProperties":false}"#;
/// `outputSchema` of `read_temperature`.
pub const TEMPERATURE_OUTPUT: &str = r#"{"type":"object","properties":{"value":{"type":"number","minimum":-40,"maximum":125},"unit":{"const":"°C"},"sensorId":{"enum":["tmp-board","tmp-ambient"]},"sample":{"type":"integer","minimum":1}},"required":["value","unit","sensorId","sample"],"additionalProperties":false}"#;

/// `inputSchema` of the tools without arguments (`read_acceleration`, `device_info`).
pub const NO_ARGUMENTS: &str = r#"{"type":"object","properties":{},"additionalProperties":false}"#;
/// `outputSchema` of `read_acceleration`: an array (any-JSON `structuredContent` in
/// 2026-07-28, wrapped as `{"result": [...]}` for legacy peers by the engine).
pub const ACCELERATION_OUTPUT: &str = r#"{"type":"array","items":{"type":"number","minimum":-40,"maximum":40},"minItems":3,"maxItems":3}"#;

/// `inputSchema` of `set_led`.
pub const LED_INPUT: &str = r#"{"type":"object","properties":{"led":{"enum":["red","green","blue"]},"brightness":{"type":"integer","minimum":0,"maximum":100,"description":"Percent"}},"required":["led","brightness"],"additionalProperties":false}"#;
/// `outputSchema` of `set_led`.
pub const LED_OUTPUT: &str = r#"{"type":"object","properties":{"led":{"enum":["red","green","blue"]},"brightness":{"type":"integer","minimum":0,"maximum":100},"previous":{"type":"integer","minimum":0,"maximum":100}},"required":["led","brightness","previous"],"additionalProperties":false}"#;

/// `outputSchema` of `device_info`.
pub const INFO_OUTPUT: &str = r#"{"type":"object","properties":{"firmware":{"type":"string"},"version":{"type":"string"},"board":{"type":"string"},"uptimeMs":{"type":"integer","minimum":0},"calls":{"type":"integer","minimum":1},"rxFreeBytes":{"type":"integer","minimum":0},"inputBufferBytes":{"type":"integer","minimum":1},"outputBufferBytes":{"type":"integer","minimum":1},"stackPeakBytes":{"type":"integer","minimum":0},"stackSizeBytes":{"type":"integer","minimum":1}},"required":["firmware","version","board","uptimeMs","calls","rxFreeBytes","inputBufferBytes","outputBufferBytes","stackPeakBytes","stackSizeBytes"],"additionalProperties":false}"#;

/// `inputSchema` of `sample_temperature`: every argument has a `default`, so a call without
/// arguments takes 5 samples 100 ms apart.
pub const SAMPLE_INPUT: &str = r#"{"type":"object","properties":{"sensor":{"type":"integer","minimum":0,"maximum":1,"default":0},"samples":{"type":"integer","minimum":1,"maximum":20,"default":5},"intervalMs":{"type":"integer","minimum":0,"maximum":1000,"default":100}},"additionalProperties":false}"#;
/// `outputSchema` of `sample_temperature`.
pub const SAMPLE_OUTPUT: &str = r#"{"type":"object","properties":{"average":{"type":"number"},"min":{"type":"number"},"max":{"type":"number"},"samples":{"type":"integer","minimum":1},"sensorId":{"enum":["tmp-board","tmp-ambient"]}},"required":["average","min","max","samples","sensorId"],"additionalProperties":false}"#;

/// `read_temperature`: a sensor read (read-only, closed world).
pub const READ_TEMPERATURE: Tool = Tool::new("read_temperature", TEMPERATURE_INPUT)
    .title("Read temperature")
    .description("Reads one temperature sensor (simulated) in degrees Celsius; every read advances the sample counter.")
    .output_schema(TEMPERATURE_OUTPUT)
    .annotations(Annotations::SENSOR);

/// `read_acceleration`: a three-axis read returning an array.
pub const READ_ACCELERATION: Tool = Tool::new("read_acceleration", NO_ARGUMENTS)
    .title("Read acceleration")
    .description("Reads the 3-axis accelerometer (simulated): [x, y, z] in m/s².")
    .output_schema(ACCELERATION_OUTPUT)
    .annotations(Annotations::SENSOR);

/// `set_led`: an actuator with bounded inputs (not read-only, not destructive, idempotent).
pub const SET_LED: Tool = Tool::new("set_led", LED_INPUT)
    .title("Set LED brightness")
    .description("Sets one channel of the RGB LED to a brightness from 0 to 100 percent; returns the new and the previous level.")
    .output_schema(LED_OUTPUT)
    .annotations(Annotations::SETTER);

/// `device_info`: firmware version, uptime, buffers and stack.
pub const DEVICE_INFO: Tool = Tool::new("device_info", NO_ARGUMENTS)
    .title("Device information")
    .description("Firmware version, uptime, free receive buffer, buffer sizes and peak stack use.")
    .output_schema(INFO_OUTPUT)
    .annotations(Annotations::SENSOR);

/// `sample_temperature`: an async tool that averages samples taken at an interval, reporting
/// progress after each and logging (`info` at the start, `warning` for a reading out of its
/// sensor's range).
pub const SAMPLE_TEMPERATURE: Tool = Tool::new("sample_temperature", SAMPLE_INPUT)
    .title("Sample temperature")
    .description("Averages several readings of one temperature sensor taken at an interval; reports progress after each reading and logs readings out of the sensor's normal range.")
    .output_schema(SAMPLE_OUTPUT)
    .annotations(Annotations::SENSOR);

const ALL: [Tool; TOOL_COUNT] = [
    READ_TEMPERATURE,
    READ_ACCELERATION,
    SET_LED,
    DEVICE_INFO,
    SAMPLE_TEMPERATURE,
];

/// All tools, in `tools/list` order; the indices above point into it.
pub static TOOLS: [Tool; TOOL_COUNT] = ALL;

// The name and icon rules, checked at compile time (the server checks them again with the
// schemas at start-up).
const _: () = {
    let mut i = 0;
    while i < TOOL_COUNT {
        assert!(ALL[i].check_static().is_ok());
        i += 1;
    }
};
