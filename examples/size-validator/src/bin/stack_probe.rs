//! Peak stack use of the validator, measured by stack painting under QEMU (lm3s6965evb):
//! `cargo run --release --bin stack-probe`. Each case runs on a freshly painted region below
//! the current stack pointer, and the report goes to the semihosting console.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use embedded_mcp::json::{Limits, Value};
use embedded_mcp::schema::{compile, Program, Storage, ValidationLimits};
use panic_halt as _;
use size_validator::{SensorStorage, PROGRAM, RESULT, SCHEMA};

const PAINT: u32 = 0xDEAD_BEEF;
const PROBE: usize = 24 * 1024;

/// Paints `PROBE` bytes below the current stack pointer, runs `f`, and returns how many of
/// them `f` used.
#[inline(never)]
fn peak<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let sp = cortex_m::register::msp::read() as usize;
    let bottom = sp - PROBE;
    // Safety: the `PROBE` bytes below the stack pointer are free stack RAM (the stack has 64 KiB
    // minus .data/.bss; this firmware uses little), and nothing lives there until `f` runs.
    unsafe {
        for a in (bottom..sp - 64).step_by(4) {
            core::ptr::write_volatile(a as *mut u32, PAINT);
        }
    }
    let r = f();
    let mut a = bottom;
    // Safety: reading the same reserved words back.
    while a < sp && unsafe { core::ptr::read_volatile(a as *const u32) } == PAINT {
        a += 4;
    }
    (sp - a, r)
}

/// An instance `depth` arrays deep, for the recursive schema `{"items":{"$ref":"#"}}`.
fn nested(depth: usize, buf: &mut [u8; 256]) -> &[u8] {
    for (i, b) in buf.iter_mut().enumerate().take(2 * depth) {
        *b = if i < depth { b'[' } else { b']' };
    }
    &buf[..2 * depth]
}

#[entry]
fn main() -> ! {
    let mut storage = SensorStorage::new();
    let (used, ok) = peak(|| compile(SCHEMA, &mut storage).is_ok());
    hprintln!("compile sensor schema: ok={} peak stack {} bytes", ok, used);

    let mut loaded_storage = SensorStorage::new();
    let (used, loaded) = peak(|| Program::from_postcard(PROGRAM, &mut loaded_storage));
    hprintln!(
        "load program.bin ({} bytes): ok={} peak stack {} bytes",
        PROGRAM.len(),
        loaded.is_ok(),
        used
    );

    if let Ok(program) = loaded {
        let (used, ok) = peak(|| program.validate_bytes(RESULT).is_ok());
        hprintln!(
            "validate sensor result: valid={} peak stack {} bytes",
            ok,
            used
        );
    }

    let mut rec_storage: Storage<4, 8, 8> = Storage::new();
    if let Ok(program) = compile(br##"{"items":{"$ref":"#"}}"##, &mut rec_storage) {
        let mut buf = [0u8; 256];
        let mut last = 0usize;
        for depth in [1usize, 8, 16, 32] {
            let text = nested(depth, &mut buf);
            let limits = ValidationLimits {
                max_depth: 128,
                ..ValidationLimits::default()
            };
            let (used, ok) = peak(|| match Value::parse_with(text, Limits { max_depth: 64 }) {
                Ok(v) => program.validate_with(v, &limits).is_ok(),
                Err(_) => false,
            });
            hprintln!(
                "validate {}-deep recursive $ref (2 evaluation levels per array): valid={} peak stack {} bytes (+{} from previous)",
                depth,
                ok,
                used,
                used.saturating_sub(last)
            );
            last = used;
        }
    }
    debug::exit(debug::EXIT_SUCCESS);
    loop {}
}
