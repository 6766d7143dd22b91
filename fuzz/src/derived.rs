//! The keywords `#[derive(McpSchema, Serialize)]` emits, read from derived types (every shape the sensor
//! firmware uses and more: bounded integers, a unit enum, a fixed array, an optional nested
//! type, a number), for the evaluator built for them (`Program::validate_for`).

use embedded_mcp::json::FixedPoint;
use embedded_mcp::schema::{KeywordSet, Keywords};
use embedded_mcp::McpSchema;
use serde::Serialize;

#[derive(McpSchema, Serialize)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Channel {
    Red,
    Green,
}

#[derive(McpSchema, Serialize)]
#[allow(dead_code)]
struct Inner {
    on: bool,
    #[mcp(minimum = 1, maximum = 20)]
    count: u8,
}

#[derive(McpSchema, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Shapes {
    #[mcp(maximum = 100)]
    level: u8,
    channel: Channel,
    axes: [i16; 3],
    inner: Option<Inner>,
    value: FixedPoint<2>,
    #[serde(default)]
    uptime_ms: u64,
}

/// The keywords of [`Shapes`]'s input and output programs.
pub enum DerivedKeywords {}

impl Keywords for DerivedKeywords {
    const SET: KeywordSet =
        KeywordSet::of(&Shapes::INPUT_PROGRAM).union(KeywordSet::of(&Shapes::OUTPUT_PROGRAM));
}
