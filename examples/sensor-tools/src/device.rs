//! The sensor tools: the methods of [`Device`] under `#[embedded_mcp::tools]`, each taking one
//! argument type and returning one result type, whose derived schemas (compiled into static
//! programs while the crate builds) are the tool's `inputSchema` and `outputSchema`. The board
//! ([`Board`]) supplies what `device_info` reports and the timer.
//!
//! The engine checks the arguments against the input program before a method runs (a call that
//! fails never gets here) and the result against the output program before it is sent (a result
//! that fails is replaced by an `isError` result). Results go out as `structuredContent` plus the
//! same JSON in a `text` block. `sample_temperature` awaits its sampling interval, reports
//! progress and logs; `set_led` logs each change. `set_relay` switches a relay on only after a
//! person approved that very call (`#[tool(confirm = …)]`: MCP 2026-07-28 `input_required`),
//! and off without asking.

use core::marker::PhantomData;

use embedded_mcp::json::{FixedPoint, Piece};
use embedded_mcp::protocol::LogLevel;
use embedded_mcp::server::approval::{Approvals, Ask};
use embedded_mcp::server::{Annotations, Context};
use embedded_mcp::{tools, McpSchema};
use serde::{Deserialize, Serialize};

use crate::board::Board;
use crate::sensors::{Acceleration, Led, LedLevel, SensorId, Sensors, Temperature};

/// Number of tools, for code generic over the board (`SensorServer<B>`), where the count
/// `#[tools]` writes, `Device::<B>::TOOL_COUNT`, cannot be a const argument. The compiler holds
/// the two together: `Device<B>` is a `Toolbox<N>` for its own count only.
pub const TOOL_COUNT: usize = 6;

/// Number of relays `set_relay` switches.
pub const RELAY_COUNT: usize = 2;

/// Normal range of each temperature sensor, hundredths of a degree (35.0 to 37.5 °C and 19.0 to
/// 23.0 °C): `sample_temperature` logs a `warning` for a reading outside it.
const NORMAL_RANGE: [(i32, i32); 2] = [(3500, 3750), (1900, 2300)];

// The argument types: doc comments on fields become the `description`s of `tools/list`; notes for
// readers are plain comments. Every `inputSchema` is closed (`additionalProperties: false`, the
// derive's default), so an unexpected argument is an error rather than silently ignored.

// `read_temperature`'s arguments.
#[derive(McpSchema, Deserialize)]
struct ReadArgs {
    /// 0: board sensor (default), 1: ambient sensor
    #[serde(default)]
    #[mcp(maximum = 1)]
    sensor: u8,
}

// `set_led`'s arguments.
#[derive(McpSchema, Deserialize)]
struct LedArgs {
    led: Led,
    /// Percent
    #[mcp(maximum = 100)]
    brightness: u8,
}

// `set_relay`'s arguments.
#[derive(McpSchema, Deserialize)]
struct RelayArgs {
    /// Relay 0 or 1
    #[mcp(maximum = 1)]
    relay: u8,
    /// true: switch on (a person approves first), false: switch off
    on: bool,
}

// `set_relay`'s result: the relay's new and previous state.
#[derive(McpSchema, Serialize)]
#[serde(rename_all = "camelCase")]
struct RelayState {
    #[mcp(maximum = 1)]
    relay: u8,
    on: bool,
    was_on: bool,
}

// `sample_temperature`'s arguments: each has a default (the `default` keywords below say the
// same as `Default`; a test checks it), so a call without arguments takes 5 samples 100 ms apart.
#[derive(McpSchema, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase", default)]
struct SampleArgs {
    #[mcp(maximum = 1, default = 0)]
    sensor: u8,
    #[mcp(minimum = 1, maximum = 20, default = 5)]
    samples: u8,
    #[mcp(maximum = 1000, default = 100)]
    interval_ms: u16,
}

impl Default for SampleArgs {
    fn default() -> Self {
        Self {
            sensor: 0,
            samples: 5,
            interval_ms: 100,
        }
    }
}

// `sample_temperature`'s start message (logged at `info`). The log messages derive `McpSchema`
// for its writer (`ToJson`, logged with `log_json`: much less flash than serde's code per type).
#[derive(McpSchema, Serialize)]
#[serde(rename_all = "camelCase")]
struct Sampling {
    sensor_id: SensorId,
    samples: u8,
    interval_ms: u16,
}

