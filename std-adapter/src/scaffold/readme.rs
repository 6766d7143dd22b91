//! The new crate's `README.md`: build it, run it (under QEMU, or flashed to the board), list
//! and call its tools, serve them to an MCP host, generate typed host code.

use super::Board;

/// What the README says about one board.
struct BoardText {
    /// The machine, in words.
    machine: &'static str,
    /// The Rust target the crate builds for.
    target: &'static str,
    /// What `cargo run --release` does.
    run: &'static str,
    /// The link option of `embedded-mcp tools`, `call`, `bridge` and `codegen`.
    link: &'static str,
}

fn board_text(board: Board) -> BoardText {
    match board {
        Board::QemuM3 => BoardText {
            machine: "QEMU's Cortex-M3 `lm3s6965evb`",
            target: "thumbv7m-none-eabi",
            run: "boots it under QEMU, its UART on your terminal (Ctrl-C quits)",
            link: "--qemu target/thumbv7m-none-eabi/release/@NAME@",
        },
        Board::QemuRiscv => BoardText {
            machine: "QEMU's RISC-V `virt` machine",
            target: "riscv32imac-unknown-none-elf",
            run: "boots it under QEMU, its UART on your terminal (Ctrl-C quits)",
            link: "--qemu target/riscv32imac-unknown-none-elf/release/@NAME@",
        },
        Board::Rp2040 => BoardText {
            machine: "a Raspberry Pi Pico (RP2040), over USB CDC-ACM",
            target: "thumbv6m-none-eabi",
            run: "flashes it through a debug probe (probe-rs) and prints its logs",
            link: "--serial /dev/ttyACM0",
        },
        Board::Esp32c3 => BoardText {
            machine: "an ESP32-C3 board, over the chip's USB-Serial-JTAG",
            target: "riscv32imc-unknown-none-elf",
            run: "flashes it over USB (espflash) and prints its logs",
            link: "--serial /dev/ttyACM0",
        },
    }
}

/// The README of the crate for `board`, with `set_led` behind a person's approval when
/// `approval` (`@NAME@` stands for the crate's name).
pub(super) fn text(board: Board, approval: bool) -> String {
    let BoardText {
        machine,
        target,
        run,
        link,
    } = board_text(board);
    let try_first = if board.is_qemu() {
        String::new()
    } else {
        "Try the tools under QEMU first: `embedded-mcp new NAME --board qemu-m3` makes the same \
         `src/tools.rs` for QEMU's Cortex-M3; copy yours across.\n\n"
            .to_owned()
    };
    let flash = if board.is_qemu() {
        "## On a board\n\n`src/tools.rs` is the same file on every board `embedded-mcp new` \
         knows: the hardware sits behind the `Led` trait, which `main.rs` implements. \
         `embedded-mcp new NAME --board rp2040` (or `esp32c3`) writes a board's crate; copy \
         `src/tools.rs` into it, implement `Led` on a pin, and `cargo run --release` flashes it \
         (probe-rs, espflash). Then use `--serial /dev/ttyACM0` where this README says \
         `--qemu …`.\n"
    } else {
        "## Flash\n\n`cargo run --release` builds and flashes the board; it then shows up as a \
         serial port (`/dev/ttyACM0` on Linux, `/dev/cu.usbmodem…` on macOS).\n"
    };
    format!(
        r#"# @NAME@

MCP tools on {machine}: the firmware serves `src/tools.rs` as MCP (Model Context Protocol)
tools, newline-delimited JSON-RPC on its serial line. `embedded-mcp` (the host CLI:
`cargo install embedded-mcp-std`) lists and calls them, and bridges them to any MCP host.

{try_first}## Build and run

```sh
cargo build --release   # the firmware: target/{target}/release/@NAME@
cargo run --release     # {run}
```

A plain `cargo build` works too (optimised for size, with debug assertions: about a quarter of
the smallest board's flash); the release build is smaller still. `cargo size --release`
(cargo-binutils) shows the flash it takes.

## List and call the tools

The serial line speaks JSON-RPC, so talk to it through the CLI rather than a terminal:

```sh
embedded-mcp tools {link}
embedded-mcp call {link} read_led
embedded-mcp call {link} set_led on=true
```

`tools` lists each tool with its arguments and results; `call` prints both channels of the
result and checks it against the tool's output schema.

{approval_text}
## Serve them to an MCP host

```json
{{ "mcpServers": {{ "@NAME@": {{ "command": "embedded-mcp", "args": ["bridge", "{link_args}"] }} }} }}
```

For `--qemu`, give the ELF's absolute path: the host starts the bridge in a folder of its own.

## Typed functions for host code

```sh
embedded-mcp codegen --lang python {link} -o tools_@NAME@.py
```

`--lang ts` and `--lang rust` write TypeScript and Rust. The Python module needs `mcp` and
`jsonschema` (and `types-jsonschema` for `mypy --strict`); its header lists them.

## Add a tool

A method under `#[tools]` in `src/tools.rs`: its `///` comment is the description the model
reads, its argument and result types derive `McpSchema` (their field comments become the
schemas' descriptions). The `#[tool(...)]` options (annotations, `confirm`, ...) are listed,
each with an example, in the documentation of `embedded_mcp::tools`.

{flash}"#,
        link_args = link.replacen(' ', "\", \"", 1),
        approval_text = approval_text(board, approval),
    )
}

/// What the README says about approvals.
fn approval_text(board: Board, approval: bool) -> &'static str {
    if !approval {
        return "A tool can ask a person first: `#[tool(confirm = …)]` (the core's `approval` \
                feature; `embedded-mcp new NAME --approval` makes `set_led` do so). `call` then \
                shows the question on your terminal; `--yes` approves without asking.\n";
    }
    match board {
        Board::Rp2040 => {
            "`set_led on=true` asks a person first (`confirm = Self::ask_led` in \
             `src/tools.rs`): `call` shows the question on your terminal, `--yes` approves \
             without asking. The approvals are sealed with a key of your own, given at build \
             time: `EMBEDDED_MCP_APPROVAL_KEY=$(openssl rand -hex 32) cargo build --release` \
             (keep it: a rebuild with another key refuses the old one's forms).\n"
        }
        _ => {
            "`set_led on=true` asks a person first (`confirm = Self::ask_led` in \
             `src/tools.rs`): `call` shows the question on your terminal, `--yes` approves \
             without asking. Under QEMU the approvals are sealed with the public demo key of \
             the board library; a real board's crate takes a key of its own.\n"
        }
    }
}
