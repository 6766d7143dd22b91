//! Picks the linker script of the target's architecture (`link/arm.x` or `link/riscv.x`).

use std::{env, fs, path::PathBuf};

fn main() {
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let script = match arch.as_str() {
        "arm" => "link/arm.x",
        "riscv32" => "link/riscv.x",
        // A host build (`cargo check` without a target) links nothing of ours.
        _ => return,
    };
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::copy(script, out.join("link.x")).expect("copy the linker script to OUT_DIR");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
    println!("cargo:rerun-if-changed=link");
    println!("cargo:rerun-if-changed=build.rs");
}
