//! The derived `FromJson` reads what serde's derive reads, and fails where it fails with the
//! same error (kind and offset), over the same checked `Value`.

use embedded_mcp::json::{from_value, from_value_json, FromJson, Value};
use embedded_mcp::McpSchema;
use serde::Deserialize;

#[derive(McpSchema, Deserialize, Debug, PartialEq, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Led {
    Red,
    #[serde(rename = "GRN")]
    Green,
    #[serde(skip_deserializing)]
    #[allow(dead_code)]
    Blue,
}

#[derive(McpSchema, Deserialize, Debug, PartialEq)]
struct Percent(u8);

#[derive(McpSchema, Deserialize, Debug, PartialEq)]
#[serde(transparent)]
struct Level {
    v: i16,
}

fn seven() -> u32 {
    7
}

#[derive(McpSchema, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Args<'a> {
    led_name: Led,
    level: Percent,
    #[serde(rename = "lv")]
    signed: Level,
    #[serde(default)]
    count: u64,
    #[serde(default = "seven")]
    seven: u32,
    maybe: Option<i8>,
    label: &'a str,
    #[serde(skip_deserializing)]
    skipped: u8,
    flag: bool,
    /// Read by serde (no `FromJson` for floats).
    ratio: f32,
    nested: Option<Inner>,
}

#[derive(McpSchema, Deserialize, Debug, PartialEq, Default)]
#[serde(default, deny_unknown_fields)]
struct Inner {
    a: u16,
    #[serde(default = "seven")]
    b: u32,
}

fn both<'a, T>(json: &'a str, s1: &'a mut [u8], s2: &'a mut [u8])
where
    T: FromJson<'a> + Deserialize<'a> + PartialEq + std::fmt::Debug,
{
    let v = Value::parse(json.as_bytes()).unwrap();
    let ours = from_value_json::<T>(v, s1);
    let serdes = from_value::<T>(v, s2);
    assert_eq!(ours, serdes, "{json}");
}

macro_rules! same {
    ($t:ty, $json:expr) => {{
        let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
        both::<$t>($json, &mut a, &mut b);
        let (mut a, mut b) = ([0u8; 2], [0u8; 2]);
        both::<$t>($json, &mut a, &mut b);
    }};
}

#[test]
fn same_values_and_errors_as_serde() {
    let full = r#"{"ledName":"red","level":40,"lv":-3,"count":5,"seven":1,"maybe":null,"label":"a\"b","skipped":9,"flag":true,"ratio":0.5,"nested":{"a":1}}"#;
    same!(Args, full);
    same!(
        Args,
        r#"{"ledName":"GRN","level":4e1,"lv":2,"label":"x","flag":false,"ratio":1}"#
    );
    same!(
        Args,
        r#"{"ledName":"gr\u0065en","level":1,"lv":2,"label":"x","flag":false,"ratio":1,"other":[1,{"x":2}]}"#
    );
    same!(
        Args,
        r#"{"ledName":"GR\u004e","level":1,"lv":2,"label":"\u0078","flag":false,"ratio":1,"nested":{}}"#
    );
    // Errors.
    same!(
        Args,
        r#"{"ledName":"blue","level":1,"lv":2,"label":"x","flag":false,"ratio":1}"#
    );
    same!(
        Args,
        r#"{"ledName":3,"level":1,"lv":2,"label":"x","flag":false,"ratio":1}"#
    );
    same!(
        Args,
        r#"{"ledName":"red","level":300,"lv":2,"label":"x","flag":false,"ratio":1}"#
    );
    same!(
        Args,
        r#"{"ledName":"red","level":-1,"lv":2,"label":"x","flag":false,"ratio":1}"#
    );
    same!(
        Args,
        r#"{"ledName":"red","level":1.5,"lv":2,"label":"x","flag":false,"ratio":1}"#
    );
    same!(
        Args,
        r#"{"ledName":"red","level":1,"lv":40000,"label":"x","flag":false,"ratio":1}"#
    );
    same!(
        Args,
        r#"{"ledName":"red","level":1,"lv":2,"label":"x","flag":false}"#
    );
    same!(
        Args,
        r#"{"level":1,"lv":2,"label":"x","flag":false,"ratio":1}"#
    );
    same!(
        Args,
        r#"{"ledName":"red","ledName":"red","level":1,"lv":2,"label":"x","flag":false,"ratio":1}"#
    );
    same!(
        Args,
        r#"{"ledName":"red","level":1,"lv":2,"label":5,"flag":false,"ratio":1}"#
    );
    same!(
        Args,
        r#"{"ledName":"red","level":1,"lv":2,"label":"x","flag":1,"ratio":1}"#
    );
    same!(
        Args,
        r#"{"ledName":"red","level":1,"lv":2,"label":"x","flag":true,"ratio":1,"nested":{"a":1,"zz":2}}"#
    );
    same!(
        Args,
        r#"{"ledName":"red","level":1,"lv":2,"label":"x","flag":true,"ratio":1,"nested":{"a":"1"}}"#
    );
    same!(
        Args,
        r#"{"ledName":"red","level":1,"lv":2,"label":"\u0078\u0078\u0078","flag":true,"ratio":1}"#
    );
    same!(Args, r#"[1]"#);
    same!(Inner, r#"{}"#);
    same!(Inner, r#"{"b":3}"#);
    same!(Led, r#""red""#);
    same!(Led, r#""Blue""#);
    same!(Percent, "7");
    same!(Level, "-7");
}

#[test]
fn integers_at_their_limits_as_serde() {
    for json in [
        "0",
        "-0",
        "1e2",
        "1.0",
        "5e-1",
        "-1",
        "127",
        "128",
        "-128",
        "-129",
        "255",
        "256",
        "65535",
        "65536",
        "-32768",
        "-32769",
        "4294967295",
        "4294967296",
        "-2147483648",
        "-2147483649",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "1e19",
        "1e20",
        "\"1\"",
        "true",
        "null",
    ] {
        same!(u8, json);
        same!(u16, json);
        same!(u32, json);
        same!(u64, json);
        same!(i8, json);
        same!(i16, json);
        same!(i32, json);
        same!(i64, json);
        same!(Option<i8>, json);
        same!(bool, json);
    }
}
