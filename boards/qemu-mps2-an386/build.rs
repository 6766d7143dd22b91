//! Puts this board's memory.x where the linker (run with cortex-m-rt's `-Tlink.x`, which includes
//! it) finds it. A dependency's link search path reaches the firmware's link, so the firmware
//! crate needs no build script of its own.

use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let here = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    fs::copy(here.join("memory.x"), out.join("memory.x")).expect("copy memory.x to OUT_DIR");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=build.rs");
}
