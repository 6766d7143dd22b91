//! Parse-and-validate of tool results: the core's compiled subset validator
//! (`embedded_mcp::schema`, `Program::validate_bytes` on the raw bytes) against
//! `serde_json::from_slice` + the `jsonschema` crate's `is_valid` (schema compiled once, as a
//! host would). Two payloads: a ~200-byte sensor result and a ~4 KiB array of readings. After
//! criterion's report the ratios (peer median / ours, from this run's estimates) are printed.
//!
//! Run: `cargo bench -p embedded-mcp-benches --bench validate`

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use criterion::{black_box, Criterion};
use embedded_mcp::schema::{compile, Program, Storage};
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

fn bench_pair(c: &mut Criterion, group_name: &str, schema: &str, instance: &[u8]) {
    let mut storage = Box::new(Storage::<64, 512, 1024>::new());
    let program: Program<'_> = compile(schema.as_bytes(), &mut storage).expect("schema compiles");
    let schema_value: serde_json::Value = serde_json::from_str(schema).unwrap();
    let peer = jsonschema::validator_for(&schema_value).expect("peer compiles");

    // Both agree that the instance is valid, and that a broken one is not.
    assert!(program.validate_bytes(instance).is_ok());
    assert!(peer.is_valid(&serde_json::from_slice(instance).unwrap()));
    let broken = String::from_utf8(instance.to_vec())
        .unwrap()
        .replacen("\"ok\"", "\"bad\"", 1)
        .replacen(":true", ":1", 1);
    assert!(program.validate_bytes(broken.as_bytes()).is_err());
    assert!(!peer.is_valid(&serde_json::from_str(&broken).unwrap()));

    let mut group = c.benchmark_group(group_name);
    group.bench_function(OURS, |b| {
        b.iter(|| black_box(program.validate_bytes(black_box(instance)).is_ok()))
    });
    group.bench_function("TMP_parse_only", |b| {
        b.iter(|| black_box(embedded_mcp::json::Value::parse(black_box(instance)).is_ok()))
    });
    let pre = embedded_mcp::json::Value::parse(instance).unwrap();
    group.bench_function("TMP_validate_only", |b| {
        b.iter(|| black_box(program.validate(black_box(pre)).is_ok()))
    });
    group.bench_function(PEER, |b| {
        b.iter(|| {
            let value: serde_json::Value = serde_json::from_slice(black_box(instance)).unwrap();
            black_box(peer.is_valid(&value))
        })
    });
    group.finish();
}

/// Where criterion writes its estimates (the same rule criterion uses, pinned for this run).
fn criterion_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(dir);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let dir = target.join("criterion");
    std::env::set_var("CRITERION_HOME", &dir);
    dir
}

/// The median estimate (ns) of one benchmark, if it was measured during this run.
fn median_ns(dir: &Path, group: &str, function: &str, since: SystemTime) -> Option<f64> {
    let path = dir.join(group).join(function).join("new/estimates.json");
    let modified = std::fs::metadata(&path).ok()?.modified().ok()?;
    if modified < since {
        return None;
    }
    let text = std::fs::read_to_string(&path).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["median"]["point_estimate"].as_f64()
}

fn main() {
    let dir = criterion_dir();
    let started = SystemTime::now();
    let mut c = Criterion::default().configure_from_args();

    let array = serde_json::to_vec(&readings(ARRAY_LEN)).unwrap();
    let array_schema = array_schema();
    bench_pair(&mut c, "validate_sensor_result", RESULT_SCHEMA, RESULT.as_bytes());
    bench_pair(&mut c, "validate_4k_readings", &array_schema, &array);
    c.final_summary();

    println!();
    println!(
        "ratios (serde_json::from_slice + jsonschema is_valid median / embedded-mcp validate_bytes median; payloads: result {} B, array {} B):",
        RESULT.len(),
        array.len()
    );
    for group in ["validate_sensor_result", "validate_4k_readings"] {
        match (
            median_ns(&dir, group, OURS, started),
            median_ns(&dir, group, PEER, started),
        ) {
            (Some(ours), Some(peer)) => println!(
                "  {group:<24} embedded-mcp {ours:>10.1} ns  peer {peer:>10.1} ns  ratio {:>5.2}x  (target >= 2x: {})",
                peer / ours,
                if peer / ours >= 2.0 { "met" } else { "NOT met" }
            ),
            _ => println!("  {group:<24} not measured in this run"),
        }
    }
}
