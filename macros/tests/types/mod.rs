//! The derived types the tests share: one per row of the derive's table, plus serde's
//! attributes and nesting.

#![allow(dead_code)]

use embedded_mcp_macros::McpSchema;
use serde::{Deserialize, Serialize};

/// Struct with named fields.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Settings {
    /// Brightness level.
    #[mcp(maximum = 10)]
    pub level: u8,
    pub enabled: bool,
}

/// A temperature.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Celsius(#[mcp(minimum = -40, maximum = 125)] pub f32);

/// Enum of unit variants.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Idle,
    FastSample,
    #[serde(rename = "off")]
    PowerDown,
}

/// Every integer type with its own range, and `bool`.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Ints {
    pub a: u8,
    pub b: i8,
    pub c: u16,
    pub d: i16,
    pub e: u32,
    pub f: i32,
    pub g: u64,
    pub h: i64,
    pub on: bool,
}

/// Numbers with constraints.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Floats {
    #[mcp(minimum = 0, maximum = 3, multiple_of = 0.5)]
    pub step: f32,
    #[mcp(exclusive_minimum = -1.5, exclusive_maximum = 1e3)]
    pub x: f64,
}

// The doc comment is wrapped: its lines join into one line of `description`, as Markdown reads
// them (the golden text is one line).
/// Options: not required when read;
/// written as `null` unless skipped.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Optional {
    pub a: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b: Option<i16>,
}

/// A fixed-length array.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Fixed {
    #[mcp(minimum = -1000, maximum = 1000)]
    pub xyz: [i16; 3],
}

/// A bounded vector.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Bounded {
    #[mcp(min_items = 1, maximum = 100)]
    pub samples: heapless::Vec<u8, 4>,
}

/// Strings.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Texts<'a> {
    #[mcp(min_length = 1)]
    pub borrowed: &'a str,
    pub owned: heapless::String<8>,
    pub letter: char,
}

/// Nested derived types, inline.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Nested {
    pub mode: Mode,
    /// Overrides the struct's own description.
    pub settings: Settings,
    pub temperature: Celsius,
    pub history: heapless::Vec<Settings, 2>,
}

/// serde's renames, defaults and skips.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct Attributes {
    #[serde(rename = "ID")]
    pub sensor_id: u8,
    #[serde(default)]
    pub sample_count: u16,
    #[serde(skip)]
    pub cache: u8,
    #[mcp(title = "Gain", description = "Amplifier gain.", examples = [1, 2], default = 1)]
    #[serde(default = "one")]
    pub gain_db: u8,
    #[serde(skip_serializing)]
    pub write_only: bool,
}

fn one() -> u8 {
    1
}

/// Kept open for extra properties.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[mcp(additional_properties)]
pub struct Open {
    pub x: u8,
}

/// Closed at every level, as serde is.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Strict {
    pub inner: StrictInner,
}

/// Closed too.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StrictInner {
    pub y: bool,
}

/// Where a call goes, mirrored in `Mcp-Param-*` headers (2026-07-28 `x-mcp-header`).
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Routed {
    /// The cloud region.
    #[mcp(header = "Region")]
    pub region: heapless::String<16>,
    #[mcp(header = "Priority", maximum = 9)]
    pub priority: u8,
    #[mcp(header = "Dry-Run")]
    pub dry_run: Option<bool>,
    pub target: RoutedTarget,
    /// Not mirrored.
    pub note: heapless::String<32>,
}

/// A nested object whose marked field is reached through `properties` alone.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RoutedTarget {
    #[mcp(header = "Zone")]
    pub zone: heapless::String<8>,
}

/// Floats without bounds of their own: the schema states each type's finite range.
#[derive(McpSchema, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Ranges {
    pub single: f32,
    pub double: f64,
    pub maybe: Option<f32>,
}
