//! The ESP32-C3's hardware behind the shared chip tools: its internal temperature sensor (TSENS)
//! and an LED on a GPIO (GPIO 7: the red LED of Espressif's ESP32-C3-DevKit-RUST-1; change the
//! pin in src/main.rs for your board).

use esp_hal::gpio::{Level, Output};
use esp_hal::tsens::TemperatureSensor;
use sensor_tools::chip::Chip;

/// The chip's sensor and the LED.
pub struct Esp32c3 {
    sensor: TemperatureSensor<'static>,
    led: Output<'static>,
}

impl Esp32c3 {
    /// The sensor (powered up) and the LED pin (configured as an output, LED off).
    pub fn new(sensor: TemperatureSensor<'static>, led: Output<'static>) -> Self {
        Self { sensor, led }
    }
}

/// Hundredths of a degree from a raw reading and its offset: esp-hal's
/// `Temperature::to_celsius` (`raw * 0.4386 - offset * 27.88 - 20.52`), in integers.
pub fn centi_degrees(raw: u8, offset: i8) -> i32 {
    (i32::from(raw) * 4386 - i32::from(offset) * 278_800 - 205_200) / 100
}

impl Chip for Esp32c3 {
    const SENSOR_ID: &'static str = "esp32c3-tsens";

    /// A register read: this future completes in its first poll.
    async fn temperature_centi(&mut self) -> Result<i32, &'static str> {
        let reading = self.sensor.get_temperature();
        Ok(centi_degrees(reading.raw_value, reading.offset))
    }

    async fn set_led(&mut self, on: bool) -> bool {
        let previous = self.led.is_set_high();
        self.led
            .set_level(if on { Level::High } else { Level::Low });
        previous
    }
}
