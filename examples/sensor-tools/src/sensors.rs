//! Simulated sensors and the LED: deterministic but changing values.
//!
//! Each reading is a slow sine (a 32-step table, one step per sample) plus a little noise from a
//! xorshift32 generator with a fixed seed, so a given sequence of calls always yields the same
//! values, and every call yields a new sample. Values are computed in hundredths (integers) and
//! sent as `FixedPoint<2>`, so their JSON text is short (`21.53`, not `21.529999`) and no float
//! code is linked.

use embedded_mcp::McpSchema;
use serde::{Deserialize, Serialize};

use embedded_mcp::json::FixedPoint;

/// `sin(2πk/32)`, in thousandths.
const SINE: [i32; 32] = [
    0, 195, 383, 556, 707, 831, 924, 981, 1000, 981, 924, 831, 707, 556, 383, 195, 0, -195, -383,
    -556, -707, -831, -924, -981, -1000, -981, -924, -831, -707, -556, -383, -195,
];

/// The generator's fixed seed (any non-zero value).
const SEED: u32 = 0x2545_F491;

// The types below are the tools' results (and `set_led`'s channel): their derived schemas are
// the tools' `outputSchema`s. Doc comments on fields become `description`s sent by `tools/list`;
// notes for readers are plain comments.

// A temperature sensor, as results name it.
#[derive(McpSchema, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SensorId {
    /// `tmp-board`: the board sensor (`sensor` 0).
    TmpBoard,
    /// `tmp-ambient`: the ambient sensor (`sensor` 1).
    TmpAmbient,
}

impl SensorId {
    /// The sensor of a `sensor` argument (0 or 1; anything else reads 1).
    pub const fn of(sensor: u8) -> Self {
        if sensor == 0 {
            Self::TmpBoard
        } else {
            Self::TmpAmbient
        }
    }

    /// Its index (the `sensor` argument).
    pub const fn index(self) -> usize {
        self as usize
    }
}

// The unit of every temperature: one value (`enum: ["°C"]`, the same set as `const: "°C"`).
#[derive(McpSchema, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Degrees Celsius.
    #[serde(rename = "°C")]
    Celsius,
}

// An LED channel, by name (`set_led`'s `led`; the device reads it with the derived `FromJson`).
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Led {
    /// The red channel.
    Red,
    /// The green channel.
    Green,
    /// The blue channel.
    Blue,
}

// `read_temperature`'s result.
#[derive(McpSchema, Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Temperature {
    // Degrees Celsius, in the sensors' range.
    #[mcp(minimum = -40, maximum = 125)]
    pub value: FixedPoint<2>,
    // Always `"°C"`.
    pub unit: Unit,
    // Which sensor.
    pub sensor_id: SensorId,
    // This sensor's sample number, from 1.
    #[mcp(minimum = 1)]
    pub sample: u32,
}

// `read_acceleration`'s result: `[x, y, z]` in m/s² (an array: wrapped as `{"result": [...]}`
// for 2025 peers by the engine).
#[derive(McpSchema, Serialize, Debug, PartialEq)]
pub struct Acceleration(#[mcp(minimum = -40, maximum = 40)] pub [FixedPoint<2>; 3]);

// `set_led`'s result.
#[derive(McpSchema, Serialize, Debug)]
pub struct LedLevel {
    // The channel set.
    pub led: Led,
    // Its new brightness, percent.
    #[mcp(maximum = 100)]
    pub brightness: u8,
    // Its brightness before the call, percent.
    #[mcp(maximum = 100)]
    pub previous: u8,
}

/// The simulated hardware: generator state, sample counters and LED levels.
#[derive(Debug)]
pub struct Sensors {
    rng: u32,
    temperature_samples: [u32; 2],
    acceleration_samples: u32,
    leds: [u8; 3],
}

impl Sensors {
    /// Power-on state: counters at 0, LEDs off.
    pub const fn new() -> Self {
        Self {
            rng: SEED,
            temperature_samples: [0; 2],
            acceleration_samples: 0,
            leds: [0; 3],
        }
    }

    /// Uniform noise in `-spread..=spread` hundredths.
    fn noise(&mut self, spread: i32) -> i32 {
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        let width = (2 * spread + 1) as u32;
        (x % width) as i32 - spread
    }

    /// Takes the next sample of temperature sensor `sensor`.
    pub fn temperature(&mut self, sensor_id: SensorId) -> Temperature {
        let (hundredths, sample) = self.temperature_hundredths(sensor_id);
        Temperature {
            value: FixedPoint(hundredths),
            unit: Unit::Celsius,
            sensor_id,
            sample,
        }
    }

    /// Takes the next sample of temperature sensor `sensor`: hundredths of a degree and the
    /// sample number.
    pub fn temperature_hundredths(&mut self, sensor_id: SensorId) -> (i32, u32) {
        let sensor = sensor_id.index();
        // (base, amplitude) in hundredths of a degree: a warm board, a cooler room.
        let (base, amplitude) = [(3650, 150), (2100, 300)][sensor];
        let counter = &mut self.temperature_samples[sensor];
        *counter = counter.wrapping_add(1).max(1);
        let sample = *counter;
        let phase = SINE[(sample % 32) as usize];
        (base + amplitude * phase / 1000 + self.noise(12), sample)
    }

    /// Takes the next accelerometer sample: `[x, y, z]` in m/s² (a board tilting slowly under
    /// gravity).
    pub fn acceleration(&mut self) -> Acceleration {
        self.acceleration_samples = self.acceleration_samples.wrapping_add(1);
        let step = (self.acceleration_samples % 32) as usize;
        let x = SINE[step] * 200 / 1000 + self.noise(3);
        let y = SINE[(step + 8) % 32] * 100 / 1000 + self.noise(3);
        let z = 981 - x.abs() / 4 + self.noise(3);
        Acceleration([x, y, z].map(FixedPoint))
    }

    /// Sets LED channel `led` to `brightness` percent; returns the new and the previous level.
    pub fn set_led(&mut self, led: Led, brightness: u8) -> LedLevel {
        let level = &mut self.leds[led as usize];
        let previous = core::mem::replace(level, brightness);
        LedLevel {
            led,
            brightness,
            previous,
        }
    }
}
