//! Simulated sensors and the LED: deterministic but changing values.
//!
//! Each reading is a slow sine (a 32-step table, one step per sample) plus a little noise from a
//! xorshift32 generator with a fixed seed, so a given sequence of calls always yields the same
//! values, and every call yields a new sample. Values are computed in hundredths (integers) and
//! converted to `f32` once, so their JSON text is short (`21.53`, not `21.529999`).

use serde::Serialize;

/// `sin(2πk/32)`, in thousandths.
const SINE: [i32; 32] = [
    0, 195, 383, 556, 707, 831, 924, 981, 1000, 981, 924, 831, 707, 556, 383, 195, 0, -195, -383,
    -556, -707, -831, -924, -981, -1000, -981, -924, -831, -707, -556, -383, -195,
];

/// The generator's fixed seed (any non-zero value).
const SEED: u32 = 0x2545_F491;

/// Identifiers of the two temperature sensors, by `sensor` argument.
pub const TEMPERATURE_SENSORS: [&str; 2] = ["tmp-board", "tmp-ambient"];

/// Names of the LED channels, by index (the `led` argument's `enum`).
pub const LED_CHANNELS: [&str; 3] = ["red", "green", "blue"];

/// `read_temperature`'s result.
#[derive(Debug, Serialize)]
pub struct Temperature {
    /// Degrees Celsius.
    pub value: f32,
    /// Always `"°C"`.
    pub unit: &'static str,
    /// Which sensor.
    #[serde(rename = "sensorId")]
    pub sensor_id: &'static str,
    /// This sensor's sample number, from 1.
    pub sample: u32,
}

/// `set_led`'s result.
#[derive(Debug, Serialize)]
pub struct LedLevel {
    /// The channel set.
    pub led: &'static str,
    /// Its new brightness, percent.
    pub brightness: u8,
    /// Its brightness before the call, percent.
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

    /// Takes the next sample of temperature sensor `sensor` (0 or 1; anything else reads 1).
    pub fn temperature(&mut self, sensor: usize) -> Temperature {
        let sensor = sensor.min(1);
        // (base, amplitude) in hundredths of a degree: a warm board, a cooler room.
        let (base, amplitude) = [(3650, 150), (2100, 300)][sensor];
        let counter = &mut self.temperature_samples[sensor];
        *counter = counter.wrapping_add(1).max(1);
        let sample = *counter;
        let phase = SINE[(sample % 32) as usize];
        let hundredths = base + amplitude * phase / 1000 + self.noise(12);
        Temperature {
            value: hundredths as f32 / 100.0,
            unit: "°C",
            sensor_id: TEMPERATURE_SENSORS[sensor],
            sample,
        }
    }

    /// Takes the next accelerometer sample: `[x, y, z]` in m/s² (a board tilting slowly under
    /// gravity).
    pub fn acceleration(&mut self) -> [f32; 3] {
        self.acceleration_samples = self.acceleration_samples.wrapping_add(1);
        let step = (self.acceleration_samples % 32) as usize;
        let x = SINE[step] * 200 / 1000 + self.noise(3);
        let y = SINE[(step + 8) % 32] * 100 / 1000 + self.noise(3);
        let z = 981 - x.abs() / 4 + self.noise(3);
        [x, y, z].map(|hundredths| hundredths as f32 / 100.0)
    }

    /// Sets LED channel `channel` (0..3) to `brightness` percent; returns the result.
    pub fn set_led(&mut self, channel: usize, brightness: u8) -> Option<LedLevel> {
        let level = self.leds.get_mut(channel)?;
        let previous = core::mem::replace(level, brightness);
        Some(LedLevel {
            led: LED_CHANNELS.get(channel)?,
            brightness,
            previous,
        })
    }
}
