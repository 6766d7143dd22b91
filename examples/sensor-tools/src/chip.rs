//! The tools of the real-board examples (`examples/rp2040-usb`, `examples/esp32c3`): the chip's
//! own temperature sensor and one LED, defined once. Each firmware supplies a [`Chip`] driver.
//!
//! `read_temperature` takes no arguments and returns the die temperature; `set_led` switches the
//! LED and returns the new and the previous state. Both input schemas are closed
//! (`additionalProperties: false`) and are compiled at start-up ([`compile_all`]) so the engine
//! checks every call's arguments and every result.

use embedded_mcp::schema::{compile, CompileError, Storage};
use embedded_mcp::server::{
    Annotations, Call, Done, Handler, Output, SchemaRole, Tool, ToolError, ToolSchemas,
};
use serde::Serialize;

/// What a board supplies: its temperature sensor and its LED.
pub trait Chip {
    /// The sensor's identifier in results (`sensorId`).
    const SENSOR_ID: &'static str;

    /// Reads the die temperature, in hundredths of a degree Celsius; `Err` says what failed
    /// (it becomes the `isError` result's text).
    fn temperature_centi(&mut self) -> Result<i32, &'static str>;

    /// Switches the LED on or off; returns whether it was on before.
    fn set_led(&mut self, on: bool) -> bool;
}

/// Index of [`READ_TEMPERATURE`] in [`TOOLS`].
pub const TEMPERATURE: usize = 0;
/// Index of [`SET_LED`] in [`TOOLS`].
pub const LED: usize = 1;
/// Number of tools.
pub const TOOL_COUNT: usize = 2;

/// `inputSchema` of `read_temperature`: no arguments.
pub const NO_ARGUMENTS: &str = r#"{"type":"object","properties":{},"additionalProperties":false}"#;
/// `outputSchema` of `read_temperature`.
pub const TEMPERATURE_OUTPUT: &str = r#"{"type":"object","properties":{"value":{"type":"number","minimum":-40,"maximum":125},"unit":{"const":"°C"},"sensorId":{"type":"string"}},"required":["value","unit","sensorId"],"additionalProperties":false}"#;
/// `inputSchema` of `set_led`.
pub const LED_INPUT: &str = r#"{"type":"object","properties":{"on":{"type":"boolean","description":"true: LED on"}},"required":["on"],"additionalProperties":false}"#;
/// `outputSchema` of `set_led`.
pub const LED_OUTPUT: &str = r#"{"type":"object","properties":{"on":{"type":"boolean"},"previous":{"type":"boolean"}},"required":["on","previous"],"additionalProperties":false}"#;

/// `read_temperature`: the chip's temperature sensor (read-only, closed world).
pub const READ_TEMPERATURE: Tool = Tool::new("read_temperature", NO_ARGUMENTS)
    .title("Read chip temperature")
    .description("Reads the microcontroller's on-chip temperature sensor, in degrees Celsius (a few degrees of error are normal).")
    .output_schema(TEMPERATURE_OUTPUT)
    .annotations(Annotations::SENSOR);

/// `set_led`: switches the board's LED (not read-only, not destructive, idempotent).
pub const SET_LED: Tool = Tool::new("set_led", LED_INPUT)
    .title("Switch the LED")
    .description("Switches the board's LED on or off; returns the new and the previous state.")
    .output_schema(LED_OUTPUT)
    .annotations(Annotations::SETTER);

const ALL: [Tool; TOOL_COUNT] = [READ_TEMPERATURE, SET_LED];

/// All tools, in `tools/list` order.
pub static TOOLS: [Tool; TOOL_COUNT] = ALL;

const _: () = {
    let mut i = 0;
    while i < TOOL_COUNT {
        assert!(ALL[i].check_static().is_ok());
        i += 1;
    }
};

/// Room for the compiled schemas: for each, the least it compiles into (text capacity includes
/// room the compiler needs before it merges equal strings; the tests below fail if one shrinks).
pub struct SchemaStorage {
    no_arguments: Storage<2, 3, 0>,
    temperature_out: Storage<5, 14, 28>,
    led_in: Storage<3, 6, 4>,
    led_out: Storage<4, 9, 18>,
}

