//! `embedded-mcp new`: a standalone firmware crate, ready to build, for one of the boards in
//! [`Board::ALL`]: two QEMU machines (their glue is the board libraries `qemu-lm3s6965` and
//! `qemu-virt`) and two real boards (the Raspberry Pi Pico through the board library
//! `rp2040-mcp`, the ESP32-C3 through esp-hal). Every board's crate has the same `src/tools.rs`.
//! Sans-IO: [`files`] decides what to write from the request; [`write()`] is the thin shell that
//! puts the files on disk.

mod approval;
mod common;
mod esp32c3;
mod qemu_m3;
mod qemu_riscv;
mod readme;
mod rp2040;

use std::fmt;
use std::path::{Path, PathBuf};

/// The board a new firmware runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Board {
    /// QEMU's `lm3s6965evb` (Cortex-M3), through the board library `qemu-lm3s6965`.
    QemuM3,
    /// QEMU's RISC-V `virt` machine (RV32IMAC), through the board library `qemu-virt`.
    QemuRiscv,
    /// The Raspberry Pi Pico (RP2040): MCP over USB CDC-ACM through the board library
    /// `rp2040-mcp`.
    Rp2040,
    /// An ESP32-C3 board: MCP over the chip's USB-Serial-JTAG, through esp-hal.
    Esp32c3,
}

impl Board {
    /// Every board, by its name on the command line.
    pub const ALL: [(&'static str, Board); 4] = [
        ("qemu-m3", Board::QemuM3),
        ("qemu-riscv", Board::QemuRiscv),
        ("rp2040", Board::Rp2040),
        ("esp32c3", Board::Esp32c3),
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, board)| *board == self)
            .map_or("", |(name, _)| name)
    }

    /// Whether it runs under QEMU (`cargo run --release` boots it there).
    pub fn is_qemu(self) -> bool {
        matches!(self, Board::QemuM3 | Board::QemuRiscv)
    }

    /// The board named `name` on the command line.
    pub fn from_name(name: &str) -> Result<Self, ScaffoldError> {
        Self::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, board)| *board)
            .ok_or_else(|| ScaffoldError::UnknownBoard(name.to_owned()))
    }
}

/// Where the new crate takes embedded-mcp and the board library from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Source {
    /// The registry, at this version.
    Registry {
        /// The crates' version requirement (`0.1.0`).
        version: String,
    },
    /// A checkout of this repository (path dependencies): what tests and CI use.
    Checkout(PathBuf),
}

impl Source {
    /// This tool's own version, from the registry.
    pub fn this_version() -> Self {
        Source::Registry {
            version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

/// What to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The crate's (and the binary's) name.
    pub name: String,
    /// Its board.
    pub board: Board,
    /// Where its dependencies come from.
    pub source: Source,
    /// `set_led` asks a person before it switches the LED on (`#[tool(confirm = …)]`), sealed
    /// by the board library's key, boot salt and clock.
    pub approval: bool,
}

/// One file of the new crate: its path inside the crate and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    /// Relative to the crate's folder.
    pub path: PathBuf,
    /// The whole text.
    pub text: String,
}

/// Why no crate was made.
#[derive(Debug)]
#[non_exhaustive]
pub enum ScaffoldError {
    /// The name is not a crate name (`^[A-Za-z][A-Za-z0-9_-]{0,63}$`).
    InvalidName(String),
    /// No such board.
    UnknownBoard(String),
    /// A checkout path that cannot be written into a `Cargo.toml` (not UTF-8, or a quote).
    UnusablePath(PathBuf),
    /// The folder exists and is not empty: nothing is overwritten.
    NotEmpty(PathBuf),
    /// Writing failed.
    Io(PathBuf, std::io::Error),
    /// `--approval` on a board without a board library to supply the key, salt and clock.
    NoApproval(Board),
}

impl fmt::Display for ScaffoldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidName(name) => write!(
                f,
                "`{name}` is not a crate name: a letter, then up to 63 letters, digits, `_` or `-`"
            ),
            Self::UnknownBoard(name) => {
                let names: Vec<&str> = Board::ALL.iter().map(|(n, _)| *n).collect();
                write!(f, "unknown board `{name}` (boards: {})", names.join(", "))
            }
            Self::UnusablePath(path) => write!(
                f,
                "{}: cannot be written into Cargo.toml (not UTF-8, or holds a quote or backslash)",
                path.display()
            ),
            Self::NotEmpty(path) => write!(f, "{} exists and is not empty", path.display()),
            Self::Io(path, e) => write!(f, "{}: {e}", path.display()),
            Self::NoApproval(board) => write!(
                f,
                "--approval: {} has no board library yet to supply the key, boot salt and \
                 clock (boards with one: qemu-m3, qemu-riscv, rp2040)",
                board.name()
            ),
        }
    }
}

impl std::error::Error for ScaffoldError {}

/// Whether `name` is a crate name this generator accepts.
fn valid_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && name.len() <= 64
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The files of the crate `request` asks for.
pub fn files(request: &Request) -> Result<Vec<File>, ScaffoldError> {
    if !valid_name(&request.name) {
        return Err(ScaffoldError::InvalidName(request.name.clone()));
    }
    if let Source::Checkout(path) = &request.source {
        let usable = path
            .to_str()
            .is_some_and(|p| !p.contains(['"', '\\', '\n']));
        if !usable {
            return Err(ScaffoldError::UnusablePath(path.clone()));
        }
    }
    let board_features: &[&str] = if request.approval { &["approval"] } else { &[] };
    let mut made = match request.board {
        Board::QemuM3 => qemu_m3::files(&request.name, &request.source, board_features),
        Board::QemuRiscv => qemu_riscv::files(&request.name, &request.source, board_features),
        Board::Rp2040 => rp2040::files(&request.name, &request.source, board_features),
        Board::Esp32c3 if request.approval => {
            return Err(ScaffoldError::NoApproval(request.board));
        }
        Board::Esp32c3 => esp32c3::files(&request.name, &request.source),
    };
    if request.approval {
        approval::apply(request.board, &mut made);
    }
    let readme = readme::text(request.board, request.approval);
    made.extend(named(&request.name, [("README.md", readme.as_str())]));
    Ok(made)
}

/// The files at these paths, with `@NAME@` replaced by the crate's name.
fn named<const N: usize>(name: &str, files: [(&str, &str); N]) -> Vec<File> {
    files
        .into_iter()
        .map(|(path, text)| File {
            path: path.into(),
            text: text.replace("@NAME@", name),
        })
        .collect()
}

/// Writes `files` into the folder `dir`, which must not exist or be empty.
pub fn write(dir: &Path, files: &[File]) -> Result<(), ScaffoldError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |e| ScaffoldError::Io(path, e)
    };
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).map_err(io(dir))?;
        if entries.next().is_some() {
            return Err(ScaffoldError::NotEmpty(dir.to_path_buf()));
        }
    }
    for file in files {
        let path = dir.join(&file.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&path, &file.text).map_err(io(&path))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
