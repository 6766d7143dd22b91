//! The crate for QEMU's Cortex-M3 (`lm3s6965evb`): two tools (a read-only one and an actuator),
//! a `main` of a few lines on the board library `qemu-lm3s6965`, and `.cargo/config.toml` (the
//! target, QEMU as the runner, the linker script). `@NAME@` stands for the crate's name.

use super::{File, Source};

const CARGO_TOML: &str = r#"[package]
name = "@NAME@"
version = "0.1.0"
edition = "2021"
publish = false

# A crate of its own, also when made inside another workspace.
[workspace]

[dependencies]
# The MCP engine; `compact-float`: float formatting in about 2 KB of flash instead of ryu's
# tables (the tools here use no floats; keep it if yours do).
@EMBEDDED_MCP@
# The board: UART0, clock, timer, executor, interrupt table, faults, log, linker set-up.
@BOARD@
cortex-m-rt = "0.7.5"
serde = { version = "1.0.219", default-features = false, features = ["derive"] }

[profile.release]
opt-level = "z"
lto = true
codegen-units = 1
debug = 2
"#;

const CARGO_CONFIG: &str = r#"[build]
target = "thumbv7m-none-eabi"

[target.thumbv7m-none-eabi]
# `cargo run --release` boots the firmware with UART0 (the MCP line) on QEMU's stdin and stdout;
# logs go to stderr through semihosting.
runner = "qemu-system-arm -cpu cortex-m3 -machine lm3s6965evb -display none -monitor none -semihosting-config enable=on,target=native -serial stdio -kernel"
# cortex-m-rt's linker script (it includes the board library's memory.x and device.x);
# `--icf=all` keeps identical functions once.
rustflags = ["-C", "link-arg=-Tlink.x", "-C", "link-arg=--nmagic", "-C", "link-arg=--icf=all"]
"#;

const MAIN_RS: &str = r#"//! @NAME@: MCP tools (src/tools.rs) on QEMU's lm3s6965evb (Cortex-M3), served over UART0.
//!
//! `cargo run --release` boots it; `embedded-mcp tools --qemu
//! target/thumbv7m-none-eabi/release/@NAME@` lists its tools, and `embedded-mcp bridge --qemu …`
//! serves them to an MCP host. On a real board, keep src/tools.rs and write this `main` with
//! the board's HAL.
#![no_std]
#![no_main]

mod tools;

use cortex_m_rt::entry;
use embedded_mcp::server::{output_len, Config, Server, ServerInfo};
use embedded_mcp::transport::LineReader;
use qemu_lm3s6965::fault::fail;

use tools::Device;

/// Who this server is (sent by `initialize` and `server/discover`).
const INFO: ServerInfo = ServerInfo::new("@NAME@", env!("CARGO_PKG_VERSION"));

/// Longest request line accepted, LF included.
const LINE_BYTES: usize = 512;

/// Room for every response, computed while compiling from the tools and `INFO`.
const OUTPUT_BYTES: usize =
    output_len::<Device, { Device::TOOL_COUNT }>(&INFO, &Config::DEFAULT);

#[entry]
fn main() -> ! {
    // First of all: the host may already be sending.
    let (rx, tx) = qemu_lm3s6965::start();
    let mut server = Server::from_tools(INFO, Device::default())
        .unwrap_or_else(|_| fail("tool definitions refused"));
    let mut reader: LineReader<_, LINE_BYTES> = LineReader::new(rx);
    let mut out = [0u8; OUTPUT_BYTES];
    qemu_lm3s6965::serve(&mut server, &mut reader, tx, &mut out)
}
"#;

const TOOLS_RS: &str = r#"//! The tools: methods under `#[tools]`, each taking one argument type and returning one result
//! type. Their JSON Schemas are derived from the types and compiled while the crate builds; the
//! engine checks every call's arguments and every result against them.

use embedded_mcp::server::Annotations;
use embedded_mcp::{tools, McpSchema};
use serde::{Deserialize, Serialize};

/// `set_led`'s arguments (doc comments on fields become the schema's `description`s).
#[derive(McpSchema, Deserialize)]
pub struct SetLed {
    /// true: on, false: off
    on: bool,
}

/// The LED's state.
#[derive(McpSchema, Serialize)]
pub struct LedState {
    /// Whether the LED is on
    on: bool,
    /// How many times it was switched since boot
    switches: u32,
}

/// The device: what the tools read and change (here a simulated LED; on a board, its pins).
#[derive(Default)]
pub struct Device {
    led: bool,
    switches: u32,
}

#[tools]
impl Device {
    /// Reads whether the LED is on.
    #[tool(title = "Read the LED", annotations = Annotations::SENSOR)]
    fn read_led(&mut self) -> LedState {
        self.state()
    }

    /// Switches the LED on or off.
    #[tool(title = "Switch the LED", annotations = Annotations::ACTUATOR)]
    fn set_led(&mut self, args: SetLed) -> LedState {
        if args.on != self.led {
            self.led = args.on;
            self.switches = self.switches.wrapping_add(1);
        }
        self.state()
    }
}

impl Device {
    fn state(&self) -> LedState {
        LedState {
            on: self.led,
            switches: self.switches,
        }
    }
}
"#;

const GITIGNORE: &str = "/target\n";

/// The dependency lines of `embedded-mcp` and the board library.
fn dependencies(source: &Source) -> (String, String) {
    match source {
        Source::Registry { version } => (
            format!(r#"embedded-mcp = {{ version = "{version}", features = ["compact-float"] }}"#),
            format!(r#"qemu-lm3s6965 = "{version}""#),
        ),
        Source::Checkout(root) => {
            // `files` checked that the path is UTF-8 without quotes or backslashes.
            let root = root.to_string_lossy();
            let root = root.trim_end_matches('/');
            (
                format!(
                    r#"embedded-mcp = {{ path = "{root}/core", features = ["compact-float"] }}"#
                ),
                format!(r#"qemu-lm3s6965 = {{ path = "{root}/boards/qemu-lm3s6965" }}"#),
            )
        }
    }
}

/// The crate's files.
pub(super) fn files(name: &str, source: &Source) -> Vec<File> {
    let (core, board) = dependencies(source);
    let cargo_toml = CARGO_TOML
        .replace("@EMBEDDED_MCP@", &core)
        .replace("@BOARD@", &board);
    [
        ("Cargo.toml", cargo_toml.as_str()),
        (".cargo/config.toml", CARGO_CONFIG),
        (".gitignore", GITIGNORE),
        ("src/main.rs", MAIN_RS),
        ("src/tools.rs", TOOLS_RS),
    ]
    .into_iter()
    .map(|(path, text)| File {
        path: path.into(),
        text: text.replace("@NAME@", name),
    })
    .collect()
}
