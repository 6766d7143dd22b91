//! `embedded-mcp tools` and `embedded-mcp call` against the scripted device process: the table,
//! both result channels, the validation verdict, `--json`, both protocol eras and the exit codes
//! (0 ok, 1 tool error or invalid result, 2 usage or transport error).
#![cfg(unix)]

use std::process::{Command, Output, Stdio};

const CLI: &str = env!("CARGO_BIN_EXE_embedded-mcp-under-test");
const DEVICE: &str = env!("CARGO_BIN_EXE_bridge-fake-device");

fn run(args: &[&str]) -> Output {
    Command::new(CLI)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run embedded-mcp")
}

fn on_device(command: &str, rest: &[&str]) -> Output {
    let mut args = vec![command, "--command", DEVICE];
    args.extend_from_slice(rest);
    run(&args)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn tools_prints_the_table_with_hint_defaults_and_schema_summaries() {
    let o = on_device("tools", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..6],
        [
            "fake-device 1.0.0, protocol 2025-11-25: 12 tools",
            "",
            "NAME           TITLE             READ-ONLY  DESTRUCTIVE  IDEMPOTENT  OPEN-WORLD",
            "read_temp      Read temperature  yes        (yes*)       (no*)       no",
            "bad_temp       -                 yes        (yes*)       (no*)       no",
            "wrong_type     -                 no*        yes*         no*         yes*",
        ]
    );
    assert!(text.contains(
        "* not declared by the tool: the spec's default is shown (read-only no, destructive yes, idempotent no, open-world yes)\n"
    ));
    assert!(text.contains(
        "\nread_temp\n  Temperature of sensor t0.\n  input:  {}\n  output: {celsius: number -40..125, sensor: string}\n"
    ));
    assert!(text.contains(
        "\necho\n  input:  {n?: integer, s?: string}\n  output: {n?: integer, s?: string}\n"
    ));
    assert!(text.contains("\nhang\n  input:  {}\n  output: none declared\n"));
}

#[test]
fn tools_json_prints_every_page() {
    let o = on_device("tools", &["--json"]);
    assert_eq!(o.status.code(), Some(0));
    let tools: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(tools.as_array().map(Vec::len), Some(12));
}

#[test]
fn call_prints_both_channels_and_the_verdict() {
    let o = on_device("call", &["read_temp"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "text:\n  {\"celsius\":21.50,\"sensor\":\"t0\"}\nstructured:\n  {\n    \"celsius\": 21.5,\n    \"sensor\": \"t0\"\n  }\n\
         verdict: valid: structuredContent conforms to the outputSchema of `read_temp`\n"
    );
    // The same in the 2026-07-28 era (server/discover, per-request _meta, no handshake).
    let modern = on_device("call", &["--protocol", "2026-07-28", "read_temp"]);
    assert_eq!(modern.status.code(), Some(0), "{}", stderr(&modern));
    assert_eq!(stdout(&modern), stdout(&o));
}

#[test]
fn invalid_results_and_tool_errors_exit_1() {
    let o = on_device("call", &["bad_temp"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).ends_with(
        "verdict: INVALID: at /structuredContent/celsius: 999 is greater than the maximum of 125 [maximum at schema /properties/celsius/maximum]\n"
    ));
    let o = on_device("call", &["tool_error"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "text:\n  sensor t0 not responding\nstructured:\n  (none)\nverdict: tool error (isError: true); not validated\n"
    );
}

#[test]
fn call_json_prints_the_raw_result_and_parses_key_values() {
    let o = on_device("call", &["--json", "echo", "n=5", "s=hi"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"n\\\":5,\\\"s\\\":\\\"hi\\\"}\"}],\"structuredContent\":{\"n\":5,\"s\":\"hi\"}}\n"
    );
    assert!(stderr(&o).contains("verdict: valid"));
    // Raw bytes: the device's spelling of numbers and escapes is kept.
    let o = on_device("call", &["--json", "read_temp"]);
    assert!(stdout(&o).contains(r#""structuredContent":{"celsius":21.50,"sensor":"t\u0030"}"#));
}

#[test]
fn usage_and_transport_errors_exit_2() {
    let unknown = on_device("call", &["no_such_tool"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("`tools/call` failed: error -32602: Unknown tool: no_such_tool")
    );
    let absent = run(&["tools", "--unix", "/nonexistent/embedded-mcp.sock"]);
    assert_eq!(absent.status.code(), Some(2));
    assert!(stderr(&absent).contains("connecting to /nonexistent/embedded-mcp.sock"));
    let silent = run(&[
        "call",
        "--timeout-ms",
        "300",
        "--command",
        &format!("{DEVICE} --silent"),
        "read_temp",
    ]);
    assert_eq!(silent.status.code(), Some(2));
    assert!(
        stderr(&silent).contains("no answer to `initialize` within 300 ms"),
        "{}",
        stderr(&silent)
    );
    for args in [
        vec!["call", "--command", DEVICE],
        vec!["call", "read_temp"],
        vec!["call", "--command", DEVICE, "echo", "novalue"],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty());
    }
    let missing = run(&["tools", "--qemu", "/nonexistent/firmware.elf"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("firmware /nonexistent/firmware.elf not found"));
}

#[test]
fn a_qemu_file_that_is_not_an_elf_is_refused_at_once_by_name() {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let start = std::time::Instant::now();
    let o = run(&["tools", "--qemu", manifest]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "{manifest} is not an ELF file: --qemu takes the firmware's ELF image"
        )),
        "{}",
        stderr(&o)
    );
    // Refused before QEMU starts, not after the handshake's 10 s timeout.
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}
