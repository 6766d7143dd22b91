//! QEMU harness for firmware tests: finds (or installs) `qemu-system-arm` or
//! `qemu-system-riscv32`, builds a firmware crate and boots it with its UART on a unix socket or
//! on QEMU's stdio.
//!
//! [`QemuGuard`] owns the QEMU process and kills it when dropped, also when a test panics:
//! QEMU never exits by itself when its UART closes, and an orphan keeps a host core busy.
#![cfg(unix)]

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Arguments every board gets: no display, no monitor, semihosting on (logs go to QEMU's stderr,
/// `exit` ends QEMU with the firmware's status).
const COMMON_ARGS: [&str; 6] = [
    "-display",
    "none",
    "-monitor",
    "none",
    "-semihosting-config",
    "enable=on,target=native",
];

/// How long QEMU may take to create its UART socket.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// An emulated board and the Rust target its firmware is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Board {
    /// TI Stellaris LM3S6965 evaluation board, Cortex-M3 (`thumbv7m-none-eabi`); UART0 is a PL011.
    Lm3s6965evb,
    /// Arm MPS2 with AN386, Cortex-M4 (`thumbv7em-none-eabihf`); UART0 is a CMSDK UART.
    Mps2An386,
    /// QEMU's RISC-V `virt` machine without firmware (`-bios none`), RV32IMAC
    /// (`riscv32imac-unknown-none-elf`); the UART is an NS16550A.
    RiscvVirt,
    /// The BBC micro:bit v1, an nRF51822 with a Cortex-M0 (`thumbv6m-none-eabi`); UART0 is the
    /// nRF51's UART. The machine fixes the CPU (no `-cpu`).
    Microbit,
}

impl Board {
    /// The arguments selecting this board (`-cpu`, `-machine`, ...).
    pub fn machine_args(self) -> &'static [&'static str] {
        match self {
            Board::Lm3s6965evb => &["-cpu", "cortex-m3", "-machine", "lm3s6965evb"],
            Board::Mps2An386 => &["-cpu", "cortex-m4", "-machine", "mps2-an386"],
            Board::RiscvVirt => &["-machine", "virt", "-bios", "none"],
            Board::Microbit => &["-machine", "microbit"],
        }
    }

    /// The QEMU program that emulates this board.
    pub fn qemu_program(self) -> &'static str {
        match self {
            Board::Lm3s6965evb | Board::Mps2An386 | Board::Microbit => "qemu-system-arm",
            Board::RiscvVirt => "qemu-system-riscv32",
        }
    }

    /// The Debian package with [`qemu_program`](Self::qemu_program).
    pub fn debian_package(self) -> &'static str {
        match self {
            Board::Lm3s6965evb | Board::Mps2An386 | Board::Microbit => "qemu-system-arm",
            Board::RiscvVirt => "qemu-system-misc",
        }
    }

    /// The Rust target triple for this board's firmware.
    pub fn rust_target(self) -> &'static str {
        match self {
            Board::Lm3s6965evb => "thumbv7m-none-eabi",
            Board::Mps2An386 => "thumbv7em-none-eabihf",
            Board::RiscvVirt => "riscv32imac-unknown-none-elf",
            Board::Microbit => "thumbv6m-none-eabi",
        }
    }
}

/// Finds `qemu-system-arm` on `PATH` (installing it as [`ensure_qemu_for`] does).
pub fn ensure_qemu() -> Result<PathBuf, String> {
    ensure_qemu_for(Board::Lm3s6965evb)
}

/// Finds the QEMU program of `board` on `PATH`. When it is missing and we run as root, installs
/// its Debian package with apt-get; otherwise says what to install. The answer is cached.
pub fn ensure_qemu_for(board: Board) -> Result<PathBuf, String> {
    static ARM: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    static RISCV: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let cell = match board.qemu_program() {
        "qemu-system-arm" => &ARM,
        _ => &RISCV,
    };
    cell.get_or_init(|| find_or_install_qemu(board.qemu_program(), board.debian_package()))
        .clone()
}

fn find_or_install_qemu(qemu: &str, package: &str) -> Result<PathBuf, String> {
    if let Some(path) = find_in_path(qemu) {
        return Ok(path);
    }
    if !running_as_root() {
        return Err(format!(
            "{qemu} is not on PATH and this is not root, so it cannot be installed here: \
             run `sudo apt-get install -y --no-install-recommends {package}` (Debian/Ubuntu)"
        ));
    }
    let apt = |args: &[&str]| -> Result<(), String> {
        let output = Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run apt-get: {e}"))?;
        check_output(&format!("apt-get {}", args.join(" ")), &output)
    };
    apt(&["update"])?;
    apt(&["install", "-y", "--no-install-recommends", package])?;
    find_in_path(qemu)
        .ok_or_else(|| format!("apt-get installed {package} but {qemu} is not on PATH"))
}

