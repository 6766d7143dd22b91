//! `embedded-mcp new`'s crates for QEMU's Cortex-M3 and RISC-V machines
//! (`embedded_mcp_std::scaffold`), made by the command in a temporary folder on this checkout
//! (`--path`), build, and serve their two tools under QEMU: `embedded-mcp tools --qemu` lists
//! them, and a session calls them byte for byte. See scaffold_support for how the builds reuse
//! the examples' compiled dependencies.
#![cfg(unix)]

mod scaffold_support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use embedded_mcp_tests::qemu::{Board, QemuGuard};
use scaffold_support::{build, flash_bytes, scaffold, scaffold_and_build, Profile, TempDir, CLI};

const NAME: &str = "soil_probe";
const TIMEOUT: Duration = Duration::from_secs(10);
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn ask(qemu: &mut QemuGuard, request: &str) -> String {
    qemu.send_line(request).unwrap();
    qemu.read_line(TIMEOUT).unwrap_or_else(|| {
        panic!(
            "no answer to {request}; QEMU stderr:\n{}",
            qemu.logs().join("\n")
        )
    })
}

#[test]
fn the_new_qemu_m3_crate_builds_and_serves_its_tools() {
    let dir = TempDir::new("qemu-m3");
    let elf = scaffold_and_build(
        &dir.0.join(NAME),
        NAME,
        "qemu-m3",
        "qemu-sensors",
        "thumbv7m-none-eabi",
    );
    serves_its_tools(&elf, Board::Lm3s6965evb);
}

/// A plain `cargo build` (the dev profile) of the new qemu-m3 crate with `--approval` (`set_led`
/// asks a person first) takes at most half of the board's 256 KB of flash, room for the
/// author's tools; and `embedded-mcp call --yes` switches the LED through the approval.
#[test]
fn the_new_qemu_m3_crate_with_approval_fits_in_half_the_flash_as_a_debug_build() {
    const FLASH: u64 = 256 * 1024;
    let dir = TempDir::new("qemu-m3-dev");
    let crate_dir = dir.0.join(NAME);
    scaffold(&crate_dir, NAME, "qemu-m3", "qemu-sensors", &["--approval"]);
    let elf = build(
        &crate_dir,
        NAME,
        "qemu-sensors",
        "thumbv7m-none-eabi",
        Profile::Dev,
    );
    let flash = flash_bytes(&elf);
    eprintln!("dev build of the new qemu-m3 crate with approval: {flash} B of flash");
    assert!(
        flash <= FLASH / 2,
        "the dev build takes {flash} B, more than half of the board's {FLASH} B"
    );

    // Without --yes and without a terminal, nothing switches; with --yes, the LED does.
    let call = |extra: &[&str]| {
        Command::new(CLI)
            .args(["call", "--qemu"])
            .arg(&elf)
            .args(extra)
            .args(["set_led", "on=true"])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("the CLI runs")
    };
    let refused = call(&[]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(
        String::from_utf8_lossy(&refused.stderr)
            .contains("`set_led` asks a person first: \"Switch the LED on?\""),
        "{refused:?}"
    );
    let approved = call(&["--yes"]);
    assert_eq!(approved.status.code(), Some(0), "{approved:?}");
    assert!(
        String::from_utf8_lossy(&approved.stdout)
            .starts_with("text:\n  {\"on\":true,\"switches\":1}\n"),
        "{approved:?}"
    );
}

#[test]
fn the_new_qemu_riscv_crate_builds_and_serves_its_tools() {
    let dir = TempDir::new("qemu-riscv");
    let elf = scaffold_and_build(
        &dir.0.join(NAME),
        NAME,
        "qemu-riscv",
        "qemu-riscv",
        "riscv32imac-unknown-none-elf",
    );
    serves_its_tools(&elf, Board::RiscvVirt);
}

/// `embedded-mcp tools --qemu` lists the two tools, and a session on `board` calls them.
fn serves_its_tools(elf: &Path, board: Board) {
    // `embedded-mcp tools --qemu` boots it and lists both tools.
    let listed = Command::new(CLI)
        .args(["tools", "--qemu"])
        .arg(elf)
        .output()
        .expect("the CLI runs");
    let stdout = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.status.success(), "{listed:?}");
    assert!(
        stdout.starts_with("soil_probe 0.1.0, protocol 2025-11-25: 2 tools\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\nread_led  Read the LED    yes        (yes*)       (no*)       no\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\nset_led   Switch the LED  no         yes          no*         no\n"),
        "{stdout}"
    );

    let mut qemu = QemuGuard::start_socket(board, elf).unwrap_or_else(|e| panic!("{e}"));

    // The output buffer is exactly the size the server needs: a page holds the largest tool,
    // so the two tools come in two pages.
    let mut tools = Vec::new();
    let mut params = META.to_owned();
    for id in 1.. {
        let listed = ask(
            &mut qemu,
            &format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{{params}}}}}"#
            ),
        );
        let value: serde_json::Value = serde_json::from_str(&listed).unwrap();
        tools.extend(
            value["result"]["tools"]
                .as_array()
                .expect(&listed)
                .iter()
                .cloned(),
        );
        match value["result"]["nextCursor"].as_str() {
            Some(cursor) => params = format!(r#"{META},"cursor":"{cursor}""#),
            None => break,
        }
        assert!(id < 4, "tools/list never ends");
    }
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["read_led", "set_led"]);
    assert_eq!(
        tools[1]["annotations"],
        serde_json::json!({"readOnlyHint": false, "destructiveHint": true, "openWorldHint": false})
    );

    let set = ask(
        &mut qemu,
        &format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{{META},"name":"set_led","arguments":{{"on":true}}}}}}"#
        ),
    );
    assert_eq!(
        set,
        r#"{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"on":true,"switches":1},"content":[{"type":"text","text":"{\"on\":true,\"switches\":1}"}],"resultType":"complete"}}"#
    );
    let read = ask(
        &mut qemu,
        &format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{{META},"name":"read_led"}}}}"#
        ),
    );
    assert_eq!(
        read,
        r#"{"jsonrpc":"2.0","id":3,"result":{"structuredContent":{"on":true,"switches":1},"content":[{"type":"text","text":"{\"on\":true,\"switches\":1}"}],"resultType":"complete"}}"#
    );
    // A refused argument gets its error, and the next request is still served.
    let refused = ask(
        &mut qemu,
        &format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{{META},"name":"set_led","arguments":{{"on":"yes"}}}}}}"#
        ),
    );
    assert_eq!(
        refused,
        r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"Invalid arguments for tool set_led: /on: \"yes\" is not of type boolean"}],"isError":true,"resultType":"complete"}}"#
    );
    let again = ask(
        &mut qemu,
        &format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{{META},"name":"read_led"}}}}"#
        ),
    );
    assert!(
        again.starts_with(r#"{"jsonrpc":"2.0","id":5,"result":{"structuredContent":{"on":true"#),
        "{again}"
    );
}
