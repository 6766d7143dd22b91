//! The `embedded-mcp` command line on clap: help for every subcommand, clap's usage errors with
//! suggestions (exit 2), shell completions, and the logs: stderr only, `-v`/`-vv`, and
//! `RUST_LOG` winning when set.
#![cfg(unix)]

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

use serde_json::Value;

const CLI: &str = env!("CARGO_BIN_EXE_embedded-mcp-under-test");
const DEVICE: &str = env!("CARGO_BIN_EXE_bridge-fake-device");
const BRIDGE_MD: &str = include_str!("../../std-adapter/BRIDGE.md");

fn run(args: &[&str]) -> Output {
    Command::new(CLI)
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("run embedded-mcp")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn every_subcommand_has_clap_help_on_stdout_with_exit_0() {
    let top = run(&["--help"]);
    assert_eq!(top.status.code(), Some(0));
    let top_text = text(&top.stdout);
    assert!(
        top_text.contains("Usage: embedded-mcp <COMMAND>"),
        "{top_text}"
    );
    for subcommand in ["schema", "tools", "call", "bridge", "completions"] {
        assert!(
            top_text.contains(&format!("\n  {subcommand} ")),
            "{subcommand} missing from --help:\n{top_text}"
        );
    }
    for line in [
        &["tools", "--help"][..],
        &["call", "-h"],
        &["bridge", "--help"],
        &["completions", "--help"],
        &["schema", "--help"],
        &["schema", "check", "--help"],
        &["schema", "compile", "--help"],
        &["schema", "validate", "--help"],
        &["schema", "derive", "--help"],
        &["help", "bridge"],
    ] {
        let o = run(line);
        assert_eq!(o.status.code(), Some(0), "{line:?}");
        assert!(o.stderr.is_empty(), "{line:?}: {}", text(&o.stderr));
        let usage = format!(
            "Usage: embedded-mcp {}",
            line.iter()
                .filter(|w| !w.starts_with('-') && **w != "help")
                .copied()
                .collect::<Vec<_>>()
                .join(" ")
        );
        assert!(
            text(&o.stdout).contains(&usage),
            "{line:?}: {}",
            text(&o.stdout)
        );
    }
    let version = run(&["--version"]);
    assert_eq!(
        text(&version.stdout),
        format!("embedded-mcp {}\n", env!("CARGO_PKG_VERSION"))
    );
}

/// The help the binary prints is the one BRIDGE.md quotes.
#[test]
fn bridge_md_quotes_the_binary_help() {
    for subcommand in ["bridge", "call"] {
        let help = text(&run(&[subcommand, "--help"]).stdout);
        let block = format!("```text\n$ embedded-mcp {subcommand} --help\n{help}```");
        assert!(BRIDGE_MD.contains(&block), "BRIDGE.md lacks:\n{block}");
    }
}

#[test]
fn mistyped_options_and_commands_get_clap_errors_with_a_suggestion() {
    for (line, tip) in [
        (
            &["tools", "--comand", DEVICE][..],
            "tip: a similar argument exists: '--command'",
        ),
        (
            &["bridge", "--command", DEVICE, "--timout-ms", "5"],
            "tip: a similar argument exists: '--timeout-ms'",
        ),
        (&["brige"], "tip: a similar subcommand exists: 'bridge'"),
        (
            &["schema", "valdate"],
            "tip: a similar subcommand exists: 'validate'",
        ),
    ] {
        let o = run(line);
        assert_eq!(o.status.code(), Some(2), "{line:?}");
        assert!(o.stdout.is_empty(), "{line:?}");
        let stderr = text(&o.stderr);
        assert!(stderr.starts_with("error: "), "{line:?}: {stderr}");
        assert!(stderr.contains(tip), "{line:?}: {stderr}");
    }
    // No command at all: the help, on stderr, exit 2.
    let bare = run(&[]);
    assert_eq!(bare.status.code(), Some(2));
    assert!(bare.stdout.is_empty());
    assert!(text(&bare.stderr).contains("Usage: embedded-mcp <COMMAND>"));
}

#[test]
fn completions_for_bash_zsh_and_fish_name_every_subcommand() {
    for (shell, marker) in [
        ("bash", "complete -F _embedded__mcp"),
        ("zsh", "#compdef embedded-mcp"),
        ("fish", "complete -c embedded-mcp"),
    ] {
        let o = run(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", text(&o.stderr));
        assert!(o.stderr.is_empty(), "{shell}");
        let script = text(&o.stdout);
        assert!(script.contains(marker), "{shell}: no {marker:?}");
        for word in [
            "schema",
            "tools",
            "call",
            "bridge",
            "completions",
            "validate",
            "timeout-ms",
            "on-invalid",
            "allowed-origin",
        ] {
            assert!(script.contains(word), "{shell} completions lack {word}");
        }
    }
    let o = run(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("invalid value 'tcsh'"));
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const LIST: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;

/// Runs `bridge --command "DEVICE --banner" EXTRA...` with `rust_log` as `RUST_LOG` (unset when
/// `None`), sends the handshake and one `tools/list`, closes stdin and waits (at most 20 s).
fn bridge_session(extra: &[&str], rust_log: Option<&str>) -> Output {
    let mut command = Command::new(CLI);
    command
        .args(["bridge", "--command", &format!("{DEVICE} --banner")])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match rust_log {
        Some(filter) => command.env("RUST_LOG", filter),
        None => command.env_remove("RUST_LOG"),
    };
    let mut child = command.spawn().expect("start the bridge");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(format!("{INITIALIZE}\n{INITIALIZED}\n{LIST}\n").as_bytes())
        .expect("write");
    drop(stdin);
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(output) => output.expect("wait"),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("the bridge did not finish within 20 s");
        }
    }
}

/// Stdout is the two answers and nothing else, whatever the logs.
fn assert_only_mcp_on_stdout(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    let ids: Vec<Value> = stdout
        .lines()
        .map(|line| {
            let message: Value = serde_json::from_str(line).expect("a JSON-RPC line");
            assert_eq!(message["jsonrpc"], "2.0", "{line}");
            assert!(message.get("result").is_some(), "{line}");
            message["id"].clone()
        })
        .collect();
    assert_eq!(ids, [1, 2], "{stdout}");
}

const GARBLED: &str =
    "embedded-mcp bridge: warning: skipped a garbled line from the device: fake device booting";

#[test]
fn logs_go_to_stderr_at_the_verbosity_asked() {
    let quiet = bridge_session(&[], None);
    assert_only_mcp_on_stdout(&quiet);
    let stderr = text(&quiet.stderr);
    assert!(stderr.contains(GARBLED), "{stderr}");
    assert!(
        !stderr.contains(": info: ") && !stderr.contains(": trace: "),
        "{stderr}"
    );

    let verbose = bridge_session(&["-v"], None);
    assert_only_mcp_on_stdout(&verbose);
    let stderr = text(&verbose.stderr);
    assert!(stderr.contains("embedded-mcp bridge: info: "), "{stderr}");
    assert!(!stderr.contains(": trace: "), "{stderr}");

    let chatty = bridge_session(&["-vv"], None);
    assert_only_mcp_on_stdout(&chatty);
    let stderr = text(&chatty.stderr);
    assert!(stderr.contains("embedded-mcp bridge: info: "), "{stderr}");
    assert!(stderr.contains("embedded-mcp bridge: trace: "), "{stderr}");
    // Every line of stderr is a log line of the bridge.
    for line in stderr.lines() {
        assert!(line.starts_with("embedded-mcp bridge: "), "{line}");
    }
}

#[test]
fn rust_log_wins_over_the_verbosity_when_set() {
    // Trace lines without -v.
    let traced = bridge_session(&[], Some("embedded_mcp=trace"));
    assert_only_mcp_on_stdout(&traced);
    let stderr = text(&traced.stderr);
    assert!(stderr.contains("embedded-mcp bridge: trace: "), "{stderr}");
    assert!(stderr.contains(GARBLED), "{stderr}");
    // Nothing at all, even with -vv and a warning to give.
    let silenced = bridge_session(&["-vv"], Some("off"));
    assert_only_mcp_on_stdout(&silenced);
    assert_eq!(text(&silenced.stderr), "");
    // Warnings only, with -vv.
    let warnings = bridge_session(&["-vv"], Some("warn"));
    assert_only_mcp_on_stdout(&warnings);
    let stderr = text(&warnings.stderr);
    assert!(stderr.contains(GARBLED), "{stderr}");
    for line in stderr.lines() {
        assert!(line.starts_with("embedded-mcp bridge: warning: "), "{line}");
    }
    // An empty RUST_LOG is as if unset: -v decides.
    let empty = bridge_session(&["-v"], Some(""));
    let stderr = text(&empty.stderr);
    assert!(
        stderr.contains(": info: ") && !stderr.contains(": trace: "),
        "{stderr}"
    );
}
