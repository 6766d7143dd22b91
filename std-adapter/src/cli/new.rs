//! `embedded-mcp new NAME`: writes a firmware crate that builds as written (the files are
//! `crate::scaffold`'s; this is the command's shell: arguments in, files out, a note on stderr).

use std::path::PathBuf;

use clap::Args;

use crate::scaffold::{self, Board, Request, Source};

/// The options of `new`.
#[derive(Args, Debug, Clone)]
pub struct NewArgs {
    /// The crate's name (a letter, then letters, digits, `_` or `-`)
    #[arg(value_name = "NAME")]
    pub name: String,
    /// The board the firmware runs on
    #[arg(long, value_name = "BOARD", default_value = "qemu-m3", value_parser = ["qemu-m3", "qemu-riscv", "rp2040", "esp32c3"])]
    pub board: String,
    /// Take embedded-mcp and the board library from this checkout (path dependencies) instead
    /// of crates.io
    #[arg(long, value_name = "CHECKOUT")]
    pub path: Option<PathBuf>,
    /// `set_led` asks a person before it switches the LED on (`#[tool(confirm = …)]`, sealed
    /// by the board library's key, boot salt and clock)
    #[arg(long)]
    pub approval: bool,
    /// Where to write the crate [default: ./NAME]; it must not exist or be empty
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// Runs `new`; returns the exit code (2 when nothing could be written).
pub fn new_main(args: &NewArgs) -> i32 {
    match make(args) {
        Ok((dir, board)) => {
            let runs = if board.is_qemu() {
                "boots it under QEMU"
            } else {
                "flashes it to the board"
            };
            eprintln!(
                "{}: made `{}` for {} in {} (`cd {} && cargo run --release` {runs})",
                super::PROGRAM,
                args.name,
                board.name(),
                dir.display(),
                dir.display()
            );
            0
        }
        Err(e) => {
            eprintln!("{}: new: {e}", super::PROGRAM);
            2
        }
    }
}

/// Writes the crate; returns its folder and board.
fn make(args: &NewArgs) -> Result<(PathBuf, Board), scaffold::ScaffoldError> {
    let board = Board::from_name(&args.board)?;
    let source = match &args.path {
        // Absolute: the crate's Cargo.toml names it from another folder.
        Some(path) => Source::Checkout(
            std::fs::canonicalize(path)
                .map_err(|e| scaffold::ScaffoldError::Io(path.clone(), e))?,
        ),
        None => Source::this_version(),
    };
    let request = Request {
        name: args.name.clone(),
        board,
        source,
        approval: args.approval,
    };
    let files = scaffold::files(&request)?;
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(&args.name));
    scaffold::write(&dir, &files)?;
    Ok((dir, board))
}
