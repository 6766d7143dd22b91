//! `embedded-mcp bridge --qemu FIRMWARE.elf` with the RISC-V firmware of `examples/qemu-riscv`:
//! the bridge reads the ELF's architecture and starts `qemu-system-riscv32 -machine virt
//! -bios none` without being told, and `--qemu-bin` still names the program.
#![cfg(unix)]

mod bridge_support;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bridge_support::*;
use embedded_mcp_tests::qemu::{build_firmware, ensure_qemu_for, Board};

const BOARD: Board = Board::RiscvVirt;

/// The firmware ELF, built once per test run (QEMU installed if missing).
fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        ensure_qemu_for(BOARD).unwrap_or_else(|e| panic!("{e}"));
        let dir = embedded_mcp_tests::project_root()
            .join("examples")
            .join("qemu-riscv");
        build_firmware(&dir, BOARD.rust_target()).unwrap_or_else(|e| panic!("{e}"))
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

/// The QEMU pid the bridge logged (`-v`: "device process pid N").
fn qemu_pid(b: &BridgeProcess) -> u32 {
    let line = logged(b, "device process pid ");
    line.split("device process pid ")
        .nth(1)
        .and_then(|rest| rest.trim().parse().ok())
        .unwrap_or_else(|| panic!("no pid in {line:?}"))
}

/// A session through the bridge: initialize, then the first temperature sample, byte for byte
/// as the Cortex-M3 firmware answers it; then stdin closes and QEMU goes with the bridge.
fn session(b: &mut BridgeProcess) {
    let init = b.request(&initialize_request("2025-11-25"));
    assert!(
        init.contains(r#""serverInfo":{"name":"qemu-riscv","#),
        "{init}"
    );
    b.send(INITIALIZED);
    let answer = b.request(&call("7", "read_temperature"));
    assert_eq!(
        answer,
        r#"{"jsonrpc":"2.0","id":7,"result":{"structuredContent":{"value":36.88,"unit":"°C","sensorId":"tmp-board","sample":1},"content":[{"type":"text","text":"{\"value\":36.88,\"unit\":\"°C\",\"sensorId\":\"tmp-board\",\"sample\":1}"}]}}"#
    );
    let pid = qemu_pid(b);
    b.stdin = None;
    assert_eq!(b.wait_exit().code(), Some(0), "stderr:\n{}", b.stderr());
    assert!(wait_gone(pid), "QEMU {pid} outlived the bridge");
}

#[test]
fn bridge_picks_the_riscv_qemu_and_virt_machine_from_the_elf() {
    let fw = firmware().to_string_lossy().into_owned();
    let mut b = BridgeProcess::start(&["--qemu", &fw, "--timeout-ms", "8000"]);
    let line = logged(&b, "starting ");
    assert!(
        line.contains("starting qemu-system-riscv32 (virt)"),
        "{line}"
    );
    session(&mut b);
}

#[test]
fn qemu_bin_still_names_the_program_for_a_riscv_elf() {
    let fw = firmware().to_string_lossy().into_owned();
    let qemu = ensure_qemu_for(BOARD).unwrap_or_else(|e| panic!("{e}"));
    let qemu = qemu.to_string_lossy().into_owned();
    let mut b = BridgeProcess::start(&["--qemu", &fw, "--qemu-bin", &qemu, "--timeout-ms", "8000"]);
    let line = logged(&b, "starting ");
    assert!(line.contains(&format!("starting {qemu} (virt)")), "{line}");
    session(&mut b);
}
