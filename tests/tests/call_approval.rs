//! `embedded-mcp call` on a tool that asks a person first (`set_relay` of the qemu-sensors
//! firmware, `confirm = …`): on a pseudo-terminal it shows the device's question and reads `y`
//! (the relay switches) or `n` (it does not); `--yes` approves without a terminal; with neither,
//! it exits 1 and names `--yes`. Each run boots the firmware under QEMU for one call.
#![cfg(unix)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use embedded_mcp_tests::qemu::{build_firmware, ensure_qemu, Board};
use serialport::SerialPort;

const CLI: &str = env!("CARGO_BIN_EXE_embedded-mcp-under-test");

fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        ensure_qemu().unwrap_or_else(|e| panic!("{e}"));
        let dir = embedded_mcp_tests::project_root()
            .join("examples")
            .join("qemu-sensors");
        build_firmware(&dir, Board::Lm3s6965evb.rust_target()).unwrap_or_else(|e| panic!("{e}"))
    })
}

/// `call --qemu FIRMWARE [extra] set_relay relay=1 on=true`, stdin from `stdin`.
fn call(extra: &[&str], stdin: Stdio) -> Output {
    Command::new(CLI)
        .args(["call", "--qemu"])
        .arg(firmware())
        .args(extra)
        .args(["set_relay", "relay=1", "on=true"])
        .stdin(stdin)
        .output()
        .expect("the CLI runs")
}

/// The call with a pseudo-terminal as stdin, on which `typed` was typed.
fn call_on_a_terminal(typed: &str) -> Output {
    let (mut master, slave) = serialport::TTYPort::pair().expect("a pty pair");
    let path = slave.name().expect("the pty has a name");
    let terminal = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .expect("the pty opens");
    master.write_all(typed.as_bytes()).unwrap();
    master.flush().unwrap();
    let output = call(&[], Stdio::from(terminal));
    drop(slave);
    output
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn yes_on_a_terminal_switches_the_relay() {
    let out = call_on_a_terminal("y\n");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    // The firmware's own log lines (QEMU's stderr) may come between these.
    assert!(
        stderr.contains("The device asks: Switch relay 1 on?\n"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("Approve? [y/n] ").count(), 1, "{stderr}");
    assert!(
        stdout.starts_with("text:\n  {\"relay\":1,\"on\":true,\"wasOn\":false}\n"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with(
            "verdict: valid: structuredContent conforms to the outputSchema of `set_relay`\n"
        ),
        "{stdout}"
    );
}

#[test]
fn no_on_a_terminal_leaves_the_relay_alone() {
    let out = call_on_a_terminal("maybe\nn\n");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    // Asked again after an answer that is neither y nor n.
    assert!(stderr.contains("answer y or n\n"), "{stderr}");
    assert_eq!(stderr.matches("Approve? [y/n] ").count(), 2, "{stderr}");
    assert!(stdout.contains("did not act"), "{stdout}");
    assert!(
        stdout.ends_with("verdict: tool error (isError: true); not validated\n"),
        "{stdout}"
    );
}

#[test]
fn yes_approves_without_a_terminal() {
    let out = call(&["--yes"], Stdio::null());
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("The device asks: Switch relay 1 on? (approved: --yes)\n"),
        "{stderr}"
    );
    assert!(
        stdout.starts_with("text:\n  {\"relay\":1,\"on\":true,\"wasOn\":false}\n"),
        "{stdout}"
    );
}

#[test]
fn without_a_terminal_or_yes_nothing_acts_and_yes_is_named() {
    let out = call(&[], Stdio::null());
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains(
            "embedded-mcp call: `set_relay` asks a person first: \"Switch relay 1 on?\"; run \
             `call` on a terminal to answer, or pass --yes to approve\n"
        ),
        "{stderr}"
    );
}
