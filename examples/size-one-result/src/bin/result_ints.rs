//! Encodes one sensor reading without floats (the value in hundredths) as a complete
//! `CallToolResult`, for a legacy or a 2026 peer, into a stack buffer.
#![no_std]
#![no_main]

use cortex_m::peripheral::SYST;
use cortex_m_rt::entry;
use embedded_mcp::result::{encode_structured, Era};
use panic_halt as _;
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Percent,
}

#[derive(Serialize)]
struct Reading {
    sensor: &'static str,
    channel: u8,
    centi_value: i32,
    unit: Unit,
    timestamp_ms: u64,
    ok: bool,
}

#[entry]
fn main() -> ! {
    let mut buf = [0u8; 512];
    loop {
        // Values the compiler cannot know: the SysTick counter.
        let t = SYST::get_current();
        let reading = Reading {
            sensor: if t & 2 == 0 {
                "temp-0"
            } else {
                "hum \"outdoor\""
            },
            channel: (t & 7) as u8,
            centi_value: (t as i32) - 4000,
            unit: if t & 4 == 0 {
                Unit::Celsius
            } else {
                Unit::Percent
            },
            timestamp_ms: u64::from(t) * 1000,
            ok: t & 8 == 0,
        };
        let era = if t & 1 == 0 {
            Era::Legacy
        } else {
            Era::Stateless
        };
        let len = encode_structured(&mut buf, era, &reading).map_or(0, |done| done.len);
        core::hint::black_box(buf.get(..len));
    }
}
