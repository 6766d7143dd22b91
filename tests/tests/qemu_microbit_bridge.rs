//! `embedded-mcp bridge --qemu FIRMWARE.elf` with the micro:bit firmware of `examples/microbit`
//! (thumbv6m, nRF51822): the bridge reads ARMv6-M from the ELF's `.ARM.attributes` and starts
//! `qemu-system-arm -machine microbit` without being told; a session then goes through it byte
//! for byte, and QEMU goes with the bridge.
#![cfg(unix)]

mod bridge_support;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bridge_support::*;
use embedded_mcp_tests::qemu::{build_firmware_with_features, ensure_qemu_for, Board};

const BOARD: Board = Board::Microbit;

/// The firmware with its `qemu` feature, built once per test run (QEMU installed if missing).
fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        ensure_qemu_for(BOARD).unwrap_or_else(|e| panic!("{e}"));
        let dir = embedded_mcp_tests::project_root()
            .join("examples")
            .join("microbit");
        build_firmware_with_features(&dir, BOARD.rust_target(), &["qemu"])
            .unwrap_or_else(|e| panic!("{e}"))
    })
}

/// Waits until the bridge logged a line containing `needle`; returns that line.
fn logged(b: &BridgeProcess, needle: &str) -> String {
    let end = Instant::now() + TIMEOUT;
    loop {
        if let Some(line) = b.stderr().lines().find(|l| l.contains(needle)) {
            return line.to_owned();
        }
        assert!(
            Instant::now() < end,
            "the bridge never logged {needle:?}; stderr:\n{}",
            b.stderr()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn bridge_picks_the_microbit_machine_from_an_armv6m_elf_and_serves_it() {
    let fw = firmware().to_string_lossy().into_owned();
    let mut b = BridgeProcess::start(&["--qemu", &fw, "--timeout-ms", "8000"]);
    let line = logged(&b, "starting ");
    assert!(
        line.contains("starting qemu-system-arm (microbit)"),
        "{line}"
    );
    let init = b.request(&initialize_request("2025-11-25"));
    assert!(
        init.contains(
            r#""serverInfo":{"name":"microbit","version":"0.1.0","title":"BBC micro:bit","#
        ),
        "{init}"
    );
    b.send(INITIALIZED);
    // The bridge lists the device's tools in one page (the device pages them one by one).
    let list = b.request(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    let names: Vec<String> = json(&list)["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        names,
        [
            "set_pixel",
            "show_pattern",
            "read_buttons",
            "roll_die",
            "read_temperature",
            "device_info"
        ]
    );
    assert_eq!(
        b.request(&call("3", "read_temperature")),
        r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"sensor not ready: TEMP gave no reading within 1 ms"}],"isError":true}}"#
    );
    assert_eq!(
        b.request(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"set_pixel","arguments":{"x":2,"y":2,"on":true}}}"#),
        r#"{"jsonrpc":"2.0","id":4,"result":{"structuredContent":{"rows":[0,0,4,0,0],"previous":[0,0,0,0,0]},"content":[{"type":"text","text":"{\"rows\":[0,0,4,0,0],\"previous\":[0,0,0,0,0]}"}]}}"#
    );
    let line = logged(&b, "device process pid ");
    let pid: u32 = line
        .split("device process pid ")
        .nth(1)
        .and_then(|rest| rest.trim().parse().ok())
        .unwrap_or_else(|| panic!("no pid in {line:?}"));
    b.stdin = None;
    assert_eq!(b.wait_exit().code(), Some(0), "stderr:\n{}", b.stderr());
    assert!(wait_gone(pid), "QEMU {pid} outlived the bridge");
}
