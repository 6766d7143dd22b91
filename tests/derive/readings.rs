// Derived types for `tests/subset_cli_derive.rs`: the test builds them with the derive and runs
// `embedded-mcp schema derive` on this file; both must give the same text. (Included with
// `include!`, so no inner doc comment here.)

use embedded_mcp::McpSchema;
use serde::{Deserialize, Serialize};

/// Where a reading was taken.
#[derive(McpSchema, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Place {
    /// Room name.
    #[mcp(min_length = 1, max_length = 12)]
    pub room_name: &'static str,
    pub floor: i8,
}

pub mod units {
    use embedded_mcp::McpSchema;
    use serde::{Deserialize, Serialize};

    /// How the value was measured.
    #[derive(McpSchema, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Method {
        Thermistor,
        OnDie,
    }
}

/// A set of readings.
#[derive(McpSchema, Serialize, Deserialize)]
pub struct Report {
    pub place: Place,
    pub method: units::Method,
    /// The last three values.
    #[mcp(minimum = -40, maximum = 125)]
    pub values: [f32; 3],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'static str>,
}
