//! Derived types of another crate nest like local ones: by full path, through a `use`, and a
//! type there that itself nests one of its own crate. `embedded_mcp::McpSchema` names both the
//! trait and the derive.

use embedded_mcp::schema::{compile, Program, Storage};
use embedded_mcp::McpSchema;
use embedded_mcp_macros_fixture::units::Celsius;
use serde::{Deserialize, Serialize};

#[derive(McpSchema, Serialize, Deserialize)]
struct Report {
    reading: embedded_mcp_macros_fixture::units::Reading,
    place: embedded_mcp_macros_fixture::Place,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<Celsius>,
}

/// `Place` and `Celsius` without their own `description` (a field's doc comment takes its place).
const PLACE: &str = r#""type":"object","properties":{"room":{"description":"Room name.","type":"string","minLength":1,"maxLength":12},"floor":{"description":"Floor number.","type":"integer","minimum":-128,"maximum":127}},"required":["room","floor"]"#;
const CELSIUS: &str = r#""type":"number","minimum":-40,"maximum":125"#;

fn same_program(schema: &str, derived: Program<'static>) {
    let mut storage: Box<Storage<256, 1024, 2048>> = Box::new(Storage::new());
    let runtime = compile(schema.as_bytes(), &mut storage).unwrap();
    assert_eq!(runtime.parts(), derived.parts(), "{schema}");
}

#[test]
fn nested_types_of_another_crate_inline_their_schemas() {
    let reading = format!(
        r#"{{"description":"A reading: a temperature at a place (nests a type of this crate's root).","type":"object","properties":{{"place":{{"description":"Where.",{PLACE}}},"value":{{"description":"How warm.",{CELSIUS}}}}},"required":["place","value"]}}"#
    );
    let input = format!(
        r#"{{"type":"object","properties":{{"reading":{reading},"place":{{"description":"Where a reading was taken.",{PLACE}}},"limit":{{"anyOf":[{{"description":"A temperature in degrees Celsius.",{CELSIUS}}},{{"type":"null"}}]}}}},"required":["reading","place"],"additionalProperties":false}}"#
    );
    assert_eq!(Report::INPUT_SCHEMA, input);
    same_program(Report::INPUT_SCHEMA, Report::INPUT_PROGRAM);
    same_program(Report::OUTPUT_SCHEMA, Report::OUTPUT_PROGRAM);
    // The nested type's own schema, as its crate derived it, is the part inlined here.
    assert!(Report::OUTPUT_SCHEMA.contains(
        embedded_mcp_macros_fixture::units::Reading::OUTPUT_SCHEMA
            .trim_start_matches('{')
            .trim_end_matches('}')
    ));
    let ok = br#"{"reading":{"place":{"room":"hall","floor":0},"value":21.5},"place":{"room":"attic","floor":2}}"#;
    assert!(Report::INPUT_PROGRAM.validate_bytes(ok).is_ok());
    let cold = br#"{"reading":{"place":{"room":"hall","floor":0},"value":-41},"place":{"room":"attic","floor":2}}"#;
    assert!(Report::INPUT_PROGRAM.validate_bytes(cold).is_err());
}
