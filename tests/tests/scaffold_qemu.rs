//! `embedded-mcp new`'s crate for QEMU's Cortex-M3 (`embedded_mcp_std::scaffold`), made by the
//! command in a temporary folder on this checkout (`--path`), builds as written, and serves its
//! two tools under QEMU: `embedded-mcp tools --qemu` lists them, and a session calls them byte
//! for byte.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use embedded_mcp_tests::project_root;
use embedded_mcp_tests::qemu::{Board, QemuGuard};

const NAME: &str = "soil_probe";
const CLI: &str = env!("CARGO_BIN_EXE_embedded-mcp-under-test");
const TIMEOUT: Duration = Duration::from_secs(10);
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// A folder removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Makes the crate and builds it; returns its ELF. The build reuses qemu-sensors' lock file
/// (the same dependency versions, already fetched) and target folder (the same profile and
/// flags: its dependencies are built once for both).
fn scaffold_and_build(dir: &Path) -> PathBuf {
    let made = Command::new(CLI)
        .args(["new", NAME, "--board", "qemu-m3", "--path"])
        .arg(project_root())
        .arg("--dir")
        .arg(dir)
        .output()
        .expect("the CLI runs");
    assert!(made.status.success(), "{made:?}");
    assert!(made.stdout.is_empty(), "{made:?}");
    let sensors = project_root().join("examples").join("qemu-sensors");
    std::fs::copy(sensors.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let target_dir = sensors.join("target");
    let output = Command::new("cargo")
        .current_dir(dir)
        .args(["build", "--release", "--quiet"])
        .env("CARGO_TARGET_DIR", &target_dir)
        // The crate's .cargo/config.toml sets the target and the linker flags.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET")
        .stdin(Stdio::null())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo build of the new crate failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    target_dir
        .join("thumbv7m-none-eabi")
        .join("release")
        .join(NAME)
}

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
    let dir =
        TempDir(std::env::temp_dir().join(format!("embedded-mcp-new-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    let elf = scaffold_and_build(&dir.0.join(NAME));

    // `embedded-mcp tools --qemu` boots it and lists both tools.
    let listed = Command::new(CLI)
        .args(["tools", "--qemu"])
        .arg(&elf)
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

    let mut qemu =
        QemuGuard::start_socket(Board::Lm3s6965evb, &elf).unwrap_or_else(|e| panic!("{e}"));

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
