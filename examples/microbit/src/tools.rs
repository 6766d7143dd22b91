//! The micro:bit's tools: the methods of [`Microbit`] under `#[embedded_mcp::tools]`, each with
//! typed arguments and results whose derived schemas (compiled into static programs while the
//! crate builds) are the tools' `inputSchema` and `outputSchema`. The engine checks every call's
//! arguments before a method runs and every result before it is sent.
//!
//! Every tool uses a peripheral both the chip and QEMU's `microbit` machine have (GPIO, RNG,
//! TIMER, FICR) except `read_temperature`: QEMU 7.2 does not model TEMP, so there its bounded
//! wait ends in an `isError` result ("sensor not ready").

use embedded_hal::digital::InputPin;
use embedded_mcp::json::FixedPoint;
use embedded_mcp::server::{Annotations, ToolError};
use embedded_mcp::{tools, McpSchema};
use nrf51_hal::gpio::{Input, Pin, PullUp};
use nrf51_hal::rng::Rng;
use nrf51_hal::temp::Temp;
use serde::{Deserialize, Serialize};

use crate::display::{self, Frame};
use crate::{clock, memory, stack, uart};

/// Number of tools (`Microbit` is a `Toolbox<TOOL_COUNT>`).
pub const TOOL_COUNT: usize = 6;

/// How long `read_temperature` waits for TEMP's `DATARDY` (a conversion takes 36 µs on the chip).
const TEMPERATURE_WAIT_US: u64 = 1000;

/// The text of `read_temperature`'s error when TEMP never answers (as under QEMU).
pub const NOT_READY: &str = "sensor not ready: TEMP gave no reading within 1 ms";

// The argument and result types: doc comments on fields become `description`s in `tools/list`;
// notes for readers are plain comments. Input schemas are closed (`additionalProperties: false`).

// `set_pixel`'s arguments.
#[derive(McpSchema, Deserialize)]
struct PixelArgs {
    /// Column, 0 (left) to 4
    #[mcp(maximum = 4)]
    x: u8,
    /// Row, 0 (top) to 4
    #[mcp(maximum = 4)]
    y: u8,
    /// true: LED on
    on: bool,
}

// `show_pattern`'s arguments.
#[derive(McpSchema, Deserialize)]
struct PatternArgs {
    /// Five rows, top first; in each, 16 is the leftmost LED and 1 the rightmost (31: all five)
    #[mcp(maximum = 31)]
    rows: [u8; 5],
}

// The display after `set_pixel` or `show_pattern`, and before.
#[derive(McpSchema, Serialize)]
struct Picture {
    #[mcp(maximum = 31)]
    rows: [u8; 5],
    #[mcp(maximum = 31)]
    previous: [u8; 5],
}

// `read_buttons`' result: true while a button is held down.
#[derive(McpSchema, Serialize)]
struct Buttons {
    a: bool,
    b: bool,
}

// `roll_die`'s arguments.
#[derive(McpSchema, Deserialize)]
#[serde(default)]
struct DieArgs {
    /// Faces of the die
    #[mcp(minimum = 2, maximum = 100, default = 6)]
    sides: u8,
}

impl Default for DieArgs {
    fn default() -> Self {
        Self { sides: 6 }
    }
}

// `roll_die`'s result.
#[derive(McpSchema, Serialize)]
struct Roll {
    #[mcp(minimum = 1, maximum = 100)]
    value: u8,
    #[mcp(minimum = 2, maximum = 100)]
    sides: u8,
}

// The unit of the temperature: one value.
#[derive(McpSchema, Serialize)]
enum Unit {
    #[serde(rename = "°C")]
    Celsius,
}

// `read_temperature`'s result.
#[derive(McpSchema, Serialize)]
struct DieTemperature {
    // Degrees Celsius in steps of 0.25 (the TEMP peripheral's resolution).
    #[mcp(minimum = -40, maximum = 125)]
    value: FixedPoint<2>,
    unit: Unit,
}

// `device_info`'s result.
#[derive(McpSchema, Serialize)]
#[serde(rename_all = "camelCase")]
struct DeviceInfo {
    firmware: &'static str,
    version: &'static str,
    board: &'static str,
    uptime_ms: u64,
    #[mcp(minimum = 1)]
    calls: u32,
    flash_used_bytes: u32,
    flash_size_bytes: u32,
    static_ram_bytes: u32,
    ram_size_bytes: u32,
    stack_peak_bytes: u32,
    stack_size_bytes: u32,
    rx_free_bytes: u32,
}

/// The board as the engine sees it: its peripherals, the picture shown and a call counter.
pub struct Microbit {
    frame: Frame,
    button_a: Pin<Input<PullUp>>,
    button_b: Pin<Input<PullUp>>,
    rng: Rng,
    temp: Temp,
    calls: u32,
}

