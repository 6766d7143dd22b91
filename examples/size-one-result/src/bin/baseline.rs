//! The loop of the other two firmwares without embedded-mcp: what the runtime, the vector table
//! and the panic handler cost. Subtract it from theirs to get the cost of the encoder.
#![no_std]
#![no_main]

use cortex_m::peripheral::SYST;
use cortex_m_rt::entry;
use panic_halt as _;

#[entry]
fn main() -> ! {
    let mut buf = [0u8; 512];
    loop {
        // A value the compiler cannot know: the SysTick counter.
        let t = SYST::get_current();
        if let Some(first) = buf.first_mut() {
            *first = t as u8;
        }
        core::hint::black_box(&buf);
    }
}
