//! What every board's crate shares: the tools (one `tools.rs` for all boards: the hardware sits
//! behind the `Led` trait, which each board's `main.rs` implements), `.gitignore`, the release
//! profile, and the dependency lines on embedded-mcp's crates (by version, or by path into a
//! checkout).

use super::Source;

/// `src/tools.rs`: a read-only tool and an actuator, the same file on every board.
pub(super) const TOOLS_RS: &str = r#"//! The tools: methods under `#[tools]`, each taking one argument type and returning one result
//! type. Their JSON Schemas are derived from the types and compiled while the crate builds; the
//! engine checks every call's arguments and every result against them.
//!
//! This file is the same for every board `embedded-mcp new` knows: the hardware is behind the
//! [`Led`] trait, which `main.rs` implements for its board (a pin on a real board, nothing
//! under QEMU). So these tools run under QEMU first and then on the board, unchanged.
//!
//! What the model reads: each tool's `///` comment (its description), and the `///` comments of
//! the argument and result types and their fields (the schemas' descriptions). Write those for
//! the model, and keep notes for developers in `//` comments, which stay out of the firmware.

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
}

impl<L: Led> Device<L> {
    /// The device with its LED, switched off.
    pub fn new(mut led: L) -> Self {
        led.set(false);
        Self {
            led,
            on: false,
            switches: 0,
        }
    }

    fn state(&self) -> LedState {
        LedState {
            on: self.on,
            switches: self.switches,
        }
    }
}

#[tools]
impl<L: Led> Device<L> {
    /// Reads whether the LED is on.
    #[tool(title = "Read the LED", annotations = Annotations::SENSOR)]
    fn read_led(&mut self) -> LedState {
        self.state()
    }

    /// Switches the LED on or off.
    #[tool(title = "Switch the LED", annotations = Annotations::ACTUATOR)]
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

/// `.gitignore`.
pub(super) const GITIGNORE: &str = "/target\n";

/// The end of every `Cargo.toml`: a dev profile optimised for size (a plain `cargo build` of the
/// scaffold uses well under half the flash of the smallest board, 256 KB; unoptimised, it
/// filled 224,748 B of it), and the release profile of the examples (small code, whole-program
/// optimisation, debug info for the debugger and `llvm-size`, which does not reach the flash).
const PROFILES: &str = r#"# `cargo build` (the dev profile): optimised for size as the release build is, so a debug build
# fits the board's flash with room to spare; debug assertions and overflow checks stay on.
[profile.dev]
opt-level = "s"

[profile.release]
opt-level = "z"
lto = true
codegen-units = 1
debug = 2
"#;

/// `Cargo.toml`: the package, `[workspace]` (so the crate stands alone also when made inside
/// another workspace), the `dependencies` lines (comments included) and the profiles.
pub(super) fn cargo_toml(name: &str, dependencies: &[String]) -> String {
    format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2021"
publish = false

# A crate of its own, also when made inside another workspace.
[workspace]

[dependencies]
{}

{PROFILES}"#,
        dependencies.join("\n")
    )
}

/// The dependency line of one of this repository's crates: `name` at the tool's version, or
/// at `dir` in the checkout (`files` checked the checkout path: UTF-8, no quote or backslash).
pub(super) fn dependency(source: &Source, name: &str, dir: &str, features: &[&str]) -> String {
    let features = if features.is_empty() {
        String::new()
    } else {
        let quoted: Vec<String> = features.iter().map(|f| format!("\"{f}\"")).collect();
        format!(", features = [{}]", quoted.join(", "))
    };
    match source {
        Source::Registry { version } if features.is_empty() => format!(r#"{name} = "{version}""#),
        Source::Registry { version } => {
            format!(r#"{name} = {{ version = "{version}"{features} }}"#)
        }
        Source::Checkout(root) => {
            let root = root.to_string_lossy();
            let root = root.trim_end_matches('/');
            format!(r#"{name} = {{ path = "{root}/{dir}"{features} }}"#)
        }
    }
}

/// The `embedded-mcp` line, after its comment: `compact-float` formats floats in about 2 KB of
/// flash instead of ryu's tables.
pub(super) fn embedded_mcp(source: &Source) -> [String; 3] {
    [
        "# The MCP engine; `compact-float`: float formatting in about 2 KB of flash instead of"
            .into(),
        "# ryu's tables (the tools here use no floats; keep it if yours do).".into(),
        dependency(source, "embedded-mcp", "core", &["compact-float"]),
    ]
}

/// serde, for the tools' argument and result types.
pub(super) const SERDE: &str =
    r#"serde = { version = "1.0.219", default-features = false, features = ["derive"] }"#;
