//! The crate for QEMU's Cortex-M3 (`lm3s6965evb`): two tools (a read-only one and an actuator),
//! a `main` of a few lines on the board library `qemu-lm3s6965`, and `.cargo/config.toml` (the
//! target, QEMU as the runner, the linker script). `@NAME@` stands for the crate's name.

use super::common::{self, GITIGNORE, TOOLS_RS};
use super::{File, Source};

const CARGO_CONFIG: &str = r#"[build]
target = "thumbv7m-none-eabi"

[target.thumbv7m-none-eabi]
# `cargo run --release` boots the firmware with UART0 (the MCP line) on QEMU's stdin and stdout;
# logs go to stderr through semihosting.
runner = "qemu-system-arm -cpu cortex-m3 -machine lm3s6965evb -display none -monitor none -semihosting-config enable=on,target=native -serial stdio -kernel"
# cortex-m-rt's linker script (it includes the board library's memory.x and device.x);
# `--icf=all` keeps identical functions once. The cfg: SHA-256 rolled up instead of unrolled,
# the same hashes in less flash, should you turn on embedded-mcp's `approval` feature (a person
# confirms before a tool acts); without it, it changes nothing.
rustflags = ["-C", "link-arg=-Tlink.x", "-C", "link-arg=--nmagic", "-C", "link-arg=--icf=all", "--cfg", 'sha2_backend_soft="compact"']
"#;

const MAIN_RS: &str = r#"//! @NAME@: MCP tools (src/tools.rs) on QEMU's lm3s6965evb (Cortex-M3), served over UART0.
//!
//! `cargo run --release` boots it; `embedded-mcp tools --qemu
//! target/thumbv7m-none-eabi/release/@NAME@` lists its tools, and `embedded-mcp bridge --qemu …`
//! serves them to an MCP host. On a real board, keep src/tools.rs and write this `main` with
//! the board's HAL (`embedded-mcp new NAME --board rp2040` writes one).
#![no_std]
#![no_main]

mod tools;

use cortex_m_rt::entry;
use embedded_mcp::server::{output_len, Config, Server, ServerInfo};
use embedded_mcp::transport::LineReader;
use qemu_lm3s6965::fault::fail;

use tools::{Device, Led};

/// Who this server is (sent by `initialize` and `server/discover`).
const INFO: ServerInfo = ServerInfo::new("@NAME@", env!("CARGO_PKG_VERSION"));

/// Longest request line accepted, LF included.
const LINE_BYTES: usize = 512;

/// The tools on this board.
type Tools = Device<NoLed>;

/// Room for every response, computed while compiling from the tools and `INFO`.
const OUTPUT_BYTES: usize = output_len::<Tools, { Tools::TOOL_COUNT }>(&INFO, &Config::DEFAULT);

/// QEMU's board has no LED: the tools only keep its state (on a board, this drives a pin).
struct NoLed;

impl Led for NoLed {
    fn set(&mut self, _on: bool) {}
}

#[entry]
fn main() -> ! {
    // First of all: the host may already be sending.
    let (rx, tx) = qemu_lm3s6965::start();
    let mut server = Server::from_tools(INFO, Device::new(NoLed))
        .unwrap_or_else(|_| fail("tool definitions refused"));
    let mut reader: LineReader<_, LINE_BYTES> = LineReader::new(rx);
    let mut out = [0u8; OUTPUT_BYTES];
    qemu_lm3s6965::serve(&mut server, &mut reader, tx, &mut out)
}
"#;

/// The crate's files; `board_features`: the board library's features (`approval`).
pub(super) fn files(name: &str, source: &Source, board_features: &[&str]) -> Vec<File> {
    let board = [
        "# The board: UART0, clock, timer, executor, interrupt table, faults, log, linker set-up."
            .into(),
        common::dependency(
            source,
            "qemu-lm3s6965",
            "boards/qemu-lm3s6965",
            board_features,
        ),
        r#"cortex-m-rt = "0.7.5""#.into(),
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