// A reading out of its normal range (logged at `warning`).
#[derive(McpSchema, Serialize)]
struct OutOfRange {
    sample: u8,
    value: FixedPoint<2>,
    low: FixedPoint<2>,
    high: FixedPoint<2>,
}

// `sample_temperature`'s result.
#[derive(McpSchema, Serialize)]
#[serde(rename_all = "camelCase")]
struct Sampled {
    average: FixedPoint<2>,
    min: FixedPoint<2>,
    max: FixedPoint<2>,
    #[mcp(minimum = 1)]
    samples: u8,
    sensor_id: SensorId,
}

// `device_info`'s result.
#[derive(McpSchema, Serialize, Debug)]
#[serde(rename_all = "camelCase")]
struct DeviceInfo {
    firmware: &'static str,
    version: &'static str,
    board: &'static str,
    uptime_ms: u64,
    #[mcp(minimum = 1)]
    calls: u32,
    rx_free_bytes: u32,
    #[mcp(minimum = 1)]
    input_buffer_bytes: u32,
    #[mcp(minimum = 1)]
    output_buffer_bytes: u32,
    stack_peak_bytes: u32,
    #[mcp(minimum = 1)]
    stack_size_bytes: u32,
    // Each relay's state, relay 0 first (the derive takes a literal length: RELAY_COUNT).
    relays: [bool; 2],
}

/// The board as the engine sees it: simulated hardware and a call counter.
pub struct Device<B> {
    sensors: Sensors,
    relays: [bool; RELAY_COUNT],
    approvals: Approvals,
    calls: u32,
    input_buffer_bytes: u32,
    output_buffer_bytes: u32,
    board: PhantomData<B>,
}

impl<B: Board> Device<B> {
    /// A device at power-on, relays off; the buffer sizes are reported by `device_info`.
    pub fn new(input_buffer_bytes: u32, output_buffer_bytes: u32) -> Self {
        Self {
            sensors: Sensors::new(),
            relays: [false; RELAY_COUNT],
            approvals: Approvals::new(B::sealing()),
            calls: 0,
            input_buffer_bytes,
            output_buffer_bytes,
            board: PhantomData,
        }
    }

    /// `set_relay`'s gate: switching a relay on needs a person's yes, switching it off does
    /// not.
    fn ask_relay(&mut self, args: &RelayArgs) -> Option<Ask<'_, [Piece<'static>; 3]>> {
        args.on.then(|| Ask {
            approvals: &mut self.approvals,
            message: [
                Piece::Text("Switch relay "),
                Piece::Dec(u64::from(args.relay)),
                Piece::Text(" on?"),
            ],
        })
    }
}

impl<B> Device<B> {
    /// Counts a call that reached a tool (`device_info.calls`).
    fn count(&mut self) {
        self.calls = self.calls.wrapping_add(1);
    }
}

