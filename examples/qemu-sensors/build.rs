//! Puts memory.x and device.x where the linker (run with cortex-m-rt's `-Tlink.x`) finds them.

use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for script in ["memory.x", "device.x"] {
        fs::copy(script, out.join(script)).expect("copy linker script to OUT_DIR");
        println!("cargo:rerun-if-changed={script}");
    }
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=build.rs");
}