impl SchemaStorage {
    /// Empty storage.
    pub const fn new() -> Self {
        Self {
            no_arguments: Storage::new(),
            temperature_out: Storage::new(),
            led_in: Storage::new(),
            led_out: Storage::new(),
        }
    }
}

impl Default for SchemaStorage {
    fn default() -> Self {
        Self::new()
    }
}

/// A schema that did not compile: which one, and the compiler's error.
#[derive(Debug, Clone, Copy)]
pub struct SchemaError {
    /// The tool's name.
    pub tool: &'static str,
    /// Which of its schemas.
    pub role: SchemaRole,
    /// What the compiler said.
    pub error: CompileError,
}

impl core::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} of tool {}: {}", self.role, self.tool, self.error)
    }
}

/// Compiles both tools' schemas into `storage`, in [`TOOLS`] order, for
/// `Server::with_programs`.
pub fn compile_all(
    storage: &mut SchemaStorage,
) -> Result<[ToolSchemas<'_>; TOOL_COUNT], SchemaError> {
    fn fail(tool: &'static str, role: SchemaRole) -> impl Fn(CompileError) -> SchemaError {
        move |error| SchemaError { tool, role, error }
    }
    let (t, l) = (READ_TEMPERATURE.name, SET_LED.name);
    let (input, output) = (SchemaRole::Input, SchemaRole::Output);
    Ok([
        ToolSchemas {
            input: compile(NO_ARGUMENTS.as_bytes(), &mut storage.no_arguments)
                .map_err(fail(t, input))?,
            output: Some(
                compile(TEMPERATURE_OUTPUT.as_bytes(), &mut storage.temperature_out)
                    .map_err(fail(t, output))?,
            ),
        },
        ToolSchemas {
            input: compile(LED_INPUT.as_bytes(), &mut storage.led_in).map_err(fail(l, input))?,
            output: Some(
                compile(LED_OUTPUT.as_bytes(), &mut storage.led_out).map_err(fail(l, output))?,
            ),
        },
    ])
}

/// `read_temperature`'s result.
#[derive(Debug, Serialize)]
pub struct Temperature {
    /// Degrees Celsius, to a hundredth.
    pub value: f32,
    /// Always `"°C"`.
    pub unit: &'static str,
    /// Which sensor ([`Chip::SENSOR_ID`]).
    #[serde(rename = "sensorId")]
    pub sensor_id: &'static str,
}

/// `set_led`'s result.
#[derive(Debug, Serialize)]
pub struct LedState {
    /// The new state.
    pub on: bool,
    /// The state before the call.
    pub previous: bool,
}

/// The handler of [`TOOLS`] on a [`Chip`].
pub struct ChipTools<C> {
    chip: C,
}

impl<C> ChipTools<C> {
    /// The tools on `chip`.
    pub const fn new(chip: C) -> Self {
        Self { chip }
    }
}

impl<C: Chip> Handler for ChipTools<C> {
    type Error = ToolError;

