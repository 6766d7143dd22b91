//! `embedded-mcp schema check|compile|validate`: exit codes and the written program, run
//! in-process through `embedded_mcp_std::cli::main`.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use embedded_mcp::schema::{Program, Storage};
use embedded_mcp_std::cli;

fn run(args: &[&str]) -> i32 {
    cli::main(args.iter().map(OsString::from).collect())
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("subset-cli-{}-{name}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

const SCHEMA: &str = r#"{"type":"object","properties":{"level":{"type":"integer","maximum":10}},
    "required":["level"],"additionalProperties":false}"#;

#[test]
fn check_reports_fit_and_refusals() {
    let dir = scratch_dir("check");
    let good = write(&dir, "good.json", SCHEMA);
    let refused = write(
        &dir,
        "refused.json",
        r##"{"properties":{"a":{"$ref":"https://example.com/a"},"b":{"pattern":"\\p{L}"}}}"##,
    );
    let broken = write(&dir, "broken.json", "{\"type\":");
    assert_eq!(run(&["schema", "check", &good]), 0);
    assert_eq!(run(&["schema", "check", &refused]), 1);
    assert_eq!(run(&["schema", "check", &broken]), 2);
    assert_eq!(run(&["schema", "check", "/nonexistent/schema.json"]), 2);
    assert_eq!(run(&["schema", "check"]), 2);
}

#[test]
fn compile_writes_a_program_that_loads() {
    let dir = scratch_dir("compile");
    let schema = write(&dir, "s.json", SCHEMA);
    let out = dir.join("p.bin");
    let out_s = out.to_string_lossy().into_owned();
    assert_eq!(run(&["schema", "compile", &schema, "-o", &out_s]), 0);
    let bytes = fs::read(&out).unwrap();
    assert_eq!(&bytes[..4], b"EMSP");
    let mut storage = Box::new(Storage::<16, 64, 64>::new());
    let program = Program::from_postcard(&bytes, &mut storage).unwrap();
    assert!(program.is_object_schema());
    assert!(program.validate_bytes(br#"{"level":3}"#).is_ok());
    assert_eq!(
        program
            .validate_bytes(br#"{"level":11}"#)
            .unwrap_err()
            .to_string(),
        "/level: 11 is greater than the maximum 10"
    );
    // A refused schema writes nothing.
    let refused = write(&dir, "r.json", r##"{"$dynamicRef":"#x"}"##);
    let out2 = dir.join("r.bin").to_string_lossy().into_owned();
    assert_eq!(run(&["schema", "compile", &refused, "-o", &out2]), 2);
    assert!(!dir.join("r.bin").exists());
}

#[test]
fn validate_exit_codes_for_both_engines() {
    let dir = scratch_dir("validate");
    let schema = write(&dir, "s.json", SCHEMA);
    let valid = write(&dir, "v.json", r#"{"level": 7}"#);
    let invalid = write(&dir, "i.json", r#"{"level": 12}"#);
    let not_json = write(&dir, "n.json", r#"{"level": "#);
    let refused = write(
        &dir,
        "r.json",
        r#"{"$schema":"http://json-schema.org/draft-07/schema#"}"#,
    );
    for engine in ["core", "full"] {
        assert_eq!(
            run(&["schema", "validate", &schema, &valid, "--engine", engine]),
            0,
            "{engine}"
        );
        assert_eq!(
            run(&["schema", "validate", &schema, &invalid, "--engine", engine]),
            1,
            "{engine}"
        );
        assert_eq!(
            run(&["schema", "validate", &schema, &not_json, "--engine", engine]),
            2,
            "{engine}"
        );
    }
    // The default engine is the core; a schema outside its dialect is exit 2 there.
    assert_eq!(run(&["schema", "validate", &schema, &invalid]), 1);
    assert_eq!(run(&["schema", "validate", &refused, &valid]), 2);
    assert_eq!(
        run(&["schema", "validate", &schema, &valid, "--engine", "other"]),
        2
    );
}
