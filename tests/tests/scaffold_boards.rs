//! `embedded-mcp new`'s crates for the real boards (`embedded_mcp_std::scaffold`): made by the
//! command in a temporary folder on this checkout (`--path`), each builds as written for its
//! board (there is no board here to run them on). See scaffold_support for how the builds reuse
//! the examples' compiled dependencies.
#![cfg(unix)]

// The dev-profile build and the flash measure are scaffold_qemu.rs's.
#[allow(dead_code)]
mod scaffold_support;

use scaffold_support::{scaffold_and_build, TempDir};

/// The Raspberry Pi Pico: MCP over USB CDC-ACM through the board library rp2040-mcp.
#[test]
fn the_new_rp2040_crate_builds() {
    let dir = TempDir::new("rp2040");
    scaffold_and_build(
        &dir.0.join("pico_probe"),
        "pico_probe",
        "rp2040",
        "rp2040-usb",
        "thumbv6m-none-eabi",
    );
}

/// The ESP32-C3: MCP over the chip's USB-Serial-JTAG through esp-hal.
#[test]
fn the_new_esp32c3_crate_builds() {
    let dir = TempDir::new("esp32c3");
    scaffold_and_build(
        &dir.0.join("c3_probe"),
        "c3_probe",
        "esp32c3",
        "esp32c3",
        "riscv32imc-unknown-none-elf",
    );
}
