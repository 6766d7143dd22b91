//! The loop of the other firmwares without the schema layer: runtime, vector table, panic
//! handler and the JSON layer's strict parser (which a server has anyway). Subtract it from
//! theirs to get the cost of the validator.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use embedded_mcp::json::Value;
use panic_halt as _;
use size_validator::RESULT;

#[entry]
fn main() -> ! {
    loop {
        let ok = Value::parse(core::hint::black_box(RESULT)).is_ok();
        core::hint::black_box(ok);
    }
}
