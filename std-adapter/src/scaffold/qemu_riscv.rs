//! The crate for QEMU's RISC-V `virt` machine (RV32IMAC, machine mode): the shared tools, a
//! `main` of a few lines on the board library `qemu-virt` and embassy's RISC-V executor, and
//! `.cargo/config.toml` (the target, QEMU as the runner, the linker script). `@NAME@` stands for
//! the crate's name.

use super::common::{self, GITIGNORE, TOOLS_RS};
use super::{File, Source};

const CARGO_CONFIG: &str = r#"[build]
target = "riscv32imac-unknown-none-elf"

[target.riscv32imac-unknown-none-elf]
# `cargo run --release` boots the firmware with the UART (the MCP line) on QEMU's stdin and
# stdout; logs go to stderr through semihosting.
runner = "qemu-system-riscv32 -machine virt -bios none -display none -monitor none -semihosting-config enable=on,target=native -serial stdio -kernel"
# riscv-rt's linker script (it includes the board library's memory.x). The cfg: SHA-256 rolled up
# instead of unrolled, the same hashes in less flash, should you turn on embedded-mcp's
# `approval` feature (a person confirms before a tool acts); without it, it changes nothing.
rustflags = ["-C", "link-arg=-Tlink.x", "--cfg", 'sha2_backend_soft="compact"']
"#;

const MAIN_RS: &str = r#"//! @NAME@: MCP tools (src/tools.rs) on QEMU's RISC-V virt machine, served over its UART.
//!
//! `cargo run --release` boots it; `embedded-mcp tools --qemu
//! target/riscv32imac-unknown-none-elf/release/@NAME@` lists its tools, and `embedded-mcp bridge
//! --qemu …` serves them to an MCP host. On a real board, keep src/tools.rs and write this
//! `main` with the board's HAL (`embedded-mcp new NAME --board esp32c3` writes one).
#![no_std]
#![no_main]

mod tools;

use embassy_executor::Spawner;
use embedded_mcp::server::{output_len, Config, Server, ServerInfo};
use embedded_mcp::transport::LineReader;
use qemu_virt::fault::fail;

use tools::{Device, Led};

/// Who this server is (sent by `initialize` and `server/discover`).
const INFO: ServerInfo = ServerInfo::new("@NAME@", env!("CARGO_PKG_VERSION"));

/// Longest request line accepted, LF included.
const LINE_BYTES: usize = 512;

/// The tools on this board.
type Tools = Device<NoLed>;

/// Room for every response, computed while compiling from the tools and `INFO`.
const OUTPUT_BYTES: usize = output_len::<Tools, { Tools::TOOL_COUNT }>(&INFO, &Config::DEFAULT);

/// QEMU's machine has no LED: the tools only keep its state (on a board, this drives a pin).
struct NoLed;

impl Led for NoLed {
    fn set(&mut self, _on: bool) {}
}

// embassy's RISC-V executor: polls the task, then sleeps with WFI until an interrupt.
#[embassy_executor::main]
async fn main(_spawner: Spawner) {
    // First of all: the host may already be sending.
    let (rx, tx) = qemu_virt::start();
    let mut server = Server::from_tools(INFO, Device::new(NoLed))
        .unwrap_or_else(|_| fail("tool definitions refused"));
    let mut reader: LineReader<_, LINE_BYTES> = LineReader::new(rx);
    let mut out = [0u8; OUTPUT_BYTES];
    qemu_virt::serve(&mut server, &mut reader, tx, &mut out).await
}
"#;

/// The crate's files; `board_features`: the board library's features (`approval`).
pub(super) fn files(name: &str, source: &Source, board_features: &[&str]) -> Vec<File> {
    let board = [
        "# The board: UART, PLIC, clock, timer, faults, stack, log, linker set-up.".into(),
        common::dependency(source, "qemu-virt", "boards/qemu-virt", board_features),
        "# riscv-rt's entry, and embassy's RISC-V executor (sleeps with WFI between interrupts)."
            .into(),
        r#"riscv-rt = "0.18""#.into(),
        r#"embassy-executor = { version = "0.10", features = ["platform-riscv32", "executor-thread"] }"#
            .into(),
        common::SERDE.into(),
    ];
    let cargo_toml =
        common::cargo_toml(name, &[&common::embedded_mcp(source)[..], &board].concat());
    super::named(
        name,
        [
            ("Cargo.toml", cargo_toml.as_str()),
            (".cargo/config.toml", CARGO_CONFIG),
            (".gitignore", GITIGNORE),
            ("src/main.rs", MAIN_RS),
            ("src/tools.rs", TOOLS_RS),
        ],
    )
}
