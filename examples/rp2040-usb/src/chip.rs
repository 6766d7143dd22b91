//! The Pico's hardware behind the shared chip tools: the RP2040's temperature sensor (ADC input
//! 4) and the on-board LED on GPIO 25.

use defmt::{info, warn};
use embassy_rp::adc::{self, Adc, Blocking, Channel};
use embassy_rp::gpio::{Level, Output};
use embassy_rp::peripherals::{ADC, ADC_TEMP_SENSOR, PIN_25};
use embassy_rp::Peri;
use sensor_tools::chip::Chip;

/// ADC full scale: 12 bits against the 3.3 V reference, in microvolts.
const FULL_SCALE_UV: i32 = 3_300_000;
/// RP2040 datasheet (section 4.9.5): the sensor reads 0.706 V at 27 °C and falls 1.721 mV per
/// degree.
const UV_AT_27C: i32 = 706_000;
const UV_PER_DEGREE: i32 = 1721;

/// The Pico's sensor and LED.
pub struct Pico {
    adc: Adc<'static, Blocking>,
    sensor: Channel<'static>,
    led: Output<'static>,
}

impl Pico {
    /// Takes the ADC, its temperature sensor input and GPIO 25 (LED off).
    pub fn new(
        adc: Peri<'static, ADC>,
        sensor: Peri<'static, ADC_TEMP_SENSOR>,
        led: Peri<'static, PIN_25>,
    ) -> Self {
        Self {
            adc: Adc::new_blocking(adc, adc::Config::default()),
            sensor: Channel::new_temp_sensor(sensor),
            led: Output::new(led, Level::Low),
        }
    }
}

/// Hundredths of a degree from a 12-bit reading (datasheet formula, integer arithmetic).
pub fn centi_degrees(raw: u16) -> i32 {
    let uv = i32::from(raw) * FULL_SCALE_UV / 4096;
    2700 - (uv - UV_AT_27C) * 100 / UV_PER_DEGREE
}

impl Chip for Pico {
    const SENSOR_ID: &'static str = "rp2040-adc4";

    /// One conversion (about 2 µs at the 48 MHz ADC clock): blocking is cheaper than a wake-up,
    /// so this future completes in its first poll.
    async fn temperature_centi(&mut self) -> Result<i32, &'static str> {
        match self.adc.blocking_read(&mut self.sensor) {
            Ok(raw) => {
                let centi = centi_degrees(raw);
                info!(
                    "read_temperature: raw {=u16}, {=i32} hundredths of °C",
                    raw, centi
                );
                Ok(centi)
            }
            Err(_) => {
                warn!("read_temperature: ADC conversion failed");
                Err("the ADC conversion failed")
            }
        }
    }

    async fn set_led(&mut self, on: bool) -> bool {
        let previous = self.led.is_set_high();
        self.led
            .set_level(if on { Level::High } else { Level::Low });
        info!("set_led: {} (was {})", on, previous);
        previous
    }
}
