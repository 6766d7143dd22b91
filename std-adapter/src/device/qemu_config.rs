//! What QEMU runs: the board ([`Machine`]), the UART wiring ([`QemuWiring`]) and the command
//! line ([`QemuConfig`]). Starting it is the `qemu` module's job; fitting the board to the
//! image is `elf_arch`'s.

use std::path::{Path, PathBuf};
use std::process::Command;

/// An emulated board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Machine {
    /// TI Stellaris LM3S6965 evaluation board, Cortex-M3 (`thumbv7m-none-eabi`).
    Lm3s6965evb,
    /// Arm MPS2 with AN386, Cortex-M4 (`thumbv7em-none-eabihf`).
    Mps2An386,
    /// QEMU's RISC-V `virt` board without firmware (`-bios none`), RV32
    /// (`riscv32imac-unknown-none-elf`); chosen for 32-bit RISC-V images.
    RiscvVirt,
    /// The BBC micro:bit v1: nRF51822, Cortex-M0 (`thumbv6m-none-eabi`); chosen for ARMv6-M
    /// images. The machine fixes its CPU.
    Microbit,
}

impl Machine {
    /// Parses a `--machine` value.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "lm3s6965evb" => Some(Self::Lm3s6965evb),
            "mps2-an386" => Some(Self::Mps2An386),
            "microbit" => Some(Self::Microbit),
            _ => None,
        }
    }

    /// QEMU's `-machine` name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Lm3s6965evb => "lm3s6965evb",
            Self::Mps2An386 => "mps2-an386",
            Self::RiscvVirt => "virt",
            Self::Microbit => "microbit",
        }
    }

    /// QEMU's `-cpu` name for the board.
    pub fn cpu(self) -> &'static str {
        match self {
            Self::Lm3s6965evb => "cortex-m3",
            Self::Mps2An386 => "cortex-m4",
            Self::RiscvVirt => "rv32",
            Self::Microbit => "cortex-m0",
        }
    }
}

/// How the UART reaches the bridge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QemuWiring {
    /// `-chardev socket,...,server=on,wait=on -serial chardev:u0` (QEMU stdout is logged).
    Socket,
    /// `-serial stdio`.
    Stdio,
}

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QemuConfig {
    /// The firmware ELF image.
    pub firmware: PathBuf,
    /// The board.
    pub machine: Machine,
    /// UART wiring.
    pub wiring: QemuWiring,
    /// The QEMU program (`qemu-system-arm`, or `EMBEDDED_MCP_QEMU`, or `--qemu-bin`).
    pub program: String,
}

impl QemuConfig {
    /// lm3s6965evb, socket wiring, `qemu-system-arm` (or `$EMBEDDED_MCP_QEMU`).
    pub fn new(firmware: impl Into<PathBuf>) -> Self {
        Self {
            firmware: firmware.into(),
            machine: Machine::Lm3s6965evb,
            wiring: QemuWiring::Socket,
            program: std::env::var("EMBEDDED_MCP_QEMU")
                .unwrap_or_else(|_| "qemu-system-arm".into()),
        }
    }

    /// The QEMU command line; `socket` is the UART socket path for [`QemuWiring::Socket`].
    pub fn command(&self, socket: Option<&Path>) -> Command {
        let mut cmd = Command::new(&self.program);
        match self.machine {
            Machine::RiscvVirt => cmd.args(["-machine", "virt", "-bios", "none"]),
            Machine::Microbit => cmd.args(["-machine", "microbit"]),
            m => cmd.args(["-cpu", m.cpu(), "-machine", m.name()]),
        };
        cmd.args(["-display", "none", "-monitor", "none"])
            .args(["-semihosting-config", "enable=on,target=native"]);
        match socket {
            Some(path) => {
                let mut chardev = std::ffi::OsString::from("socket,id=u0,path=");
                chardev.push(path);
                chardev.push(",server=on,wait=on");
                cmd.arg("-chardev")
                    .arg(chardev)
                    .args(["-serial", "chardev:u0"]);
            }
            None => {
                cmd.args(["-serial", "stdio"]);
            }
        }
        cmd.arg("-kernel").arg(&self.firmware);
        cmd
    }
}
