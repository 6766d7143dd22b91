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
    let made = Command::new(CLI)
        .args(["new", name, "--board", board, "--path"])
        .arg(project_root())
        .arg("--dir")
        .arg(dir)
        .output()
        .expect("the CLI runs");
    assert!(made.status.success(), "{made:?}");
    assert!(made.stdout.is_empty(), "{made:?}");
    let example = project_root().join("examples").join(example);
    std::fs::copy(example.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let target_dir = firmware_target_dir().unwrap_or_else(|| example.join("target"));
    let output = Command::new("cargo")
        .current_dir(dir)
        .args(["build", "--release", "--quiet"])
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
        "cargo build of the new {board} crate failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let elf = target_dir.join(target).join("release").join(name);
    assert!(elf.is_file(), "{}", elf.display());
    elf
}
