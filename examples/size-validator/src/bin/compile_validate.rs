//! Compiles the schema at start-up into a stack `Storage`, then validates the instance.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use embedded_mcp::schema::compile;
use panic_halt as _;
use size_validator::{SensorStorage, RESULT, SCHEMA};

#[entry]
fn main() -> ! {
    let mut storage = SensorStorage::new();
    let compiled = compile(core::hint::black_box(SCHEMA), &mut storage);
    loop {
        let ok = match &compiled {
            Ok(program) => program
                .validate_bytes(core::hint::black_box(RESULT))
                .is_ok(),
            Err(_) => false,
        };
        core::hint::black_box(ok);
    }
}
