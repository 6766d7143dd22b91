//! The crate for the Raspberry Pi Pico (RP2040): the shared tools on the on-board LED (GPIO 25),
//! a `main` of a few lines on the board library `rp2040-mcp` (MCP over USB CDC-ACM), the Pico's
//! `memory.x` and the build script that hands it to the linker, and `.cargo/config.toml` (the
//! target, probe-rs as the runner, the linker scripts). `@NAME@` stands for the crate's name.

use super::common::{self, GITIGNORE, TOOLS_RS};
use super::{File, Source};

const CARGO_CONFIG: &str = r#"[build]
target = "thumbv6m-none-eabi"

[target.thumbv6m-none-eabi]
# `cargo run --release` flashes and runs it through a debug probe (defmt logs over RTT).
runner = "probe-rs run --chip RP2040"
rustflags = ["-C", "link-arg=--nmagic", "-C", "link-arg=-Tlink.x", "-C", "link-arg=-Tlink-rp.x", "-C", "link-arg=-Tdefmt.x"]

[env]
DEFMT_LOG = "info"
"#;

const MEMORY_X: &str = r#"/* Raspberry Pi Pico: RP2040 with 2 MiB of QSPI flash (W25Q16JV). The first 256 bytes of flash
 * hold the second-stage bootloader (embassy-rp's `boot2`, linked by its link-rp.x). Another
 * RP2040 board: change FLASH's length to its flash size. */
MEMORY
{
  BOOT2 : ORIGIN = 0x10000000, LENGTH = 0x100
  FLASH : ORIGIN = 0x10000100, LENGTH = 2048K - 0x100
  RAM   : ORIGIN = 0x20000000, LENGTH = 256K
}
"#;

const BUILD_RS: &str = r#"//! Puts memory.x where the linker (run with cortex-m-rt's `-Tlink.x`) finds it.

use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::copy("memory.x", out.join("memory.x")).expect("copy memory.x to OUT_DIR");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=build.rs");
}
"#;

const MAIN_RS: &str = r#"//! @NAME@: MCP tools (src/tools.rs) on a Raspberry Pi Pico, served over USB CDC-ACM.
//!
//! `cargo run --release` flashes it through a debug probe (probe-rs) and prints its defmt logs.
//! The host then sees a serial port (`/dev/ttyACM0` on Linux): `embedded-mcp tools --serial
//! /dev/ttyACM0` lists its tools, and `embedded-mcp bridge --serial /dev/ttyACM0` serves them
//! to an MCP host. The same src/tools.rs runs under QEMU first (`embedded-mcp new NAME --board
//! qemu-m3`).
#![no_std]
#![no_main]

mod tools;

use embassy_executor::Spawner;
use embassy_rp::gpio::{Level, Output};
use embedded_mcp::server::{output_len, Config, Server, ServerInfo};
use rp2040_mcp::UsbIdentity;
use {defmt_rtt as _, panic_probe as _};

use tools::{Device, Led};

/// Who this server is (sent by `initialize` and `server/discover`).
const INFO: ServerInfo = ServerInfo::new("@NAME@", env!("CARGO_PKG_VERSION"));

/// How the board names itself on USB (pid.codes' test IDs: fine on a desk, not for a product).
const USB: UsbIdentity = UsbIdentity::new("@NAME@");

/// Longest request line accepted, LF included.
const LINE_BYTES: usize = 512;

/// The tools on this board.
type Tools = Device<PicoLed>;

/// Room for every response, computed while compiling from the tools and `INFO`.
const OUTPUT_BYTES: usize = output_len::<Tools, { Tools::TOOL_COUNT }>(&INFO, &Config::DEFAULT);

/// The Pico's on-board LED.
struct PicoLed(Output<'static>);

impl Led for PicoLed {
    fn set(&mut self, on: bool) {
        self.0.set_level(if on { Level::High } else { Level::Low });
    }
}

#[embassy_executor::main]
async fn main(_spawner: Spawner) {
    let p = embassy_rp::init(Default::default());
    let led = PicoLed(Output::new(p.PIN_25, Level::Low));
    let mut server = match Server::from_tools(INFO, Device::new(led)) {
        Ok(server) => server,
        Err(_) => defmt::panic!("tool definitions refused"),
    };
    let mut out = [0u8; OUTPUT_BYTES];
    rp2040_mcp::serve_usb::<_, _, LINE_BYTES>(p.USB, &USB, &mut server, &mut out).await
}
"#;

/// The crate's files; `board_features`: the board library's features (`approval`).
pub(super) fn files(name: &str, source: &Source, board_features: &[&str]) -> Vec<File> {
    let board = [
        "# The board: the USB device and MCP over CDC-ACM.".into(),
        common::dependency(source, "rp2040-mcp", "boards/rp2040-mcp", board_features),
        "# embassy's executor and HAL (the versions and features rp2040-mcp uses).".into(),
        r#"embassy-executor = { version = "0.10", features = ["platform-cortex-m", "executor-thread", "defmt"] }"#.into(),
        r#"embassy-rp = { version = "0.10", features = ["rp2040", "defmt", "time-driver", "critical-section-impl"] }"#.into(),
        r#"cortex-m-rt = "0.7.5""#.into(),
        "# Logs and panics through a debug probe (RTT).".into(),
        r#"defmt = "1.0""#.into(),
        r#"defmt-rtt = "1.0""#.into(),
        r#"panic-probe = { version = "1.0", features = ["print-defmt"] }"#.into(),
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
            ("build.rs", BUILD_RS),
            ("memory.x", MEMORY_X),
            ("src/main.rs", MAIN_RS),
            ("src/tools.rs", TOOLS_RS),
        ],
    )
}
