//! Golden schemas, byte for byte (one type per row of the derive's table, then serde's
//! attributes), and the proof that every program the derive emitted is the one the core's
//! compiler makes from the same text at run time.

mod types;

use embedded_mcp::schema::{compile, McpSchema, Program, Storage};
use types::*;

/// Compiles `schema` at run time and compares the program with the derive's, part for part and
/// in its postcard form.
fn same_program(schema: &str, derived: Program<'static>) {
    let mut storage: Box<Storage<256, 1024, 2048>> = Box::new(Storage::new());
    let runtime = compile(schema.as_bytes(), &mut storage).unwrap();
    assert_eq!(runtime.parts(), derived.parts(), "{schema}");
    let (mut a, mut b) = ([0u8; 4096], [0u8; 4096]);
    assert_eq!(
        runtime.to_postcard(&mut a).unwrap(),
        derived.to_postcard(&mut b).unwrap()
    );
}

fn golden<T: McpSchema>(input: &str, output: &str) {
    assert_eq!(T::INPUT_SCHEMA, input);
    assert_eq!(T::OUTPUT_SCHEMA, output);
    same_program(T::INPUT_SCHEMA, T::INPUT_PROGRAM);
    same_program(T::OUTPUT_SCHEMA, T::OUTPUT_PROGRAM);
}

#[test]
fn settings() {
    golden::<Settings>(
        r#"{"description":"Struct with named fields.","type":"object","properties":{"level":{"description":"Brightness level.","type":"integer","minimum":0,"maximum":10},"enabled":{"type":"boolean"}},"required":["level","enabled"],"additionalProperties":false}"#,
        r#"{"description":"Struct with named fields.","type":"object","properties":{"level":{"description":"Brightness level.","type":"integer","minimum":0,"maximum":10},"enabled":{"type":"boolean"}},"required":["level","enabled"]}"#,
    );
}

#[test]
fn celsius() {
    let schema = r#"{"description":"A temperature.","type":"number","minimum":-40,"maximum":125}"#;
    golden::<Celsius>(schema, schema);
}

#[test]
fn mode() {
    let schema = r#"{"description":"Enum of unit variants.","type":"string","enum":["idle","fast_sample","off"]}"#;
    golden::<Mode>(schema, schema);
}

#[test]
fn ints() {
    golden::<Ints>(
        r#"{"description":"Every integer type with its own range, and `bool`.","type":"object","properties":{"a":{"type":"integer","minimum":0,"maximum":255},"b":{"type":"integer","minimum":-128,"maximum":127},"c":{"type":"integer","minimum":0,"maximum":65535},"d":{"type":"integer","minimum":-32768,"maximum":32767},"e":{"type":"integer","minimum":0,"maximum":4294967295},"f":{"type":"integer","minimum":-2147483648,"maximum":2147483647},"g":{"type":"integer","minimum":0,"maximum":18446744073709551615},"h":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"on":{"type":"boolean"}},"required":["a","b","c","d","e","f","g","h","on"],"additionalProperties":false}"#,
        r#"{"description":"Every integer type with its own range, and `bool`.","type":"object","properties":{"a":{"type":"integer","minimum":0,"maximum":255},"b":{"type":"integer","minimum":-128,"maximum":127},"c":{"type":"integer","minimum":0,"maximum":65535},"d":{"type":"integer","minimum":-32768,"maximum":32767},"e":{"type":"integer","minimum":0,"maximum":4294967295},"f":{"type":"integer","minimum":-2147483648,"maximum":2147483647},"g":{"type":"integer","minimum":0,"maximum":18446744073709551615},"h":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},"on":{"type":"boolean"}},"required":["a","b","c","d","e","f","g","h","on"]}"#,
    );
}

#[test]
fn floats() {
    golden::<Floats>(
        r#"{"description":"Numbers with constraints.","type":"object","properties":{"step":{"type":"number","minimum":0,"maximum":3,"multipleOf":0.5},"x":{"type":"number","exclusiveMinimum":-1.5,"exclusiveMaximum":1e3}},"required":["step","x"],"additionalProperties":false}"#,
        r#"{"description":"Numbers with constraints.","type":"object","properties":{"step":{"type":"number","minimum":0,"maximum":3,"multipleOf":0.5},"x":{"type":"number","exclusiveMinimum":-1.5,"exclusiveMaximum":1e3}},"required":["step","x"]}"#,
    );
}

