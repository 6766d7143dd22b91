//! Puts qemu-sensors' memory.x and device.x (the same board) where the linker finds them.

use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for script in ["memory.x", "device.x"] {
        let from = PathBuf::from("../qemu-sensors").join(script);
        fs::copy(&from, out.join(script)).expect("copy linker script to OUT_DIR");
        println!("cargo:rerun-if-changed={}", from.display());
    }
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=build.rs");
}
