//! The crate for an ESP32-C3 board (esp-hal, `riscv32imc-unknown-none-elf`, stable Rust): the
//! shared tools on an LED (GPIO 7), and a `main` that serves them over the chip's built-in
//! USB-Serial-JTAG (esp-hal's async driver is the byte stream, so no board library is needed),
//! and `.cargo/config.toml` (the target, espflash as the runner, esp-hal's linker script).
//! `@NAME@` stands for the crate's name.

use super::common::{self, GITIGNORE, TOOLS_RS};
use super::{File, Source};

const CARGO_CONFIG: &str = r#"[build]
target = "riscv32imc-unknown-none-elf"

[target.riscv32imc-unknown-none-elf]
# `cargo run --release` flashes over the USB-Serial-JTAG port with espflash.
runner = "espflash flash --chip esp32c3"
rustflags = ["-C", "link-arg=-Tlinkall.x"]
"#;

const MAIN_RS: &str = r#"//! @NAME@: MCP tools (src/tools.rs) on an ESP32-C3, served over its built-in USB-Serial-JTAG.
//!
//! `cargo run --release` flashes it with espflash. The host then sees a serial port
//! (`/dev/ttyACM0` on Linux): `embedded-mcp tools --serial /dev/ttyACM0` lists its tools, and
//! `embedded-mcp bridge --serial /dev/ttyACM0` serves them to an MCP host. There are no logs:
//! the USB port is the MCP channel. The same src/tools.rs runs under QEMU first
//! (`embedded-mcp new NAME --board qemu-riscv`).
#![no_std]
#![no_main]

mod tools;

use embassy_executor::Executor;
use embedded_mcp::server::{output_len, Config, Server, ServerInfo};
use embedded_mcp::transport::LineReader;
use esp_hal::gpio::{Level, Output, OutputConfig};
use esp_hal::usb::usb_serial_jtag::UsbSerialJtag;
use esp_hal::Async;
use static_cell::StaticCell;

use tools::{Device, Led};

// The application descriptor the second-stage bootloader checks (espflash adds the bootloader).
esp_bootloader_esp_idf::esp_app_desc!();

/// Who this server is (sent by `initialize` and `server/discover`).
const INFO: ServerInfo = ServerInfo::new("@NAME@", env!("CARGO_PKG_VERSION"));

/// Longest request line accepted, LF included.
const LINE_BYTES: usize = 512;

/// The tools on this board.
type Tools = Device<BoardLed>;

/// Room for every response, computed while compiling from the tools and `INFO`.
const OUTPUT_BYTES: usize = output_len::<Tools, { Tools::TOOL_COUNT }>(&INFO, &Config::DEFAULT);

/// An LED on a GPIO (GPIO 7: the red LED of Espressif's ESP32-C3-DevKit-RUST-1; change the pin
/// in `main` for your board).
struct BoardLed(Output<'static>);

impl Led for BoardLed {
    fn set(&mut self, on: bool) {
        self.0.set_level(if on { Level::High } else { Level::Low });
    }
}

/// Any panic resets the chip: the host's bridge reconnects (and replays the handshake).
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    esp_hal::system::software_reset()
}

static EXECUTOR: StaticCell<Executor> = StaticCell::new();

#[esp_hal::main]
fn main() -> ! {
    let p = esp_hal::init(esp_hal::Config::default());
    let led = BoardLed(Output::new(p.GPIO7, Level::Low, OutputConfig::default()));
    let usb = UsbSerialJtag::new(p.USB_DEVICE).into_async();
    // embassy's RISC-V thread executor: polls, then sleeps with WFI until an interrupt.
    EXECUTOR.init(Executor::new()).run(|spawner| {
        spawner.spawn(serve(Device::new(led), usb).expect("the MCP task is spawned once"));
    })
}

/// The MCP task: serves the tools on `usb` for good.
#[embassy_executor::task]
async fn serve(tools: Tools, usb: UsbSerialJtag<'static, Async>) {
    let Ok(mut server) = Server::from_tools(INFO, tools) else {
        panic!("tool definitions refused")
    };
    let (rx, mut tx) = usb.split();
    let mut reader: LineReader<_, LINE_BYTES> = LineReader::new(rx);
    let mut out = [0u8; OUTPUT_BYTES];
    loop {
        // The driver reports no errors and no end of stream; a host that goes away simply
        // sends nothing more.
        let _ = server.serve_async(&mut reader, &mut tx, &mut out).await;
    }
}
"#;

/// The crate's files.
pub(super) fn files(name: &str, source: &Source) -> Vec<File> {
    let board = [
        "# The chip's HAL; `unstable`: the embedded-io-async impls of the USB-Serial-JTAG driver are"
            .into(),
        "# behind it (an API-stability flag of esp-hal; the crate builds on stable Rust).".into(),
        r#"esp-hal = { version = "1.2.2", features = ["esp32c3", "unstable"] }"#.into(),
        "# The application descriptor the ESP-IDF second-stage bootloader (and espflash) require."
            .into(),
        r#"esp-bootloader-esp-idf = { version = "0.5", features = ["esp32c3"] }"#.into(),
        "# embassy's RISC-V thread executor: polls, then sleeps with WFI until an interrupt.".into(),
        r#"embassy-executor = { version = "0.10", features = ["platform-riscv32", "executor-thread"] }"#
            .into(),
        "# The executor in a static (its `run` needs `&'static mut`).".into(),
        r#"static_cell = "2""#.into(),
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
