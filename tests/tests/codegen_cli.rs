//! `embedded-mcp codegen`: from a file and from a live device (the scripted fake device as a
//! `--command` child) it writes exactly the golden modules; bad input is a clear error, exit 2.
#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

const CLI: &str = env!("CARGO_BIN_EXE_embedded-mcp-under-test");
const DEVICE: &str = env!("CARGO_BIN_EXE_bridge-fake-device");

fn run(args: &[&str]) -> Output {
    Command::new(CLI)
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("run embedded-mcp")
}

fn codegen_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/codegen"))
}

fn golden(name: &str) -> String {
    std::fs::read_to_string(codegen_dir().join("golden").join(name)).expect("golden")
}

#[test]
fn a_live_device_gives_the_golden_module_in_each_language() {
    for (lang, file) in [
        ("ts", "fake_device.ts"),
        ("python", "fake_device.py"),
        ("rust", "fake_device.rs"),
    ] {
        let out = run(&["codegen", "--lang", lang, "--command", DEVICE]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The device names itself; the golden's header has the name the test gave it.
        let text = String::from_utf8(out.stdout).expect("utf-8");
        let header = |t: &str| t.lines().next().map(str::to_owned).unwrap_or_default();
        let body = |t: &str| t.lines().skip(1).collect::<Vec<_>>().join("\n");
        assert_eq!(body(&text), body(&golden(file)), "{lang}");
        assert!(
            header(&text).contains("the device fake-device"),
            "{}",
            header(&text)
        );
    }
}

#[test]
fn from_a_file_with_output_path() {
    let capture: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(codegen_dir().join("listings/qemu-sensors-2026-07-28.json"))
            .unwrap(),
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("codegen-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let listing = dir.join("tools.json");
    // A list of pages, as a paging device answers.
    let tools = capture["listing"]["tools"].as_array().unwrap();
    let pages = serde_json::json!([{"tools": tools[..2]}, {"tools": tools[2..]}]);
    std::fs::write(&listing, pages.to_string()).unwrap();
    let module = dir.join("tools.rs");
    let out = run(&[
        "codegen",
        "--lang",
        "rust",
        "--from",
        listing.to_str().unwrap(),
        "--protocol",
        "2026-07-28",
        "-o",
        module.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let written = std::fs::read_to_string(&module).unwrap();
    let expected = golden("qemu_sensors_2026_07_28.rs").replacen(
        "the device qemu-sensors 0.1.0 (QEMU sensor board)",
        "a device (serverInfo unknown)",
        1,
    );
    assert_eq!(written, expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_a_clear_error_with_exit_2() {
    let dir = std::env::temp_dir().join(format!("codegen-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        ("not json", "expected"),
        (r#"{"tool": []}"#, "not a tools/list result"),
        (
            r#"[{"name": "a", "inputSchema": {"type": "object"}}, {"name": "a", "inputSchema": {}}]"#,
            "tool 1: `a` is listed twice",
        ),
        (
            r#"[{"name": "a"}]"#,
            "tool 0: `a` has no object `inputSchema`",
        ),
    ];
    for (i, (text, message)) in cases.iter().enumerate() {
        let path = dir.join(format!("{i}.json"));
        std::fs::write(&path, text).unwrap();
        let out = run(&["codegen", "--lang", "ts", "--from", path.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(stderr.contains(message), "{text}: {stderr}");
        assert!(out.stdout.is_empty());
    }
    let missing = run(&[
        "codegen",
        "--lang",
        "ts",
        "--from",
        "/nonexistent/tools.json",
    ]);
    assert_eq!(missing.status.code(), Some(2));
    for line in [
        &["codegen", "--lang", "go", "--from", "x"][..],
        &["codegen", "--lang", "ts"],
        &["codegen", "--lang", "ts", "--from", "x", "--tcp", "h:1"],
    ] {
        assert_eq!(run(line).status.code(), Some(2), "{line:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
