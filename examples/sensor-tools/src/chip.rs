//! The tools of the real-board examples (`examples/rp2040-usb`, `examples/esp32c3`): the chip's
//! own temperature sensor and one LED, defined once as the async methods of [`ChipTools`] under
//! `#[embedded_mcp::tools]`. Each firmware supplies a [`Chip`] driver.
//!
//! `read_temperature` takes no arguments and returns the die temperature; `set_led` switches the
//! LED and returns the new and the previous state. The schemas are derived from the types below
//! and compiled while the crate builds: the engine checks every call's arguments (the input
//! schemas are closed, `additionalProperties: false`) and every result, with no schema compiler
//! in the firmware.

use core::future::Future;

use embedded_mcp::json::FixedPoint;
use embedded_mcp::server::{Annotations, ToolError};
use embedded_mcp::{tools, McpSchema};
use serde::{Deserialize, Serialize};

use crate::sensors::Unit;

/// What a board supplies: its temperature sensor and its LED (async, so a driver can await its
/// conversion or bus transfer).
pub trait Chip {
    /// The sensor's identifier in results (`sensorId`).
    const SENSOR_ID: &'static str;

    /// Reads the die temperature, in hundredths of a degree Celsius; `Err` says what failed
    /// (it becomes the `isError` result's text).
    fn temperature_centi(&mut self) -> impl Future<Output = Result<i32, &'static str>>;

    /// Switches the LED on or off; returns whether it was on before.
    fn set_led(&mut self, on: bool) -> impl Future<Output = bool>;
}

// The argument and result types: doc comments on fields become `description`s; notes for
// readers are plain comments.

// `set_led`'s arguments.
#[derive(McpSchema, Deserialize)]
struct LedSwitch {
    /// true: LED on
    on: bool,
}

// `read_temperature`'s result.
#[derive(McpSchema, Serialize, Debug)]
#[serde(rename_all = "camelCase")]
struct ChipTemperature {
    // Degrees Celsius, to a hundredth.
    #[mcp(minimum = -40, maximum = 125)]
    value: FixedPoint<2>,
    // Always `"°C"`.
    unit: Unit,
    // Which sensor (`Chip::SENSOR_ID`).
    sensor_id: &'static str,
}

// `set_led`'s result.
#[derive(McpSchema, Serialize, Debug)]
struct LedState {
    // The new state.
    on: bool,
    // The state before the call.
    previous: bool,
}

/// The tools on a [`Chip`].
pub struct ChipTools<C> {
    chip: C,
}

impl<C> ChipTools<C> {
    /// The tools on `chip`.
    pub const fn new(chip: C) -> Self {
        Self { chip }
    }
}

#[tools]
impl<C: Chip> ChipTools<C> {
    /// Reads the microcontroller's on-chip temperature sensor, in degrees Celsius (a few degrees
    /// of error are normal).
    #[tool(title = "Read chip temperature", annotations = Annotations::SENSOR)]
    async fn read_temperature(&mut self) -> Result<ChipTemperature, ToolError> {
        let centi = self.chip.temperature_centi().await?;
        Ok(ChipTemperature {
            value: FixedPoint(centi),
            unit: Unit::Celsius,
            sensor_id: C::SENSOR_ID,
        })
    }

    /// Switches the board's LED on or off; returns the new and the previous state.
    #[tool(title = "Switch the LED", annotations = Annotations::SETTER)]
    async fn set_led(&mut self, args: LedSwitch) -> LedState {
        let previous = self.chip.set_led(args.on).await;
        LedState {
            on: args.on,
            previous,
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::String;

    use embedded_mcp::server::{CacheScope, Config, Server, ServerInfo};

    use super::*;
    use crate::test_support::{self, call};

    /// A chip at 27.50 °C (then one hundredth warmer per read) with its LED off.
    struct FakeChip {
        centi: i32,
        led: bool,
    }

    impl Chip for FakeChip {
        const SENSOR_ID: &'static str = "fake-die";

        async fn temperature_centi(&mut self) -> Result<i32, &'static str> {
            self.centi += 1;
            Ok(self.centi - 1)
        }

        async fn set_led(&mut self, on: bool) -> bool {
            core::mem::replace(&mut self.led, on)
        }
    }

    /// Serves `requests` (one per line) and returns the response lines.
    fn serve(requests: &str) -> String {
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
        let mut server = Server::from_tools_with_config(info, chip, config).expect("definitions");
        test_support::serve(&mut server, requests)
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
