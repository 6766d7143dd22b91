//! Inputs shared by the firmwares: the schema, its compiled program and a sensor result.
#![no_std]

/// The output schema of a sensor tool (also in `schema.json`).
pub static SCHEMA: &[u8] = include_bytes!("../schema.json");

/// `schema.json` compiled on the host: `embedded-mcp schema compile schema.json -o program.bin`.
pub static PROGRAM: &[u8] = include_bytes!("../program.bin");

/// A valid instance (182 bytes).
pub static RESULT: &[u8] = br#"{"sensor":"bme280@0x76/greenhouse","temperature_c":21.37,"humidity_pct":48.2,"pressure_hpa":1013.25,"status":"ok","timestamp_ms":1735689600000,"history":[21.1,21.2,21.25,21.3,21.37]}"#;

/// Storage for the compiled schema: 16 nodes, 64 ops, 128 text bytes (1.1 KiB of RAM).
pub type SensorStorage = embedded_mcp::schema::Storage<16, 64, 128>;