fn find_in_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|out| out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == "0")
        .unwrap_or(false)
}

fn check_output(what: &str, output: &Output) -> Result<(), String> {
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(30).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    Err(format!(
        "`{what}` failed ({}):\n{}",
        output.status,
        tail.join("\n")
    ))
}

/// Builds the firmware crate in `dir` for `target` (`cargo build --release`, in the crate's own
/// target folder, or in [`FIRMWARE_TARGET_DIR_VAR`]'s when that is set) after `rustup target add
/// TARGET` (a no-op when installed), and returns the path of the ELF it produced. Builds within
/// one process run one at a time.
pub fn build_firmware(dir: &Path, target: &str) -> Result<PathBuf, String> {
    build_firmware_with_features(dir, target, &[])
}

/// The ELF of `examples/DIR` for `board`, built once per test process (`cell` holds it) after
/// installing `board`'s QEMU if it is missing.
///
/// # Panics
/// If QEMU cannot be installed or the firmware does not build (the message says why).
pub fn example_firmware(
    dir: &str,
    board: Board,
    cell: &'static OnceLock<PathBuf>,
) -> &'static Path {
    cell.get_or_init(|| {
        ensure_qemu_for(board).unwrap_or_else(|e| panic!("{e}"));
        let dir = crate::project_root().join("examples").join(dir);
        build_firmware(&dir, board.rust_target()).unwrap_or_else(|e| panic!("{e}"))
    })
}

/// [`build_firmware`] with the crate's cargo `features` switched on (e.g. a firmware's `qemu`
/// feature that sends its logs to semihosting).
pub fn build_firmware_with_features(
    dir: &Path,
    target: &str,
    features: &[&str],
) -> Result<PathBuf, String> {
    static BUILD_LOCK: Mutex<()> = Mutex::new(());
    let _one_at_a_time = BUILD_LOCK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());

    if find_in_path("rustup").is_some() {
        let output = Command::new("rustup")
            .args(["target", "add", target])
            .output()
            .map_err(|e| format!("cannot run rustup: {e}"))?;
        check_output(&format!("rustup target add {target}"), &output)?;
    }
    let output = Command::new("cargo")
        .current_dir(dir)
        .args(["build", "--release", "--target", target])
        .args(features.iter().flat_map(|feature| ["--features", feature]))
        .arg("--message-format=json-render-diagnostics")
        .envs(firmware_target_dir().map(|dir| ("CARGO_TARGET_DIR", dir)))
        // The firmware's .cargo/config.toml sets the linker flags; flags meant for the host
        // build must not replace them.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run cargo in {}: {e}", dir.display()))?;
    check_output(
        &format!(
            "cargo build --release --target {target} {features:?} in {}",
            dir.display()
        ),
        &output,
    )?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|msg| msg["reason"] == "compiler-artifact")
        .filter_map(|msg| msg["executable"].as_str().map(PathBuf::from))
        .next_back()
        .ok_or_else(|| format!("cargo build in {} produced no executable", dir.display()))
}

/// The variable that names one target folder for every firmware build (scripts/test.sh sets it
/// so the examples share their compiled dependencies); unset, each crate builds in its own.
pub const FIRMWARE_TARGET_DIR_VAR: &str = "EMCP_FIRMWARE_TARGET_DIR";

/// The shared firmware target folder, when [`FIRMWARE_TARGET_DIR_VAR`] names one.
pub fn firmware_target_dir() -> Option<PathBuf> {
    std::env::var_os(FIRMWARE_TARGET_DIR_VAR)
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
}

/// The `runner` command line of `[target.TARGET]` in `DIR/.cargo/config.toml`, split at spaces:
/// what `cargo run` executes (with the ELF path appended).
pub fn cargo_runner(dir: &Path, target: &str) -> Result<Vec<String>, String> {
    let path = dir.join(".cargo").join("config.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let section = format!("[target.{target}]");
    let mut in_section = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_section = line == section;
        } else if let (true, Some(value)) = (in_section, line.strip_prefix("runner")) {
            let value = value.trim_start().trim_start_matches('=').trim();
            let value = value.trim_matches('"');
            return Ok(value.split_whitespace().map(String::from).collect());
        }
    }
    Err(format!("{}: no `runner` in {section}", path.display()))
}