/// A byte count as `device_info` reports it.
fn bytes(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The mean of `samples` readings summing to `sum` (hundredths), rounded half up (exactly: in
/// integers). `samples` is at least 1 (the input schema's minimum); 0 counts as 1.
fn mean(sum: i32, samples: u8) -> i32 {
    let n = i32::from(samples.max(1));
    (2 * sum + n).div_euclid(2 * n)
}

#[tools]
impl<B: Board> Device<B> {
    /// Reads one temperature sensor (simulated) in degrees Celsius; every read advances the
    /// sample counter.
    #[tool(title = "Read temperature", annotations = Annotations::SENSOR)]
    fn read_temperature(&mut self, args: ReadArgs) -> Temperature {
        self.count();
        self.sensors.temperature(SensorId::of(args.sensor))
    }

    /// Reads the 3-axis accelerometer (simulated): [x, y, z] in m/s².
    #[tool(title = "Read acceleration", annotations = Annotations::SENSOR)]
    fn read_acceleration(&mut self) -> Acceleration {
        self.count();
        self.sensors.acceleration()
    }

    /// Sets one channel of the RGB LED to a brightness from 0 to 100 percent; returns the new
    /// and the previous level.
    #[tool(title = "Set LED brightness", annotations = Annotations::SETTER)]
    async fn set_led(&mut self, args: LedArgs, cx: &mut Context<'_>) -> LedLevel {
        self.count();
        let level = self.sensors.set_led(args.led, args.brightness);
        cx.log_json(LogLevel::Info, Some("set_led"), &level).await;
        level
    }

    /// Firmware version, uptime, free receive buffer, buffer sizes and peak stack use.
    #[tool(title = "Device information", annotations = Annotations::SENSOR)]
    fn device_info(&mut self) -> DeviceInfo {
        self.count();
        DeviceInfo {
            firmware: B::FIRMWARE,
            version: B::VERSION,
            board: B::NAME,
            uptime_ms: B::uptime_ms(),
            calls: self.calls,
            rx_free_bytes: bytes(B::rx_free()),
            input_buffer_bytes: self.input_buffer_bytes,
            output_buffer_bytes: self.output_buffer_bytes,
            stack_peak_bytes: bytes(B::stack_peak()),
            stack_size_bytes: bytes(B::stack_size()),
            relays: self.relays,
        }
    }

    /// Averages several readings of one temperature sensor taken at an interval; reports
    /// progress after each reading and logs readings out of the sensor's normal range.
    // `samples` readings `interval_ms` apart, one progress report after each; the engine drops
    // this future if the host cancels the call.
    #[tool(title = "Sample temperature", annotations = Annotations::SENSOR)]
    async fn sample_temperature(&mut self, args: SampleArgs, cx: &mut Context<'_>) -> Sampled {
        self.count();
        let sensor_id = SensorId::of(args.sensor);
        let SampleArgs {
            samples,
            interval_ms,
            ..
        } = args;
        let start = Sampling {
            sensor_id,
            samples,
            interval_ms,
        };
        cx.log_json(LogLevel::Info, Some("sample_temperature"), &start)
            .await;
        // In hundredths (integers: no soft-float arithmetic), sent as `FixedPoint<2>` (no float
        // formatter either).
        let (low, high) = NORMAL_RANGE[sensor_id.index()];
        let (mut sum, mut min, mut max) = (0i32, i32::MAX, i32::MIN);
        for i in 1..=samples {
            if i > 1 {
                B::sleep_ms(u64::from(interval_ms)).await;
            }
            let (value, _) = self.sensors.temperature_hundredths(sensor_id);
            sum += value;
            min = min.min(value);
            max = max.max(value);
            if !(low..=high).contains(&value) {
                let warning = OutOfRange {
                    sample: i,
                    value: FixedPoint(value),
                    low: FixedPoint(low),
                    high: FixedPoint(high),
                };
                cx.log_json(LogLevel::Warning, Some("sample_temperature"), &warning)
                    .await;
            }
            cx.progress(u32::from(i), Some(u32::from(samples)), None)
                .await;
        }
        Sampled {
            average: FixedPoint(mean(sum, samples)),
            min: FixedPoint(min),
            max: FixedPoint(max),
            samples,
            sensor_id,
        }
    }

    /// Switches relay 0 or 1 on or off; returns its new and previous state. Switching on asks
    /// the user's approval first (the call is answered with a form to fill in).
    #[tool(
        title = "Set relay",
        annotations = Annotations::NONE,
        read_only = false,
        destructive,
        confirm = Self::ask_relay
    )]
    fn set_relay(&mut self, args: RelayArgs) -> RelayState {
        self.count();
        // The input schema bounds `relay` to 0..=1; anything else switches nothing.
        let was_on = match self.relays.get_mut(usize::from(args.relay)) {
            Some(relay) => core::mem::replace(relay, args.on),
            None => false,
        };
        RelayState {
            relay: args.relay,
            on: args.on,
            was_on,
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::String;
    use std::vec::Vec;

    use embedded_mcp::json::Value;
    use embedded_mcp::schema::McpSchema;
    use embedded_mcp::server::ServerInfo;

    use super::*;
    use crate::server::{self, SensorServer};
    use crate::test_support::{self, call, TestBoard};

    fn test_server() -> SensorServer<TestBoard> {
        server::server::<TestBoard>(ServerInfo::new("sensors", "1")).expect("server")
    }

    fn lines(text: &str) -> Vec<&str> {
        text.lines().collect()
    }

    #[test]
    fn derived_schemas_byte_for_byte() {
        use embedded_mcp::server::Toolbox;
        let listed: Vec<(&str, &str, Option<&str>)> =
            <Device<TestBoard> as Toolbox<TOOL_COUNT>>::TOOLS
                .iter()
                .map(|t| (t.name, t.input_schema, t.output_schema))
                .collect();
        let none = r#"{"type":"object","properties":{},"additionalProperties":false}"#;
        let sensor_id = r#"{"type":"string","enum":["tmp-board","tmp-ambient"]}"#;
        let byte =
            |min: u8| std::format!(r#"{{"type":"integer","minimum":{min},"maximum":4294967295}}"#);
        let info = std::format!(
            r#"{{"type":"object","properties":{{"firmware":{{"type":"string"}},"version":{{"type":"string"}},"board":{{"type":"string"}},"uptimeMs":{{"type":"integer","minimum":0,"maximum":18446744073709551615}},"calls":{c},"rxFreeBytes":{z},"inputBufferBytes":{c},"outputBufferBytes":{c},"stackPeakBytes":{z},"stackSizeBytes":{c},"relays":{{"type":"array","items":{{"type":"boolean"}},"minItems":2,"maxItems":2}}}},"required":["firmware","version","board","uptimeMs","calls","rxFreeBytes","inputBufferBytes","outputBufferBytes","stackPeakBytes","stackSizeBytes","relays"]}}"#,
            c = byte(1),
            z = byte(0)
        );
        let temperature = std::format!(
            r#"{{"type":"object","properties":{{"value":{{"type":"number","minimum":-40,"maximum":125}},"unit":{{"type":"string","enum":["°C"]}},"sensorId":{sensor_id},"sample":{s}}},"required":["value","unit","sensorId","sample"]}}"#,
            s = byte(1)
        );
        let sampled = std::format!(
            r#"{{"type":"object","properties":{{"average":{{"type":"number"}},"min":{{"type":"number"}},"max":{{"type":"number"}},"samples":{{"type":"integer","minimum":1,"maximum":255}},"sensorId":{sensor_id}}},"required":["average","min","max","samples","sensorId"]}}"#
        );
        let expected: [(&str, &str, &str); TOOL_COUNT] = [
            (
                "read_temperature",
                r#"{"type":"object","properties":{"sensor":{"description":"0: board sensor (default), 1: ambient sensor","type":"integer","minimum":0,"maximum":1,"default":0}},"additionalProperties":false}"#,
                &temperature,
            ),
            (
                "read_acceleration",
                none,
                r#"{"type":"array","items":{"type":"number","minimum":-40,"maximum":40},"minItems":3,"maxItems":3}"#,
            ),
            (
                "set_led",
                r#"{"type":"object","properties":{"led":{"type":"string","enum":["red","green","blue"]},"brightness":{"description":"Percent","type":"integer","minimum":0,"maximum":100}},"required":["led","brightness"],"additionalProperties":false}"#,
                r#"{"type":"object","properties":{"led":{"type":"string","enum":["red","green","blue"]},"brightness":{"type":"integer","minimum":0,"maximum":100},"previous":{"type":"integer","minimum":0,"maximum":100}},"required":["led","brightness","previous"]}"#,
            ),
            ("device_info", none, &info),
            (
                "sample_temperature",
                r#"{"type":"object","properties":{"sensor":{"type":"integer","minimum":0,"maximum":1,"default":0},"samples":{"type":"integer","minimum":1,"maximum":20,"default":5},"intervalMs":{"type":"integer","minimum":0,"maximum":1000,"default":100}},"additionalProperties":false}"#,
                &sampled,
            ),
            (
                "set_relay",
                r#"{"type":"object","properties":{"relay":{"description":"Relay 0 or 1","type":"integer","minimum":0,"maximum":1},"on":{"description":"true: switch on (a person approves first), false: switch off","type":"boolean"}},"required":["relay","on"],"additionalProperties":false}"#,
                r#"{"type":"object","properties":{"relay":{"type":"integer","minimum":0,"maximum":1},"on":{"type":"boolean"},"wasOn":{"type":"boolean"}},"required":["relay","on","wasOn"]}"#,
            ),
        ];
        for ((name, input, output), (e_name, e_input, e_output)) in listed.iter().zip(expected) {
            assert_eq!((*name, *input, *output), (e_name, e_input, Some(e_output)));
        }
        assert_eq!(listed.len(), TOOL_COUNT);
    }

    #[test]
    fn sample_defaults_are_the_schema_defaults() {
        let schema = Value::parse(SampleArgs::INPUT_SCHEMA.as_bytes()).unwrap();
        let default = |name: &str| {
            schema
                .get("properties")
                .and_then(|p| p.get(name))
                .and_then(|p| p.get("default"))
                .and_then(|d| d.as_number())
                .and_then(|n| n.as_u64())
        };
        let d = SampleArgs::default();
        assert_eq!(default("sensor"), Some(u64::from(d.sensor)));
        assert_eq!(default("samples"), Some(u64::from(d.samples)));
        assert_eq!(default("intervalMs"), Some(u64::from(d.interval_ms)));
    }

    #[test]
    fn every_tool_answers_byte_for_byte() {
        let mut server = test_server();
        let requests = call(1, "read_temperature", "{}")
            + &call(2, "read_acceleration", "{}")
            + &call(3, "set_led", r#"{"led":"green","brightness":40}"#)
            + &call(4, "set_led", r#"{"led":"green","brightness":4e1}"#)
            + &call(5, "device_info", "{}");
        let answers = test_support::serve(&mut server, &requests);
        let t = r#","resultType":"complete"}}"#;
        assert_eq!(
            lines(&answers),
            [
                std::format!(
                    r#"{{"jsonrpc":"2.0","id":1,"result":{{"structuredContent":{{"value":36.88,"unit":"°C","sensorId":"tmp-board","sample":1}},"content":[{{"type":"text","text":"{{\"value\":36.88,\"unit\":\"°C\",\"sensorId\":\"tmp-board\",\"sample\":1}}"}}]{t}"#
                ),
                std::format!(
                    r#"{{"jsonrpc":"2.0","id":2,"result":{{"structuredContent":[0.4,0.98,9.68],"content":[{{"type":"text","text":"[0.4,0.98,9.68]"}}]{t}"#
                ),
                std::format!(
                    r#"{{"jsonrpc":"2.0","id":3,"result":{{"structuredContent":{{"led":"green","brightness":40,"previous":0}},"content":[{{"type":"text","text":"{{\"led\":\"green\",\"brightness\":40,\"previous\":0}}"}}]{t}"#
                ),
                std::format!(
                    r#"{{"jsonrpc":"2.0","id":4,"result":{{"structuredContent":{{"led":"green","brightness":40,"previous":40}},"content":[{{"type":"text","text":"{{\"led\":\"green\",\"brightness\":40,\"previous\":40}}"}}]{t}"#
                ),
                std::format!(
                    r#"{{"jsonrpc":"2.0","id":5,"result":{{"structuredContent":{{"firmware":"test-firmware","version":"9.9.9","board":"test-board","uptimeMs":1234,"calls":5,"rxFreeBytes":200,"inputBufferBytes":512,"outputBufferBytes":1400,"stackPeakBytes":3000,"stackSizeBytes":16384,"relays":[false,false]}},"content":[{{"type":"text","text":"{{\"firmware\":\"test-firmware\",\"version\":\"9.9.9\",\"board\":\"test-board\",\"uptimeMs\":1234,\"calls\":5,\"rxFreeBytes\":200,\"inputBufferBytes\":512,\"outputBufferBytes\":1400,\"stackPeakBytes\":3000,\"stackSizeBytes\":16384,\"relays\":[false,false]}}"}}]{t}"#
                ),
            ]
        );
    }

    /// A 2026-07-28 `tools/call` of `set_relay` from a client that declares `elicitation`,
    /// with `extra` params members.
    fn relay_call(id: u32, arguments: &str, extra: &str) -> String {
        std::format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{}}}}}},"name":"set_relay","arguments":{arguments}{extra}}}}}"#
        ) + "\n"
    }

    fn state_of(line: &str) -> &str {
        let start = line.find(r#""requestState":""#).expect("a state") + 16;
        &line[start..start + 57]
    }

    #[test]
    fn set_relay_switches_on_only_after_approval_and_off_without() {
        let mut server = test_server();
        let on = r#"{"relay":1,"on":true}"#;
        let asked = test_support::serve(&mut server, &relay_call(1, on, ""));
        let state = String::from(state_of(&asked));
        assert_eq!(
            asked,
            std::format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required","inputRequests":{{"approval":{{"method":"elicitation/create","params":{{"mode":"form","message":"Switch relay 1 on?","requestedSchema":{{"type":"object","properties":{{"approve":{{"type":"boolean","title":"Approve","description":"Let the device go ahead"}}}},"required":["approve"]}}}}}}}},"requestState":"{state}"}}}}"#
            ) + "\n"
        );
        let answer = |action: &str| {
            std::format!(r#","inputResponses":{{"approval":{action}}},"requestState":"{state}""#)
        };
        let accept = answer(r#"{"action":"accept","content":{"approve":true}}"#);
        let refused = |id: u32, text: &str| {
            std::format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{text}: tool set_relay did not act"}}],"isError":true,"resultType":"complete"}}}}"#
            )
        };
        let requests = relay_call(2, r#"{"relay":0,"on":true}"#, &accept)
            + &relay_call(3, on, &accept)
            + &relay_call(4, on, &accept)
            + &relay_call(5, r#"{"relay":1,"on":false}"#, "")
            + &relay_call(6, r#"{"relay":1,"on":false}"#, "")
            + &call(7, "device_info", "{}");
        let answers = test_support::serve(&mut server, &requests);
        let got = lines(&answers);
        assert_eq!(
            got[..5],
            [
                refused(2, "Approval refused: the requestState was not issued for this tool and these arguments"),
                r#"{"jsonrpc":"2.0","id":3,"result":{"structuredContent":{"relay":1,"on":true,"wasOn":false},"content":[{"type":"text","text":"{\"relay\":1,\"on\":true,\"wasOn\":false}"}],"resultType":"complete"}}"#.into(),
                refused(4, "Approval refused: already answered"),
                r#"{"jsonrpc":"2.0","id":5,"result":{"structuredContent":{"relay":1,"on":false,"wasOn":true},"content":[{"type":"text","text":"{\"relay\":1,\"on\":false,\"wasOn\":true}"}],"resultType":"complete"}}"#.into(),
                r#"{"jsonrpc":"2.0","id":6,"result":{"structuredContent":{"relay":1,"on":false,"wasOn":false},"content":[{"type":"text","text":"{\"relay\":1,\"on\":false,\"wasOn\":false}"}],"resultType":"complete"}}"#.into(),
            ]
        );
        assert!(got[5].contains(r#""calls":4,"#), "{}", got[5]);
        assert!(got[5].contains(r#""relays":[false,false]}"#), "{}", got[5]);
    }

    #[test]
    fn a_declined_relay_stays_off() {
        let mut server = test_server();
        let on = r#"{"relay":0,"on":true}"#;
        let asked = test_support::serve(&mut server, &relay_call(1, on, ""));
        let state = String::from(state_of(&asked));
        let decline = std::format!(
            r#","inputResponses":{{"approval":{{"action":"decline"}}}},"requestState":"{state}""#
        );
        // Without `elicitation`: -32021, no form.
        let answers = test_support::serve(
            &mut server,
            &(relay_call(2, on, &decline)
                + &call(3, "set_relay", on)
                + &call(4, "device_info", "{}")),
        );
        let got = lines(&answers);
        assert_eq!(
            got[..2],
            [
                r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"The user declined: tool set_relay did not act"}],"isError":true,"resultType":"complete"}}"#,
                r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32021,"message":"Missing required client capability: elicitation","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}}"#,
            ]
        );
        assert!(got[2].contains(r#""calls":1,"#), "{}", got[2]);
        assert!(got[2].contains(r#""relays":[false,false]}"#), "{}", got[2]);
    }

    #[test]
    fn means_are_rounded_half_up() {
        let cases = [
            (3, 2, 2),
            (5, 2, 3),
            (7, 3, 2),
            (8, 3, 3),
            (7468, 2, 3734),
            (7469, 2, 3735),
        ];
        for (sum, samples, expected) in cases {
            assert_eq!(mean(sum, samples), expected, "{sum} / {samples}");
        }
        assert_eq!(mean(-3, 2), -1, "half up also below zero");
        assert_eq!(mean(3688, 0), 3688, "0 samples count as 1");
    }

    #[test]
    fn led_names_are_read_with_or_without_escapes() {
        let mut server = test_server();
        let requests = call(1, "set_led", r#"{"led":"red","brightness":1}"#)
            + &call(2, "set_led", r#"{"led":"gr\u0065en","brightness":2}"#)
            + &call(3, "set_led", r#"{"brightness":3,"led":"\u0062lue"}"#);
        let answers = test_support::serve(&mut server, &requests);
        let level = |led: &str, brightness: u8| {
            std::format!(
                r#""structuredContent":{{"led":"{led}","brightness":{brightness},"previous":0}}"#
            )
        };
        let got = lines(&answers);
        assert_eq!(got.len(), 3, "{answers}");
        for (line, (led, brightness)) in got.iter().zip([("red", 1), ("green", 2), ("blue", 3)]) {
            assert!(line.contains(&level(led, brightness)), "{line}");
        }
    }

    #[test]
    fn refused_arguments_never_reach_a_tool() {
        let mut server = test_server();
        let requests = call(1, "read_temperature", r#"{"sensor":2}"#)
            + &call(2, "set_led", r#"{"led":"purple","brightness":1}"#)
            + &call(3, "set_led", r#"{"led":"red","brightness":2.5}"#)
            + &call(4, "read_acceleration", r#"{"axis":"x"}"#)
            + &call(5, "sample_temperature", r#"{"samples":0}"#)
            + &call(6, "device_info", "{}");
        let answers = test_support::serve(&mut server, &requests);
        let refused = |id: u32, text: &str| {
            std::format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{text}"}}],"isError":true,"resultType":"complete"}}}}"#
            )
        };
        let got = lines(&answers);
        assert_eq!(
            got[..5],
            [
                refused(1, "Invalid arguments for tool read_temperature: /sensor: 2 is greater than the maximum 1"),
                refused(2, r#"Invalid arguments for tool set_led: /led: \"purple\" is not one of the enum values"#),
                refused(3, "Invalid arguments for tool set_led: /brightness: 2.5 is not of type integer"),
                refused(4, r#"Invalid arguments for tool read_acceleration: (root): property \"axis\" not allowed (additionalProperties)"#),
                refused(5, "Invalid arguments for tool sample_temperature: /samples: 0 is less than the minimum 1"),
            ]
        );
        // Only `device_info` itself was counted.
        assert!(got[5].contains(r#""calls":1,"#), "{}", got[5]);
    }

    #[test]
    fn sample_temperature_reports_progress_and_logs_then_averages() {
        let mut server = test_server();
        let traced = |id: u32, tool: &str, arguments: &str| {
            std::format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"progressToken":"p{id}","io.modelcontextprotocol/logLevel":"info"}},"name":"{tool}","arguments":{arguments}}}}}"#
            ) + "\n"
        };
        let request = traced(7, "sample_temperature", r#"{"samples":2,"intervalMs":0}"#)
            + &traced(8, "set_led", r#"{"led":"blue","brightness":7}"#);
        let answers = test_support::serve(&mut server, &request);
        let got: Vec<String> = lines(&answers).iter().map(|l| String::from(*l)).collect();
        assert_eq!(got.len(), 6, "{answers}");
        // `set_led` logs the change at `info`, then answers.
        assert_eq!(
            got[4],
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"set_led","data":{"led":"blue","brightness":7,"previous":0}}}"#
        );
        assert!(got[5].starts_with(r#"{"jsonrpc":"2.0","id":8,"result":{"structuredContent":{"led":"blue","brightness":7,"previous":0}"#), "{}", got[5]);
        assert_eq!(
            got[0],
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"sample_temperature","data":{"sensorId":"tmp-board","samples":2,"intervalMs":0}}}"#
        );
        assert_eq!(
            got[1],
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p7","progress":1,"total":2}}"#
        );
        assert_eq!(
            got[2],
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p7","progress":2,"total":2}}"#
        );
        assert_eq!(
            got[3],
            r#"{"jsonrpc":"2.0","id":7,"result":{"structuredContent":{"average":36.97,"min":36.88,"max":37.05,"samples":2,"sensorId":"tmp-board"},"content":[{"type":"text","text":"{\"average\":36.97,\"min\":36.88,\"max\":37.05,\"samples\":2,\"sensorId\":\"tmp-board\"}"}],"resultType":"complete"}}"#
        );
    }
}
