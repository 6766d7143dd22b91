//! `embedded-mcp schema derive`: prints the schemas `#[derive(McpSchema)]` makes, byte for byte
//! (golden texts, and the same texts as the derive compiled into this test), with nested types
//! of the same file; exit 2 for a missing type, a refused one or an unreadable file.

use std::process::Command;

use embedded_mcp::schema::McpSchema;

mod readings {
    #![allow(dead_code)]
    include!("../derive/readings.rs");
}

const CLI: &str = env!("CARGO_BIN_EXE_embedded-mcp-under-test");
const READINGS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/derive/readings.rs");
const HOST_SENSORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../examples/host-sensors/src/main.rs"
);

/// Exit code, stdout, stderr.
fn derive(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(CLI)
        .args(["schema", "derive"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn prints_what_the_derive_compiles_with_nested_types() {
    let input = r#"{"description":"A set of readings.","type":"object","properties":{"place":{"description":"Where a reading was taken.","type":"object","properties":{"roomName":{"description":"Room name.","type":"string","minLength":1,"maxLength":12},"floor":{"type":"integer","minimum":-128,"maximum":127}},"required":["roomName","floor"]},"method":{"description":"How the value was measured.","type":"string","enum":["thermistor","on_die"]},"values":{"description":"The last three values.","type":"array","items":{"type":"number","minimum":-40,"maximum":125},"minItems":3,"maxItems":3},"note":{"type":["string","null"]}},"required":["place","method","values"],"additionalProperties":false}"#;
    assert_eq!(readings::Report::INPUT_SCHEMA, input);
    assert_eq!(
        derive(&[READINGS, "Report"]),
        (0, format!("{input}\n"), String::new())
    );
    let output = derive(&[READINGS, "Report", "--output"]);
    assert_eq!(
        output,
        (
            0,
            format!("{}\n", readings::Report::OUTPUT_SCHEMA),
            String::new()
        )
    );
    assert!(output
        .1
        .ends_with("\"required\":[\"place\",\"method\",\"values\"]}\n"));
    assert_eq!(
        derive(&["--output", READINGS, "Method"]).1,
        format!("{}\n", readings::units::Method::OUTPUT_SCHEMA)
    );
}

/// `examples/host-sensors` derives its tools' schemas: the CLI shows them from its source.
#[test]
fn prints_the_host_sensors_schemas() {
    assert_eq!(
        derive(&[HOST_SENSORS, "HistoryArgs"]).1,
        "{\"type\":\"object\",\"properties\":{\"sensor\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":3,\"default\":0},\"count\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":16}},\"required\":[\"count\"]}\n"
    );
    assert_eq!(
        derive(&[HOST_SENSORS, "History", "--output"]).1,
        "{\"type\":\"array\",\"items\":{\"type\":\"number\"},\"maxItems\":16}\n"
    );
}

#[test]
fn refusals_exit_2_with_the_reason() {
    let (code, out, err) = derive(&[READINGS, "Missing"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.ends_with("no struct or enum named `Missing` in the file (nested types must be defined in the same file)\n"), "{err}");
    let dir = std::env::temp_dir().join(format!("subset-cli-derive-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let refused = dir.join("refused.rs");
    std::fs::write(
        &refused,
        "struct S {\n    #[mcp(maximum = 300)]\n    level: u8,\n}\n",
    )
    .unwrap();
    let (code, _, err) = derive(&[refused.to_str().unwrap(), "S"]);
    assert_eq!(code, 2);
    assert!(
        err.contains(": line 2: ") && err.contains("maximum"),
        "{err}"
    );
    assert_eq!(derive(&["/nonexistent/file.rs", "S"]).0, 2);
    assert_eq!(derive(&[READINGS]).0, 2);
}
