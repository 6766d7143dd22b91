//! `embedded-mcp new`, run by the CLI into a temporary folder on this checkout (`--path`), and
//! the crate it makes built with cargo.
//!
//! CI time: each build reuses an example's lock file (the same dependency versions, already
//! fetched) and target folder (the same target, profile and flags), so only the new crate
//! itself compiles once the example has built (scripts/test.sh builds the examples first, in the
//! shared firmware target folder when `EMCP_FIRMWARE_TARGET_DIR` names one). The
//! examples' tools come from `sensor-tools`, which turns on the core's `approval` feature; the
//! build turns it on too (`--features embedded-mcp/approval`: the feature only adds code), or
//! the core and every crate above it (embassy-rp: a minute) would compile a second time.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use embedded_mcp_tests::project_root;
use embedded_mcp_tests::qemu::firmware_target_dir;

pub const CLI: &str = env!("CARGO_BIN_EXE_embedded-mcp-under-test");

/// A folder removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A fresh, empty folder named after `what` and this process.
    pub fn new(what: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("embedded-mcp-new-{what}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        Self(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Makes the crate `name` for `board` in `dir` with the CLI, and builds it (release) with
/// `example`'s lock file and target folder; returns its ELF under `target` (the triple).
pub fn scaffold_and_build(
    dir: &Path,
    name: &str,
    board: &str,
    example: &str,
    target: &str,
) -> PathBuf {
    scaffold(dir, name, board, example, &[]);
    build(dir, name, example, target, Profile::Release)
}

/// The cargo profile a build uses.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// `cargo build`.
    Dev,
    /// `cargo build --release`.
    Release,
}

/// Makes the crate `name` for `board` in `dir` with the CLI (and its options `extra`), with
/// `example`'s lock file.
pub fn scaffold(dir: &Path, name: &str, board: &str, example: &str, extra: &[&str]) {
    let made = Command::new(CLI)
        .args(["new", name, "--board", board])
        .args(extra)
        .arg("--path")
        .arg(project_root())
        .arg("--dir")
        .arg(dir)
        .output()
        .expect("the CLI runs");
    assert!(made.status.success(), "{made:?}");
    assert!(made.stdout.is_empty(), "{made:?}");
    let example = project_root().join("examples").join(example);
    std::fs::copy(example.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
}

/// Builds the crate `name` in `dir` in `profile`, in `example`'s target folder (or the shared
/// firmware folder); returns its ELF under `target` (the triple).
pub fn build(dir: &Path, name: &str, example: &str, target: &str, profile: Profile) -> PathBuf {
    let example = project_root().join("examples").join(example);
    let target_dir = firmware_target_dir().unwrap_or_else(|| example.join("target"));
    let (release, profile_dir) = match profile {
        Profile::Dev => (None, "debug"),
        Profile::Release => (Some("--release"), "release"),
    };
    let output = Command::new("cargo")
        .current_dir(dir)
        .arg("build")
        .args(release)
        .arg("--quiet")
        .args(["--features", "embedded-mcp/approval"])
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
        "cargo build ({profile_dir}) of the new crate in {} failed:\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let elf = target_dir.join(target).join(profile_dir).join(name);
    assert!(elf.is_file(), "{}", elf.display());
    elf
}

/// The flash an ELF takes (`llvm-size -B`: text + data), with rustup's llvm-tools.
pub fn flash_bytes(elf: &Path) -> u64 {
    let rustc = |args: &[&str]| {
        let out = Command::new("rustc")
            .args(args)
            .output()
            .expect("rustc runs");
        String::from_utf8(out.stdout).unwrap()
    };
    let sysroot = rustc(&["--print", "sysroot"]);
    let verbose = rustc(&["-vV"]);
    let host = verbose
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names the host");
    let size = Path::new(sysroot.trim())
        .join("lib/rustlib")
        .join(host)
        .join("bin/llvm-size");
    let out = Command::new(&size)
        .arg("-B")
        .arg(elf)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e} (rustup component add llvm-tools)", size.display()));
    let text = String::from_utf8(out.stdout).unwrap();
    // "   text    data     bss     dec     hex filename", then the figures.
    let figures: Vec<u64> = text
        .lines()
        .nth(1)
        .expect(&text)
        .split_whitespace()
        .take(2)
        .map(|n| n.parse().expect(&text))
        .collect();
    figures.iter().sum()
}