/// Lines QEMU printed on stderr (semihosting logs, QEMU's own messages), collected by a thread.
#[derive(Clone, Default)]
struct StderrLog {
    lines: Arc<(Mutex<Vec<String>>, Condvar)>,
}

impl StderrLog {
    fn collect(&self, stderr: impl Read + Send + 'static) {
        let log = self.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let (lines, changed) = &*log.lines;
                lines.lock().unwrap_or_else(|p| p.into_inner()).push(line);
                changed.notify_all();
            }
        });
    }

    fn snapshot(&self) -> Vec<String> {
        self.lines
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn wait_for(&self, needle: &str, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        let (lines, changed) = &*self.lines;
        let mut guard = lines.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(line) = guard.iter().find(|line| line.contains(needle)) {
                return Some(line.clone());
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            guard = changed
                .wait_timeout(guard, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
}

/// Where the guest UART's bytes come from and go to.
enum Link {
    /// `-serial chardev:u0` on a unix socket.
    Socket(UnixStream),
    /// `-serial stdio`: QEMU's stdin, and its stdout read by a thread into a channel.
    Stdio {
        stdin: ChildStdin,
        stdout: Receiver<Vec<u8>>,
    },
}

/// The QEMU child process: killed (SIGKILL) and reaped when dropped.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A folder removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A running QEMU with the firmware's UART connected to this process.
///
/// Dropping it kills QEMU (SIGKILL) and waits for it, also while a test panics.
pub struct QemuGuard {
    // Fields drop in this order: QEMU dies first, the temporary folder goes last.
    process: KillOnDrop,
    link: Link,
    /// Received bytes not yet returned as a line.
    pending: Vec<u8>,
    stderr: StderrLog,
    _temp_dir: Option<TempDir>,
}

fn spawn(command: &mut Command) -> Result<(KillOnDrop, StderrLog), String> {
    let mut child = command
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {:?}: {e}", command.get_program()))?;
    let stderr = StderrLog::default();
    if let Some(pipe) = child.stderr.take() {
        stderr.collect(pipe);
    }
    Ok((KillOnDrop(child), stderr))
}

impl QemuGuard {
    /// Boots `elf` on `board` with the UART on a unix socket in a fresh temporary folder
    /// (`-chardev socket,...,server=on,wait=on`: the guest starts once we are connected).
    pub fn start_socket(board: Board, elf: &Path) -> Result<Self, String> {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let qemu = ensure_qemu_for(board)?;
        let dir = std::env::temp_dir().join(format!(
            "embedded-mcp-qemu-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let temp_dir = TempDir(dir);
        let socket = temp_dir.0.join("uart.sock");
        let _ = std::fs::remove_file(&socket);
        let (mut process, stderr) = spawn(
            Command::new(qemu)
                .args(board.machine_args())
                .args(COMMON_ARGS)
                .arg("-chardev")
                .arg(format!(
                    "socket,id=u0,path={},server=on,wait=on",
                    socket.display()
                ))
                .args(["-serial", "chardev:u0", "-kernel"])
                .arg(elf)
                .stdin(Stdio::null())
                .stdout(Stdio::null()),
        )?;
        let deadline = Instant::now() + CONNECT_TIMEOUT;
        let stream = loop {
            match UnixStream::connect(&socket) {
                Ok(stream) => break stream,
                Err(e) => {
                    if let Ok(Some(status)) = process.0.try_wait() {
                        // Give the stderr thread a moment to collect QEMU's last words.
                        std::thread::sleep(Duration::from_millis(100));
                        return Err(format!(
                            "QEMU exited ({status}): {}",
                            stderr.snapshot().join("\n")
                        ));
                    }
                    if Instant::now() > deadline {
                        return Err(format!("cannot connect to {}: {e}", socket.display()));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        };
        Ok(QemuGuard {
            process,
            link: Link::Socket(stream),
            pending: Vec::new(),
            stderr,
            _temp_dir: Some(temp_dir),
        })
    }

    /// Boots `elf` on `board` with the UART on QEMU's stdin/stdout (`-serial stdio`), as
    /// `cargo run` does.
    pub fn start_stdio(board: Board, elf: &Path) -> Result<Self, String> {
        let qemu = ensure_qemu_for(board)?;
        let mut command = vec![qemu.to_string_lossy().into_owned()];
        command.extend(
            board
                .machine_args()
                .iter()
                .chain(&COMMON_ARGS)
                .map(|s| s.to_string()),
        );
        command.extend(["-serial", "stdio", "-kernel"].map(String::from));
        Self::start_stdio_command(&command, elf)
    }

    /// Runs `command` (program and arguments, e.g. from [`cargo_runner`]) with `elf` appended,
    /// expecting it to carry the UART on its stdin/stdout.
    pub fn start_stdio_command(command: &[String], elf: &Path) -> Result<Self, String> {
        let (program, args) = command.split_first().ok_or("empty QEMU command")?;
        let (mut process, stderr) = spawn(
            Command::new(program)
                .args(args)
                .arg(elf)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped()),
        )?;
        let stdin = process.0.stdin.take().ok_or("QEMU has no stdin pipe")?;
        let mut stdout = process.0.stdout.take().ok_or("QEMU has no stdout pipe")?;
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                match stdout.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        if sender.send(buf[..n].to_vec()).is_err() {
                            break;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        });
        Ok(QemuGuard {
            process,
            link: Link::Stdio {
                stdin,
                stdout: receiver,
            },
            pending: Vec::new(),
            stderr,
            _temp_dir: None,
        })
    }

    /// QEMU's process id.
    pub fn pid(&self) -> u32 {
        self.process.0.id()
    }

    /// The UART socket (for raw reads and writes, or `try_clone` for a writer thread); `None` for
    /// a stdio UART. Bytes already buffered by [`read_line`](Self::read_line) are not in it.
    pub fn stream(&self) -> Option<&UnixStream> {
        match &self.link {
            Link::Socket(stream) => Some(stream),
            Link::Stdio { .. } => None,
        }
    }

    /// Sends raw bytes to the guest UART.
    pub fn send_bytes(&mut self, bytes: &[u8]) -> Result<(), String> {
        let result = match &mut self.link {
            Link::Socket(stream) => stream.write_all(bytes),
            Link::Stdio { stdin, .. } => stdin.write_all(bytes).and_then(|()| stdin.flush()),
        };
        result.map_err(|e| format!("cannot write to the UART: {e}"))
    }

    /// Sends `line` and a LF.
    pub fn send_line(&mut self, line: &str) -> Result<(), String> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.send_bytes(&bytes)
    }

    /// The next LF-terminated line from the guest UART, without its LF (invalid UTF-8 replaced),
    /// or `None` if none completes within `timeout` or the UART closed.
    pub fn read_line(&mut self, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=end).collect();
                return Some(String::from_utf8_lossy(&line[..end]).into_owned());
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            match &mut self.link {
                Link::Socket(stream) => {
                    stream
                        .set_read_timeout(Some(left.max(Duration::from_millis(1))))
                        .ok()?;
                    let mut buf = [0u8; 4096];
                    match stream.read(&mut buf) {
                        Ok(0) => return None,
                        Ok(n) => self.pending.extend_from_slice(&buf[..n]),
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e)
                            if matches!(
                                e.kind(),
                                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                            ) => {}
                        Err(_) => return None,
                    }
                }
                Link::Stdio { stdout, .. } => match stdout.recv_timeout(left) {
                    Ok(bytes) => self.pending.extend_from_slice(&bytes),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => return None,
                },
            }
        }
    }

    /// Sends `line` and returns the next line from the guest parsed as JSON; an error says what
    /// was (or was not) received, with QEMU's stderr.
    pub fn exchange(&mut self, line: &str, timeout: Duration) -> Result<serde_json::Value, String> {
        self.send_line(line)?;
        self.read_json(timeout)
    }

    /// The next line from the guest parsed as JSON.
    pub fn read_json(&mut self, timeout: Duration) -> Result<serde_json::Value, String> {
        let Some(reply) = self.read_line(timeout) else {
            return Err(format!(
                "no response line within {timeout:?}; QEMU stderr:\n{}",
                self.logs().join("\n")
            ));
        };
        serde_json::from_str(&reply).map_err(|e| format!("response is not JSON ({e}): {reply}"))
    }

    /// Waits until QEMU printed a stderr line containing `needle` (semihosting logs arrive
    /// there); returns that line, or `None` after `timeout`.
    pub fn wait_for_log(&self, needle: &str, timeout: Duration) -> Option<String> {
        self.stderr.wait_for(needle, timeout)
    }

    /// All stderr lines so far (for failure messages).
    pub fn logs(&self) -> Vec<String> {
        self.stderr.snapshot()
    }

    /// CPU time QEMU has used so far (user + system, from `/proc/PID/stat`; Linux only).
    pub fn cpu_time(&self) -> Option<Duration> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).ok()?;
        // Fields after the parenthesised command name start at field 3; utime and stime are
        // fields 14 and 15, in clock ticks of 1/100 s (USER_HZ on Linux).
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        let ticks: u64 =
            fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        Some(Duration::from_millis(ticks * 10))
    }
}