    fn call(&mut self, call: &Call<'_>, out: Output<'_>) -> Result<Done, ToolError> {
        match call.index() {
            TEMPERATURE => {
                let centi = self.chip.temperature_centi().map_err(ToolError::Message)?;
                Ok(out.structured(&Temperature {
                    value: centi as f32 / 100.0,
                    unit: "°C",
                    sensor_id: C::SENSOR_ID,
                }))
            }
            LED => {
                // The inputSchema requires a boolean `on`; the engine checked it already.
                let on = call
                    .arguments()
                    .get("on")
                    .and_then(|v| v.as_bool())
                    .ok_or(ToolError::Message("`on` must be true or false"))?;
                let previous = self.chip.set_led(on);
                Ok(out.structured(&LedState { on, previous }))
            }
            _ => Err(ToolError::NotImplemented),
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::String;

    use embedded_mcp::server::{CacheScope, Config, Server, ServerInfo};
    use embedded_mcp::transport::LineReader;

    use super::*;

    /// A chip at 27.50 °C (then one hundredth warmer per read) with its LED off.
    struct FakeChip {
        centi: i32,
        led: bool,
    }

    impl Chip for FakeChip {
        const SENSOR_ID: &'static str = "fake-die";

        fn temperature_centi(&mut self) -> Result<i32, &'static str> {
            self.centi += 1;
            Ok(self.centi - 1)
        }

        fn set_led(&mut self, on: bool) -> bool {
            core::mem::replace(&mut self.led, on)
        }
    }

    /// Serves `requests` (one per line) and returns the response lines.
    fn serve(requests: &str) -> String {
        let mut storage = SchemaStorage::new();
        let programs = compile_all(&mut storage).expect("the schemas fit their storage");
        let chip = ChipTools::new(FakeChip {
            centi: 2750,
            led: false,
        });
        let config = Config {
            page_bytes: 1200,
            ttl_ms: 300_000,
            cache_scope: CacheScope::Public,
            max_depth: 16,
            ..Config::DEFAULT
        };
        let info = ServerInfo::new("chip", "1");
        let mut server =
            Server::with_programs(info, &TOOLS, programs, chip, config).expect("definitions");
        let mut reader: LineReader<&[u8], 512> = LineReader::new(requests.as_bytes());
        let mut written = std::vec::Vec::new();
        let mut out = [0u8; 1200];
        server
            .serve(&mut reader, &mut written, &mut out)
            .expect("serve");
        String::from_utf8(written).expect("UTF-8")
    }

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn call(id: u32, tool: &str, arguments: &str) -> String {
        std::format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{META},"name":"{tool}","arguments":{arguments}}}}}"#
        ) + "\n"
    }

    #[test]
    fn temperature_and_led_answer_byte_for_byte() {
        let requests = call(1, "read_temperature", "{}")
            + &call(2, "read_temperature", "{}")
            + &call(3, "set_led", r#"{"on":true}"#)
            + &call(4, "set_led", r#"{"on":true}"#);
        let tail = r#","resultType":"complete"}}"#;
        let expected = [
            std::format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{{"structuredContent":{{"value":27.5,"unit":"°C","sensorId":"fake-die"}},"content":[{{"type":"text","text":"{{\"value\":27.5,\"unit\":\"°C\",\"sensorId\":\"fake-die\"}}"}}]{tail}"#
            ),
            std::format!(
                r#"{{"jsonrpc":"2.0","id":2,"result":{{"structuredContent":{{"value":27.51,"unit":"°C","sensorId":"fake-die"}},"content":[{{"type":"text","text":"{{\"value\":27.51,\"unit\":\"°C\",\"sensorId\":\"fake-die\"}}"}}]{tail}"#
            ),
            std::format!(
                r#"{{"jsonrpc":"2.0","id":3,"result":{{"structuredContent":{{"on":true,"previous":false}},"content":[{{"type":"text","text":"{{\"on\":true,\"previous\":false}}"}}]{tail}"#
            ),
            std::format!(
                r#"{{"jsonrpc":"2.0","id":4,"result":{{"structuredContent":{{"on":true,"previous":true}},"content":[{{"type":"text","text":"{{\"on\":true,\"previous\":true}}"}}]{tail}"#
            ),
        ];
        let answers = serve(&requests);
        let lines: std::vec::Vec<&str> = answers.lines().collect();
        assert_eq!(lines, expected);
    }

    #[test]
    fn bad_arguments_are_refused_before_the_chip_is_touched() {
        let requests = call(1, "set_led", r#"{"on":1}"#)
            + &call(2, "set_led", "{}")
            + &call(3, "read_temperature", r#"{"sensor":0}"#)
            + &call(4, "set_led", r#"{"on":false}"#);
        let answers = serve(&requests);
        let lines: std::vec::Vec<&str> = answers.lines().collect();
        assert_eq!(lines.len(), 4, "{answers}");
        for (line, message) in lines.iter().zip([
            "Invalid arguments for tool set_led: /on: 1 is not of type boolean",
            "Invalid arguments for tool set_led: ",
            "Invalid arguments for tool read_temperature: ",
        ]) {
            assert!(line.contains(r#""isError":true"#), "{line}");
            assert!(line.contains(message), "{line}");
        }
        // The refused calls never reached the LED: it was still off.
        assert!(
            lines[3].contains(r#""structuredContent":{"on":false,"previous":false}"#),
            "{}",
            lines[3]
        );
    }
}