#[test]
fn optional() {
    golden::<Optional>(
        r#"{"description":"Options: not required when read; written as `null` unless skipped.","type":"object","properties":{"a":{"type":["integer","null"],"minimum":0,"maximum":255},"b":{"type":["integer","null"],"minimum":-32768,"maximum":32767}},"additionalProperties":false}"#,
        r#"{"description":"Options: not required when read; written as `null` unless skipped.","type":"object","properties":{"a":{"anyOf":[{"type":"integer","minimum":0,"maximum":255},{"type":"null"}]},"b":{"type":"integer","minimum":-32768,"maximum":32767}},"required":["a"]}"#,
    );
}

#[test]
fn ranges() {
    golden::<Ranges>(
        r#"{"description":"Floats without bounds of their own: the schema states each type's finite range.","type":"object","properties":{"single":{"type":"number","minimum":-3.4028235e38,"maximum":3.4028235e38},"double":{"type":"number","minimum":-1.7976931348623157e308,"maximum":1.7976931348623157e308},"maybe":{"type":["number","null"],"minimum":-3.4028235e38,"maximum":3.4028235e38}},"required":["single","double"],"additionalProperties":false}"#,
        r#"{"description":"Floats without bounds of their own: the schema states each type's finite range.","type":"object","properties":{"single":{"type":"number","minimum":-3.4028235e38,"maximum":3.4028235e38},"double":{"type":"number","minimum":-1.7976931348623157e308,"maximum":1.7976931348623157e308},"maybe":{"anyOf":[{"type":"number","minimum":-3.4028235e38,"maximum":3.4028235e38},{"type":"null"}]}},"required":["single","double","maybe"]}"#,
    );
}

#[test]
fn fixed() {
    golden::<Fixed>(
        r#"{"description":"A fixed-length array.","type":"object","properties":{"xyz":{"type":"array","items":{"type":"integer","minimum":-1000,"maximum":1000},"minItems":3,"maxItems":3}},"required":["xyz"],"additionalProperties":false}"#,
        r#"{"description":"A fixed-length array.","type":"object","properties":{"xyz":{"type":"array","items":{"type":"integer","minimum":-1000,"maximum":1000},"minItems":3,"maxItems":3}},"required":["xyz"]}"#,
    );
}

#[test]
fn bounded() {
    golden::<Bounded>(
        r#"{"description":"A bounded vector.","type":"object","properties":{"samples":{"type":"array","items":{"type":"integer","minimum":0,"maximum":100},"minItems":1,"maxItems":4}},"required":["samples"],"additionalProperties":false}"#,
        r#"{"description":"A bounded vector.","type":"object","properties":{"samples":{"type":"array","items":{"type":"integer","minimum":0,"maximum":100},"minItems":1,"maxItems":4}},"required":["samples"]}"#,
    );
}

#[test]
fn texts() {
    golden::<Texts<'_>>(
        r#"{"description":"Strings.","type":"object","properties":{"borrowed":{"type":"string","minLength":1},"owned":{"type":"string","maxLength":8},"letter":{"type":"string","minLength":1,"maxLength":1}},"required":["borrowed","owned","letter"],"additionalProperties":false}"#,
        r#"{"description":"Strings.","type":"object","properties":{"borrowed":{"type":"string","minLength":1},"owned":{"type":"string","maxLength":8},"letter":{"type":"string","minLength":1,"maxLength":1}},"required":["borrowed","owned","letter"]}"#,
    );
}

