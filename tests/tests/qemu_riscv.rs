//! The `examples/qemu-riscv` firmware under QEMU (`qemu-system-riscv32 -machine virt -bios none`,
//! RV32IMAC): the same scripted MCP sessions as `qemu_sensors` runs on the Cortex-M3 (shared in
//! `sensor_sessions`), over the NS16550A UART: both eras, a pipelined burst, idle CPU (WFI), the
//! `cargo run` stdio path and the stack figure. Values and bytes on the wire are the same.
#![cfg(unix)]

mod sensor_sessions;

use std::sync::OnceLock;

use embedded_mcp_tests::qemu::Board;
use sensor_sessions::{scenarios, Firmware};

static FIRMWARE: Firmware = Firmware {
    dir: "qemu-riscv",
    board: Board::RiscvVirt,
    name: "qemu-riscv",
    description: "Simulated sensors and an RGB LED on QEMU's RISC-V virt machine (RV32IMAC)",
    board_name: "riscv-virt",
    // The measured figure: examples/qemu-riscv/README.md.
    stack_peak_limit: 10 * 1024,
    elf: OnceLock::new(),
};

#[test]
fn legacy_sessions_list_call_every_tool_refuse_bad_input_and_survive_noise() {
    scenarios::legacy_sessions_list_call_every_tool_refuse_bad_input_and_survive_noise(&FIRMWARE);
}

#[test]
fn stateless_session_2026_discovers_lists_calls_every_tool_refuses_bad_input_and_survives_noise() {
    scenarios::stateless_session_2026_discovers_lists_calls_every_tool_refuses_bad_input_and_survives_noise(&FIRMWARE);
}

#[test]
fn a_thousand_pipelined_calls_get_a_thousand_answers_in_order() {
    scenarios::a_thousand_pipelined_calls_get_a_thousand_answers_in_order(&FIRMWARE);
}

#[test]
fn idle_firmware_sleeps_instead_of_spinning_a_host_core() {
    scenarios::idle_firmware_sleeps_instead_of_spinning_a_host_core(&FIRMWARE);
}

#[test]
fn cargo_run_command_is_an_mcp_stdio_server_that_logs_only_on_stderr() {
    scenarios::cargo_run_command_is_an_mcp_stdio_server_that_logs_only_on_stderr(&FIRMWARE);
}

#[test]
fn stack_peak_is_reported_and_bounded_and_qemu_dies_with_its_guard() {
    scenarios::stack_peak_is_reported_and_bounded_and_qemu_dies_with_its_guard(&FIRMWARE);
}

#[test]
fn firmware_links_the_validator_but_no_schema_compiler() {
    scenarios::firmware_links_the_validator_but_no_schema_compiler(&FIRMWARE);
}
