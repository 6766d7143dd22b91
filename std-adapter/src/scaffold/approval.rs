//! `embedded-mcp new --approval`: `set_led` asks a person before it switches the LED on
//! (`#[tool(confirm = …)]`). The tools take the board library's `approval::sealing()` (its key,
//! boot salt and clock) from `main`; the board library's `approval` feature is on (the
//! `Cargo.toml` line is the board module's, with `board_features`).

use super::{Board, File};

/// `src/tools.rs` with approval: the same tools, `set_led` behind a person's yes.
const TOOLS_RS: &str = r#"//! The tools: methods under `#[tools]`, each taking one argument type and returning one result
//! type. Their JSON Schemas are derived from the types and compiled while the crate builds; the
//! engine checks every call's arguments and every result against them.
//!
//! This file is the same for every board `embedded-mcp new` knows: the hardware is behind the
//! [`Led`] trait, which `main.rs` implements for its board (a pin on a real board, nothing
//! under QEMU). So these tools run under QEMU first and then on the board, unchanged.
//!
//! `set_led` asks a person before it switches the LED on (`confirm = Self::ask_led`): the
//! device answers with a form, and runs the method only when the answer comes back approved,
//! sealed to exactly those arguments. `embedded-mcp call` asks on your terminal.
//!
//! What the model reads: each tool's `///` comment (its description), and the `///` comments of
//! the argument and result types and their fields (the schemas' descriptions). Write those for
//! the model, and keep notes for developers in `//` comments, which stay out of the firmware.

use embedded_mcp::json::Piece;
use embedded_mcp::server::approval::{Approvals, Ask, Sealing};
use embedded_mcp::server::Annotations;
use embedded_mcp::{tools, McpSchema};
use serde::{Deserialize, Serialize};

/// What the tools drive: an LED (a GPIO pin on a board).
pub trait Led {
    /// Switches it on (`true`) or off.
    fn set(&mut self, on: bool);
}

// `set_led`'s arguments.
#[derive(McpSchema, Deserialize)]
pub struct SetLed {
    /// true: on, false: off
    on: bool,
}

// What both tools return.
#[derive(McpSchema, Serialize)]
pub struct LedState {
    /// Whether the LED is on
    on: bool,
    /// How many times it was switched since boot
    switches: u32,
}

/// The device: what the tools read and change.
pub struct Device<L> {
    led: L,
    on: bool,
    switches: u32,
    approvals: Approvals,
}

impl<L: Led> Device<L> {
    /// The device with its LED, switched off; `sealing` (the board library's
    /// `approval::sealing()`) seals the approvals `set_led` asks for.
    pub fn new(mut led: L, sealing: Sealing) -> Self {
        led.set(false);
        Self {
            led,
            on: false,
            switches: 0,
            approvals: Approvals::new(sealing),
        }
    }

    fn state(&self) -> LedState {
        LedState {
            on: self.on,
            switches: self.switches,
        }
    }

    // `set_led`'s `confirm`: switching the LED on asks a person (the question they see);
    // switching it off goes ahead (`None`).
    fn ask_led(&mut self, args: &SetLed) -> Option<Ask<'_, [Piece<'static>; 1]>> {
        args.on.then(|| Ask {
            approvals: &mut self.approvals,
            message: [Piece::Text("Switch the LED on?")],
        })
    }
}

#[tools]
impl<L: Led> Device<L> {
    /// Reads whether the LED is on.
    #[tool(title = "Read the LED", annotations = Annotations::SENSOR)]
    fn read_led(&mut self) -> LedState {
        self.state()
    }

    /// Switches the LED on or off. Switching it on waits for a person's approval.
    #[tool(
        title = "Switch the LED",
        annotations = Annotations::ACTUATOR,
        confirm = Self::ask_led
    )]
    fn set_led(&mut self, args: SetLed) -> LedState {
        if args.on != self.on {
            self.led.set(args.on);
            self.on = args.on;
            self.switches = self.switches.wrapping_add(1);
        }
        self.state()
    }
}
"#;

/// The board library whose `approval::sealing()` `main` passes to the tools.
fn board_library(board: Board) -> &'static str {
    match board {
        Board::QemuM3 => "qemu_lm3s6965",
        Board::QemuRiscv => "qemu_virt",
        Board::Rp2040 | Board::Esp32c3 => "rp2040_mcp",
    }
}

/// Turns `made` (the board's files, its board library's `approval` feature already on) into
/// the approval crate: the tools above, and `main` handing them the board's sealing.
pub(super) fn apply(board: Board, made: &mut [File]) {
    let library = board_library(board);
    for file in made.iter_mut() {
        if file.path.ends_with("src/tools.rs") {
            file.text = TOOLS_RS.to_owned();
        } else if file.path.ends_with("src/main.rs") {
            // `Device::new(led)` becomes `Device::new(led, LIBRARY::approval::sealing())`.
            if let Some(start) = file.text.find("Device::new(") {
                if let Some(close) = file.text[start..].find(')') {
                    let at = start + close;
                    file.text
                        .insert_str(at, &format!(", {library}::approval::sealing()"));
                }
            }
        }
    }
}
