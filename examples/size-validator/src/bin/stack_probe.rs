//! Peak stack use of the validator, measured by stack painting under QEMU (lm3s6965evb):
//! `cargo run --release --bin stack-probe` (add `--features pattern` for the regular-expression
//! cases). Each case runs on a freshly painted region below the current stack pointer, and the
//! report goes to the semihosting console.
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

/// `depth` nested containers: `[[[]]]` (`key` empty) or `{"a":{"a":{}}}`.
fn nested<'b>(depth: usize, key: &str, buf: &'b mut [u8; 1024]) -> &'b [u8] {
    let mut n = 0;
    let mut put = |s: &[u8]| {
        for &b in s {
            if let Some(slot) = buf.get_mut(n) {
                *slot = b;
                n += 1;
            }
        }
    };
    for _ in 0..depth {
        if key.is_empty() {
            put(b"[");
        } else {
            put(b"{\"");
            put(key.as_bytes());
            put(b"\":");
        }
    }
    if !key.is_empty() {
        put(b"{}");
    }
    for _ in 0..depth {
        put(if key.is_empty() { b"]" } else { b"}" });
    }
    &buf[..n]
}

/// Validates `depth`-deep instances of a recursive schema and prints the peak stack of each
/// depth and the growth per nesting level.
fn recursive(name: &str, schema: &[u8], key: &str) {
    let mut storage: Storage<8, 16, 16> = Storage::new();
    let Ok(program) = compile(schema, &mut storage) else {
        hprintln!("{}: schema does not compile", name);
        return;
    };
    let limits = ValidationLimits {
        max_depth: 128,
        ..ValidationLimits::default()
    };
    let mut buf = [0u8; 1024];
    let (mut last, mut last_depth) = (0usize, 0usize);
    for depth in [1usize, 8, 16, 32] {
        let text = nested(depth, key, &mut buf);
        let (used, ok) = peak(|| match Value::parse_with(text, Limits { max_depth: 64 }) {
            Ok(v) => program.validate_with(v, &limits).is_ok(),
            Err(_) => false,
        });
        let per_level = if last_depth > 0 {
            used.saturating_sub(last) / (depth - last_depth)
        } else {
            0
        };
        hprintln!(
            "{} {}-deep: valid={} peak stack {} bytes ({} per nesting level)",
            name,
            depth,
            ok,
            used,
            per_level
        );
        (last, last_depth) = (used, depth);
    }
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
        let mut broken = [0u8; 256];
        let len = RESULT.len().min(broken.len());
        broken[..len].copy_from_slice(&RESULT[..len]);
        // `"status":"ok"` becomes `"status":"xx"`: the failure path builds a message.
        if let Some(at) = broken.windows(4).position(|w| w == b"\"ok\"") {
            broken[at + 1] = b'x';
            broken[at + 2] = b'x';
        }
        let (used, ok) = peak(|| program.validate_bytes(&broken[..len]).is_ok());
        hprintln!(
            "validate a failing sensor result (message built): valid={} peak stack {} bytes",
            ok,
            used
        );
    }

    // Two evaluation levels per nesting level (the subschema, then the root again through
    // `$ref`, which runs in the frame of the subschema that applies it); three with `anyOf`.
    recursive("items $ref", br##"{"items":{"$ref":"#"}}"##, "");
    recursive(
        "properties $ref",
        br##"{"properties":{"a":{"$ref":"#"}}}"##,
        "a",
    );
    recursive(
        "additionalProperties $ref",
        br##"{"additionalProperties":{"$ref":"#"}}"##,
        "a",
    );
    recursive(
        "unevaluatedProperties $ref",
        br##"{"properties":{"a":{"$ref":"#"}},"unevaluatedProperties":false}"##,
        "a",
    );
    recursive(
        "unevaluatedProperties alone $ref",
        br##"{"unevaluatedProperties":{"$ref":"#"}}"##,
        "a",
    );
    recursive(
        "anyOf $ref",
        br##"{"anyOf":[{"type":"string"},{"properties":{"a":{"$ref":"#"}}}]}"##,
        "a",
    );
    patterns();
    debug::exit(debug::EXIT_SUCCESS);
    loop {}
}

/// Compiling and matching regular expressions (feature `pattern`).
#[cfg(feature = "pattern")]
fn patterns() {
    const SCHEMA: &[u8] = br#"{"type":"object","properties":{"id":{"type":"string",
        "pattern":"^[a-z]{2}-[0-9]{1,4}(\\.[a-f0-9]+)?$"}},
        "patternProperties":{"^x-[a-z]+$":{"type":"integer"}},"additionalProperties":false}"#;
    let mut storage: Storage<8, 128, 128> = Storage::new();
    let (used, compiled) = peak(|| compile(SCHEMA, &mut storage));
    hprintln!(
        "compile a schema with pattern and patternProperties: ok={} peak stack {} bytes",
        compiled.is_ok(),
        used
    );
    recursive(
        "patternProperties $ref",
        br##"{"patternProperties":{"^a$":{"$ref":"#"}}}"##,
        "a",
    );
    if let Ok(program) = compiled {
        let instance = br#"{"id":"ab-1234.ff","x-count":3,"x-rev":12}"#;
        let (used, ok) = peak(|| program.validate_bytes(instance).is_ok());
        hprintln!(
            "validate with pattern and patternProperties: valid={} peak stack {} bytes",
            ok,
            used
        );
    }
}

#[cfg(not(feature = "pattern"))]
fn patterns() {
    hprintln!("(pattern cases: build with --features pattern)");
}