impl Microbit {
    /// The tools on these peripherals, with the display dark. Buttons A (P0.17) and B (P0.26)
    /// are inputs with pull-ups (the board has its own too; QEMU has only these, so there both
    /// read "up").
    pub fn new(
        button_a: Pin<Input<PullUp>>,
        button_b: Pin<Input<PullUp>>,
        rng: Rng,
        temp: Temp,
    ) -> Self {
        Self {
            frame: [0; 5],
            button_a,
            button_b,
            rng,
            temp,
            calls: 0,
        }
    }

    /// Counts a call that reached a tool (`device_info.calls`).
    fn count(&mut self) {
        self.calls = self.calls.wrapping_add(1);
    }

    /// Shows `frame`; returns the new and the previous picture.
    fn show(&mut self, frame: Frame) -> Picture {
        let previous = core::mem::replace(&mut self.frame, frame);
        display::show(&frame);
        Picture {
            rows: frame,
            previous,
        }
    }
}

/// A byte count as `device_info` reports it.
fn bytes(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[tools]
impl Microbit {
    /// Switches one LED of the 5×5 display on or off; returns the display's rows before and
    /// after (16 is a row's leftmost LED, 1 its rightmost).
    #[tool(title = "Set one LED", annotations = Annotations::SETTER)]
    fn set_pixel(&mut self, args: PixelArgs) -> Picture {
        self.count();
        let mut frame = self.frame;
        let bit = 0b10000 >> args.x.min(4);
        if let Some(row) = frame.get_mut(usize::from(args.y)) {
            if args.on {
                *row |= bit;
            } else {
                *row &= !bit;
            }
        }
        self.show(frame)
    }

    /// Shows a picture on the 5×5 display, given as five rows from the top (in each, 16 is the
    /// leftmost LED and 1 the rightmost); returns the rows before and after.
    #[tool(title = "Show a picture", annotations = Annotations::SETTER)]
    fn show_pattern(&mut self, args: PatternArgs) -> Picture {
        self.count();
        self.show(args.rows.map(|row| row & 0b11111))
    }

    /// Reads buttons A and B: true while held down.
    #[tool(title = "Read the buttons", annotations = Annotations::SENSOR)]
    fn read_buttons(&mut self) -> Buttons {
        self.count();
        Buttons {
            a: self.button_a.is_low().unwrap_or(false),
            b: self.button_b.is_low().unwrap_or(false),
        }
    }

    /// Rolls a die with the hardware random number generator (bias-corrected); 6 sides unless
    /// told otherwise.
    #[tool(title = "Roll a die", annotations = Annotations::NONE.read_only(true).open_world(false))]
    fn roll_die(&mut self, args: DieArgs) -> Roll {
        self.count();
        let sides = args.sides.clamp(2, 100);
        // Rejection sampling: bytes at or above the largest multiple of `sides` are drawn again,
        // so every face is equally likely. A byte is refused with probability below 1/2; after
        // 32 refusals in a row (odds under 2^-32) the last byte is used as it is.
        let limit = 256 - 256 % u16::from(sides);
        let mut byte = self.rng.random_u8();
        for _ in 0..32 {
            if u16::from(byte) < limit {
                break;
            }
            byte = self.rng.random_u8();
        }
        Roll {
            value: byte % sides + 1,
            sides,
        }
    }

    /// Reads the chip's die temperature in degrees Celsius (steps of 0.25; a few degrees above
    /// the room). Answers an error if the sensor gives no reading within 1 ms.
    #[tool(title = "Read die temperature", annotations = Annotations::SENSOR)]
    fn read_temperature(&mut self) -> Result<DieTemperature, ToolError> {
        self.count();
        self.temp.stop_measurement();
        self.temp.start_measurement();
        let deadline = clock::uptime_us() + TEMPERATURE_WAIT_US;
        loop {
            if let Ok(reading) = self.temp.read() {
                // Quarter degrees to hundredths.
                let centi = reading.to_bits().saturating_mul(25);
                return Ok(DieTemperature {
                    value: FixedPoint(centi),
                    unit: Unit::Celsius,
                });
            }
            if clock::uptime_us() > deadline {
                self.temp.stop_measurement();
                return Err(ToolError::Message(NOT_READY));
            }
        }
    }

    /// Firmware, uptime, flash and RAM use against the chip's, and the deepest stack use.
    #[tool(title = "Device information", annotations = Annotations::SENSOR)]
    fn device_info(&mut self) -> DeviceInfo {
        self.count();
        DeviceInfo {
            firmware: env!("CARGO_PKG_NAME"),
            version: env!("CARGO_PKG_VERSION"),
            board: "BBC micro:bit v1 (nRF51822)",
            uptime_ms: clock::uptime_ms(),
            calls: self.calls,
            flash_used_bytes: bytes(memory::flash_used()),
            flash_size_bytes: bytes(memory::flash_size()),
            static_ram_bytes: bytes(memory::static_ram()),
            ram_size_bytes: bytes(memory::ram_size()),
            stack_peak_bytes: bytes(stack::peak_used()),
            stack_size_bytes: bytes(stack::size()),
            rx_free_bytes: bytes(uart::rx_free()),
        }
    }
}
