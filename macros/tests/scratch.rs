use embedded_mcp::schema::McpSchema;
use embedded_mcp_macros::McpSchema;

/// A reading.
#[derive(McpSchema, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Reading {
    /// Which sensor.
    #[mcp(maximum = 3)]
    sensor_id: u8,
    value: Option<f32>,
    unit: Unit,
    name: heapless::String<8>,
}

#[derive(McpSchema, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Kelvin,
}

#[derive(McpSchema)]
struct Wrap(#[mcp(minimum = 1)] u16);

#[test]
fn print() {
    println!("{}\n{}", Reading::INPUT_SCHEMA, Reading::OUTPUT_SCHEMA);
    println!("{}\n{}", Unit::INPUT_SCHEMA, Wrap::INPUT_SCHEMA);
    assert!(Reading::INPUT_PROGRAM
        .validate_bytes(br#"{"sensorId":1,"unit":"kelvin","name":"ab"}"#)
        .is_ok());
    assert!(Reading::INPUT_PROGRAM
        .validate_bytes(br#"{"sensorId":4,"unit":"kelvin","name":"ab"}"#)
        .is_err());
}
