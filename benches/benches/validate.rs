//! Parse-and-validate of tool results: the core's compiled subset validator
//! (`embedded_mcp::schema`, `Program::validate_bytes` on the raw bytes) against
//! `serde_json::from_slice` + the `jsonschema` crate's `is_valid` (schema compiled once, as a
//! host would). Two payloads: a ~200-byte sensor result and a ~4 KiB array of readings. After
//! criterion's report the ratios are printed twice: from criterion's medians of this run, and
//! from an interleaved measurement (each side's fastest of 61 alternating ~2 ms batches), which
//! a shared, busy machine disturbs far less.
//!
//! Run: `cargo bench -p embedded-mcp-benches --bench validate`
//!
//! Instruction counts (independent of the machine's load): with `VALIDATE_CALLS=<payload>:<n>`
//! (`sensor` or `array`) the binary only makes `n` calls of our side on that payload and
//! exits; run it under `valgrind --tool=callgrind` with `n` = 0 and `n` = 2000 and divide the
//! difference by 2000 (see `benches/RESULTS.md`).

use std::time::SystemTime;

use criterion::{black_box, Criterion};
use embedded_mcp::schema::{compile, Program, Storage};
use embedded_mcp_benches::measure::{criterion_dir, interleaved, median_ns};
use embedded_mcp_benches::readings;

const OURS: &str = "embedded_mcp";
const PEER: &str = "serde_json_jsonschema";

/// The schema of one reading (the `SensorReading` fixture), as a device would declare it.
const READING_SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "sensor": {"type": "string", "minLength": 1, "maxLength": 16},
    "channel": {"type": "integer", "minimum": 0, "maximum": 7},
    "value": {"type": "number"},
    "unit": {"enum": ["celsius", "percent", "hectopascal"]},
    "timestamp_ms": {"type": "integer", "minimum": 0},
    "ok": {"type": "boolean"}
  },
  "required": ["sensor", "channel", "value", "unit", "timestamp_ms", "ok"],
  "additionalProperties": false
}"#;

/// A sensor tool's result: one reading with its context.
const RESULT_SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "sensor": {"type": "string", "maxLength": 32},
    "temperature_c": {"type": "number", "minimum": -40, "maximum": 125},
    "humidity_pct": {"type": "number", "minimum": 0, "maximum": 100},
    "pressure_hpa": {"type": "number", "multipleOf": 0.01},
    "status": {"enum": ["ok", "degraded", "fault"]},
    "timestamp_ms": {"type": "integer", "minimum": 0},
    "history": {"type": "array", "items": {"type": "number"}, "maxItems": 8}
  },
  "required": ["sensor", "temperature_c", "status", "timestamp_ms"],
  "additionalProperties": false
}"#;

const RESULT: &str = r#"{"sensor":"bme280@0x76/greenhouse","temperature_c":21.37,"humidity_pct":48.2,"pressure_hpa":1013.25,"status":"ok","timestamp_ms":1735689600000,"history":[21.1,21.2,21.25,21.3,21.37]}"#;

/// Readings in the ~4 KiB array.
const ARRAY_LEN: usize = 38;

fn array_schema() -> String {
    format!(r#"{{"type":"array","maxItems":64,"items":{READING_SCHEMA}}}"#)
}

/// One payload: our compiled program and the peer's compiled validator, checked to agree.
struct Pair<'p> {
    name: &'static str,
    program: Program<'p>,
    peer: jsonschema::Validator,
    instance: Vec<u8>,
}

fn pair<'p>(
    name: &'static str,
    schema: &str,
    instance: Vec<u8>,
    storage: &'p mut Storage<64, 512, 1024>,
) -> Pair<'p> {
    let program = compile(schema.as_bytes(), storage).expect("schema compiles");
    let schema_value: serde_json::Value = serde_json::from_str(schema).unwrap();
    let peer = jsonschema::validator_for(&schema_value).expect("peer compiles");
    // Both agree that the instance is valid, and that a broken one is not.
    assert!(program.validate_bytes(&instance).is_ok());
    assert!(peer.is_valid(&serde_json::from_slice(&instance).unwrap()));
    let broken = String::from_utf8(instance.clone())
        .unwrap()
        .replacen("\"ok\"", "\"bad\"", 1)
        .replacen(":true", ":1", 1);
    assert!(program.validate_bytes(broken.as_bytes()).is_err());
    assert!(!peer.is_valid(&serde_json::from_str(&broken).unwrap()));
    Pair {
        name,
        program,
        peer,
        instance,
    }
}

impl Pair<'_> {
    fn ours(&self) -> bool {
        self.program
            .validate_bytes(black_box(&self.instance))
            .is_ok()
    }

    fn theirs(&self) -> bool {
        let value: serde_json::Value = serde_json::from_slice(black_box(&self.instance)).unwrap();
        self.peer.is_valid(&value)
    }

    fn bench(&self, c: &mut Criterion) {
        let mut group = c.benchmark_group(self.name);
        group.bench_function(OURS, |b| b.iter(|| black_box(self.ours())));
        group.bench_function(PEER, |b| b.iter(|| black_box(self.theirs())));
        group.finish();
    }
}

fn main() {
    let dir = criterion_dir();
    let started = SystemTime::now();
    let mut c = Criterion::default().configure_from_args();

    let mut storage_result = Box::new(Storage::new());
    let mut storage_array = Box::new(Storage::new());
    let array_schema = array_schema();
    let pairs = [
        pair(
            "validate_sensor_result",
            RESULT_SCHEMA,
            RESULT.as_bytes().to_vec(),
            &mut storage_result,
        ),
        pair(
            "validate_4k_readings",
            &array_schema,
            serde_json::to_vec(&readings(ARRAY_LEN)).unwrap(),
            &mut storage_array,
        ),
    ];
    if let Ok(spec) = std::env::var("VALIDATE_CALLS") {
        let (name, n) = spec
            .split_once(':')
            .expect("VALIDATE_CALLS=<sensor|array>:<n>");
        let p = &pairs[usize::from(name == "array")];
        let n: usize = n.parse().expect("a number of calls");
        let valid = (0..n).filter(|_| p.ours()).count();
        println!("{valid} of {n} calls valid ({})", p.name);
        return;
    }
    for p in &pairs {
        p.bench(&mut c);
    }
    c.final_summary();

    println!();
    println!(
        "ratios from criterion medians (serde_json::from_slice + jsonschema is_valid / embedded-mcp validate_bytes; payloads {} B and {} B):",
        pairs[0].instance.len(),
        pairs[1].instance.len()
    );
    for p in &pairs {
        match (
            median_ns(&dir, p.name, OURS, started),
            median_ns(&dir, p.name, PEER, started),
        ) {
            (Some(ours), Some(peer)) => println!(
                "  {:<24} embedded-mcp {ours:>10.1} ns  peer {peer:>10.1} ns  ratio {:>5.2}x",
                p.name,
                peer / ours
            ),
            _ => println!("  {:<24} not measured in this run", p.name),
        }
    }
    println!("ratios measured interleaved (ns per call, each side's fastest of 61 alternating ~2 ms batches):");
    for p in &pairs {
        let (ours, peer) = interleaved(
            || {
                black_box(p.ours());
            },
            || {
                black_box(p.theirs());
            },
        );
        println!(
            "  {:<24} embedded-mcp {ours:>10.1} ns  peer {peer:>10.1} ns  ratio {:>5.2}x  (target >= 2x: {})",
            p.name,
            peer / ours,
            if peer / ours >= 2.0 { "met" } else { "NOT met" }
        );
    }
}
