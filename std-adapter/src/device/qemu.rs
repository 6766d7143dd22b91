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
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::command::stdio_child;
use super::qemu_config::{QemuConfig, QemuWiring};
use super::{ChildGuard, CloseAction, Closer, DeviceError, Logger, OpenStreams, Streams};

/// How long QEMU may take to open its UART socket.
pub const SOCKET_WAIT: Duration = Duration::from_secs(10);

fn socket_path() -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("embedded-mcp-{}-{n}.sock", std::process::id()))
}

/// Starts QEMU and connects to its UART.
pub fn open(config: &QemuConfig, log: &Logger) -> Result<OpenStreams, DeviceError> {
    if !config.firmware.is_file() {
        return Err(DeviceError::Config(format!(
            "firmware {} not found (build it first, see BRIDGE.md)",
            config.firmware.display()
        )));
    }
    // The QEMU program and board follow the image's architecture (`--qemu-bin` still wins).
    let arch = super::elf_arch::of_file(&config.firmware);
    if arch.is_none() {
        return Err(DeviceError::Config(format!(
            "{} is not an ELF file: --qemu takes the firmware's ELF image \
             (target/TARGET/release/NAME after `cargo build --release`)",
            config.firmware.display()
        )));
    }
    let config = &super::elf_arch::fit(config, arch);
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
                .stderr(Stdio::piped());
            log.info(format_args!("starting {what}, UART on {}", path.display()));
            let guard = ChildGuard::spawn(&mut cmd)
                .map_err(|e| DeviceError::io(format!("starting {what}"), e))?;
            let mut closer = Closer::default();
            closer.push(CloseAction::RemoveFile(path.clone()));
            let (_, stdout, stderr) = guard.take_stdio();
            if let Some(stdout) = stdout {
                forward_stdout(stdout, log.clone());
            }
            if let Some(stderr) = stderr {
                forward_stderr(stderr, log.clone());
            }
            let stream = connect(&path, &guard, &what)?;
            closer.push(CloseAction::Child(guard));
            // QEMU keeps its listening socket open; the path is no longer needed.
            let _ = std::fs::remove_file(&path);
            Ok(OpenStreams {
                streams: Streams::Unix(stream),
                closer,
            })
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

/// QEMU's stdout (semihosting output of the firmware) goes to the log, never to our stdout: read
/// by a task of the caller's tokio runtime (the bridge's), or by a thread without one (the
/// `tools` and `call` commands).
fn forward_stdout(stdout: std::process::ChildStdout, log: Logger) {
    let note = |log: &Logger, line: &[u8]| {
        log.note(
            "qemu",
            format_args!("{}", String::from_utf8_lossy(line).trim_end()),
        );
    };
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        let _guard = runtime.enter();
        if let Ok(stdout) = tokio::process::ChildStdout::from_std(stdout) {
            runtime.spawn(async move {
                use tokio::io::AsyncBufReadExt;
                let mut lines = tokio::io::BufReader::new(stdout).split(b'\n');
                while let Ok(Some(line)) = lines.next_segment().await {
                    note(&log, &line);
                }
            });
        }
        return;
    }
    let _ = std::thread::Builder::new()
        .name("qemu-stdout".into())
        .spawn(move || {
            for line in BufReader::new(stdout).split(b'\n').map_while(Result::ok) {
                note(&log, &line);
            }
        });
}

/// QEMU's stderr: its routine messages (waiting for the socket's connection, a timer it
/// disables) go to the log, shown with `-v`; anything else (its errors, the firmware's
/// semihosting stderr) to our stderr as it came.
fn forward_stderr(stderr: std::process::ChildStderr, log: Logger) {
    let _ = std::thread::Builder::new()
        .name("qemu-stderr".into())
        .spawn(move || {
            for line in BufReader::new(stderr).split(b'\n').map_while(Result::ok) {
                let line = String::from_utf8_lossy(&line);
                let line = line.trim_end();
                if is_routine(line) {
                    log.info(format_args!("qemu: {line}"));
                } else {
                    eprintln!("{line}");
                }
            }
        });
}

/// Whether a line of QEMU's stderr is one of its routine messages rather than an error.
fn is_routine(line: &str) -> bool {
    const ROUTINE: [&str; 2] = [
        "info: QEMU waiting for connection on",
        "Timer with period zero, disabling",
    ];
    ROUTINE.iter().any(|text| line.contains(text))
}

#[cfg(test)]
mod tests {
    use super::is_routine;

    #[test]
    fn routine_messages_are_told_from_errors() {
        assert!(is_routine("qemu-system-arm: -chardev socket,id=u0,path=/tmp/e.sock,server=on,wait=on: info: QEMU waiting for connection on: disconnected:unix:/tmp/e.sock,server=on"));
        assert!(is_routine("Timer with period zero, disabling"));
        assert!(!is_routine(
            "qemu-system-arm: -machine foo: unsupported machine type"
        ));
        assert!(!is_routine("qemu-sensors: ready, MCP on UART0"));
    }
}
