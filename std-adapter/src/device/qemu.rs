//! Firmware under QEMU (`--qemu FIRMWARE.elf`): the bridge starts QEMU, wires the board's first
//! UART to itself and stops QEMU when the link closes (or the bridge exits or is signalled).
//!
//! Two wirings: [`QemuWiring::Socket`] (default) puts the UART on a unix socket that QEMU serves
//! and the bridge connects to, so QEMU's own stdout (semihosting output) stays apart from the MCP
//! channel and is logged; [`QemuWiring::Stdio`] uses `-serial stdio`, QEMU's stdin/stdout being
//! the UART (then firmware must not print to semihosting stdout).

use std::io::{BufRead, BufReader};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::{socket_link, stdio_child, ChildGuard, CloseAction, Closer, DeviceError, Link, Logger};

/// How long QEMU may take to open its UART socket.
pub const SOCKET_WAIT: Duration = Duration::from_secs(10);

/// An emulated board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Machine {
    /// TI Stellaris LM3S6965 evaluation board, Cortex-M3 (`thumbv7m-none-eabi`).
    Lm3s6965evb,
    /// Arm MPS2 with AN386, Cortex-M4 (`thumbv7em-none-eabihf`).
    Mps2An386,
    /// QEMU's RISC-V `virt` board without firmware (`-bios none`), RV32
    /// (`riscv32imac-unknown-none-elf`); chosen for 32-bit RISC-V images (`super::elf_arch`).
    RiscvVirt,
    /// The BBC micro:bit v1: nRF51822, Cortex-M0 (`thumbv6m-none-eabi`); chosen for ARMv6-M
    /// images (`super::elf_arch`). The machine fixes its CPU.
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

fn socket_path() -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("embedded-mcp-{}-{n}.sock", std::process::id()))
}

/// Starts QEMU and connects to its UART.
pub fn open(config: &QemuConfig, log: &Logger) -> Result<Link, DeviceError> {
    if !config.firmware.is_file() {
        return Err(DeviceError::Config(format!(
            "firmware {} not found (build it first, see BRIDGE.md)",
            config.firmware.display()
        )));
    }
    // The QEMU program and board follow the image's architecture (`--qemu-bin` still wins).
    let config = &super::elf_arch::fit(config, super::elf_arch::of_file(&config.firmware));
    let what = format!("{} ({})", config.program, config.machine.name());
    match config.wiring {
        QemuWiring::Stdio => {
            let mut cmd = config.command(None);
            cmd.stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit());
            log.info(format_args!("starting {what} with -serial stdio"));
            stdio_child(cmd, &what)
        }
        QemuWiring::Socket => {
            let path = socket_path();
            let _ = std::fs::remove_file(&path);
            let mut cmd = config.command(Some(&path));
            cmd.stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit());
            log.info(format_args!("starting {what}, UART on {}", path.display()));
            let guard = ChildGuard::spawn(&mut cmd)
                .map_err(|e| DeviceError::io(format!("starting {what}"), e))?;
            let mut closer = Closer::default();
            closer.push(CloseAction::RemoveFile(path.clone()));
            if let (_, Some(stdout), _) = guard.take_stdio() {
                forward_stdout(stdout, log.clone());
            }
            let stream = connect(&path, &guard, &what)?;
            closer.push(CloseAction::Child(guard));
            // QEMU keeps its listening socket open; the path is no longer needed.
            let _ = std::fs::remove_file(&path);
            socket_link(stream, closer)
        }
    }
}

fn connect(path: &Path, guard: &ChildGuard, what: &str) -> Result<UnixStream, DeviceError> {
    let deadline = Instant::now() + SOCKET_WAIT;
    loop {
        match UnixStream::connect(path) {
            Ok(stream) => return Ok(stream),
            Err(e) => {
                if let Some(status) = guard.try_wait() {
                    return Err(DeviceError::Exited {
                        what: what.to_string(),
                        status,
                    });
                }
                if Instant::now() >= deadline {
                    return Err(DeviceError::io(
                        format!("connecting to the UART socket of {what}"),
                        e,
                    ));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

/// QEMU's stdout (semihosting output of the firmware) goes to the log, never to our stdout.
fn forward_stdout(stdout: std::process::ChildStdout, log: Logger) {
    let _ = std::thread::Builder::new()
        .name("qemu-stdout".into())
        .spawn(move || {
            for line in BufReader::new(stdout).split(b'\n').map_while(Result::ok) {
                log.note(
                    "qemu",
                    format_args!("{}", String::from_utf8_lossy(&line).trim_end()),
                );
            }
        });
}