#[test]
fn nested() {
    golden::<Nested>(
        r#"{"description":"Nested derived types, inline.","type":"object","properties":{"mode":{"description":"Enum of unit variants.","type":"string","enum":["idle","fast_sample","off"]},"settings":{"description":"Overrides the struct's own description.","type":"object","properties":{"level":{"description":"Brightness level.","type":"integer","minimum":0,"maximum":10},"enabled":{"type":"boolean"}},"required":["level","enabled"]},"temperature":{"description":"A temperature.","type":"number","minimum":-40,"maximum":125},"history":{"type":"array","items":{"description":"Struct with named fields.","type":"object","properties":{"level":{"description":"Brightness level.","type":"integer","minimum":0,"maximum":10},"enabled":{"type":"boolean"}},"required":["level","enabled"]},"maxItems":2}},"required":["mode","settings","temperature","history"],"additionalProperties":false}"#,
        r#"{"description":"Nested derived types, inline.","type":"object","properties":{"mode":{"description":"Enum of unit variants.","type":"string","enum":["idle","fast_sample","off"]},"settings":{"description":"Overrides the struct's own description.","type":"object","properties":{"level":{"description":"Brightness level.","type":"integer","minimum":0,"maximum":10},"enabled":{"type":"boolean"}},"required":["level","enabled"]},"temperature":{"description":"A temperature.","type":"number","minimum":-40,"maximum":125},"history":{"type":"array","items":{"description":"Struct with named fields.","type":"object","properties":{"level":{"description":"Brightness level.","type":"integer","minimum":0,"maximum":10},"enabled":{"type":"boolean"}},"required":["level","enabled"]},"maxItems":2}},"required":["mode","settings","temperature","history"]}"#,
    );
}

#[test]
fn attributes() {
    golden::<Attributes>(
        r#"{"description":"serde's renames, defaults and skips.","type":"object","properties":{"ID":{"type":"integer","minimum":0,"maximum":255},"sample-count":{"type":"integer","minimum":0,"maximum":65535,"default":0},"gain-db":{"title":"Gain","description":"Amplifier gain.","type":"integer","minimum":0,"maximum":255,"default":1,"examples":[1,2]},"write-only":{"type":"boolean"}},"required":["ID","write-only"],"additionalProperties":false}"#,
        r#"{"description":"serde's renames, defaults and skips.","type":"object","properties":{"ID":{"type":"integer","minimum":0,"maximum":255},"sample-count":{"type":"integer","minimum":0,"maximum":65535},"gain-db":{"title":"Gain","description":"Amplifier gain.","type":"integer","minimum":0,"maximum":255,"examples":[1,2]}},"required":["ID","sample-count","gain-db"]}"#,
    );
}

#[test]
fn open() {
    let schema = r#"{"description":"Kept open for extra properties.","type":"object","properties":{"x":{"type":"integer","minimum":0,"maximum":255}},"required":["x"]}"#;
    golden::<Open>(schema, schema);
}

#[test]
fn strict() {
    golden::<Strict>(
        r#"{"description":"Closed at every level, as serde is.","type":"object","properties":{"inner":{"description":"Closed too.","type":"object","properties":{"y":{"type":"boolean"}},"required":["y"],"additionalProperties":false}},"required":["inner"],"additionalProperties":false}"#,
        r#"{"description":"Closed at every level, as serde is.","type":"object","properties":{"inner":{"description":"Closed too.","type":"object","properties":{"y":{"type":"boolean"}},"required":["y"]}},"required":["inner"]}"#,
    );
}

#[test]
fn routed_fields_carry_x_mcp_header_on_the_input_side_only() {
    golden::<Routed>(
        r#"{"description":"Where a call goes, mirrored in `Mcp-Param-*` headers (2026-07-28 `x-mcp-header`).","type":"object","properties":{"region":{"description":"The cloud region.","type":"string","maxLength":16,"x-mcp-header":"Region"},"priority":{"type":"integer","minimum":0,"maximum":9,"x-mcp-header":"Priority"},"dry_run":{"type":"boolean","x-mcp-header":"Dry-Run"},"target":{"description":"A nested object whose marked field is reached through `properties` alone.","type":"object","properties":{"zone":{"type":"string","maxLength":8,"x-mcp-header":"Zone"}},"required":["zone"]},"note":{"description":"Not mirrored.","type":"string","maxLength":32}},"required":["region","priority","target","note"],"additionalProperties":false}"#,
        r#"{"description":"Where a call goes, mirrored in `Mcp-Param-*` headers (2026-07-28 `x-mcp-header`).","type":"object","properties":{"region":{"description":"The cloud region.","type":"string","maxLength":16},"priority":{"type":"integer","minimum":0,"maximum":9},"dry_run":{"anyOf":[{"type":"boolean"},{"type":"null"}]},"target":{"description":"A nested object whose marked field is reached through `properties` alone.","type":"object","properties":{"zone":{"type":"string","maxLength":8}},"required":["zone"]},"note":{"description":"Not mirrored.","type":"string","maxLength":32}},"required":["region","priority","dry_run","target","note"]}"#,
    );
}
