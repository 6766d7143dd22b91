//! Loads the program compiled on the host (postcard, in flash), checking it, then validates the
//! instance. No schema compiler in the image.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use embedded_mcp::schema::Program;
use panic_halt as _;
use size_validator::{SensorStorage, PROGRAM, RESULT};

#[entry]
fn main() -> ! {
    let mut storage = SensorStorage::new();
    let loaded = Program::from_postcard(core::hint::black_box(PROGRAM), &mut storage);
    loop {
        let ok = match &loaded {
            Ok(program) => program
                .validate_bytes(core::hint::black_box(RESULT))
                .is_ok(),
            Err(_) => false,
        };
        core::hint::black_box(ok);
    }
}
