//! [`UsageError`]: a command line that clap accepted but the device commands refuse.

use std::fmt;

/// Why a device command's options were refused after clap parsed them (the CLI prints it as
/// clap prints its own errors, with the command's usage, and exits 2).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UsageError {
    /// Two `--device` values have the same NAME.
    SameName(String),
    /// `--pages device` with `--device` (a hub answers in one page).
    PagesWithHub,
    /// `call --device ... TOOL` where TOOL is not `NAME.tool` of one of the devices.
    ToolWithoutDevice(String),
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SameName(name) => write!(f, "--device {name}: two devices have this NAME"),
            Self::PagesWithHub => {
                f.write_str("--pages device is for one device; a hub answers in one page")
            }
            Self::ToolWithoutDevice(tool) => write!(
                f,
                "{tool}: with --device, name the tool NAME.tool (NAME one of the devices)"
            ),
        }
    }
}

impl std::error::Error for UsageError {}
