//! Connections to a device that speaks MCP as newline-delimited JSON-RPC.
//!
//! An [`Endpoint`] says where the device is (a serial port, a unix socket, a TCP port, firmware to
//! run under QEMU, or a child process); [`Endpoint::open`] yields a [`Link`]: a byte reader, a
//! byte writer and a [`Closer`] that unblocks the reader and stops whatever process was started.
//! Framing of the byte stream into lines is [`lines::LineReader`]; [`client::Client`] is a small
//! blocking MCP client on top, used by the `tools` and `call` commands.

pub mod child;
pub mod client;
pub mod elf_arch;
pub mod lines;
pub mod log;
pub mod log_subscriber;
pub mod qemu;
pub mod serial;
pub mod spawner;

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub use child::ChildGuard;
pub use log::Logger;
pub use qemu::{Machine, QemuConfig, QemuWiring};

/// Where the device is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A serial port (`/dev/ttyACM0`, `/dev/ttyUSB0`, a pty) at `baud` 8N1.
    Serial {
        /// Device node.
        path: PathBuf,
        /// Baud rate (ignored by USB CDC-ACM ports and ptys).
        baud: u32,
    },
    /// A unix stream socket (for example QEMU's `-chardev socket,...,server=on`).
    Unix(PathBuf),
    /// A TCP connection to `host:port`.
    Tcp(String),
    /// Firmware run under QEMU, started by the bridge and stopped with it.
    Qemu(QemuConfig),
    /// A child process speaking MCP on its stdin/stdout (program and arguments).
    Command(Vec<String>),
}

/// Default baud rate of `--serial`.
pub const DEFAULT_BAUD: u32 = 115_200;

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Serial { path, baud } => write!(f, "serial {} at {baud} baud", path.display()),
            Self::Unix(path) => write!(f, "unix socket {}", path.display()),
            Self::Tcp(addr) => write!(f, "tcp {addr}"),
            Self::Qemu(q) => write!(
                f,
                "{} {} ({})",
                q.program,
                q.firmware.display(),
                q.machine.name()
            ),
            Self::Command(argv) => write!(f, "command `{}`", argv.join(" ")),
        }
    }
}

/// Why a device could not be reached.
#[derive(Debug)]
#[non_exhaustive]
pub enum DeviceError {
    /// An operating-system error while opening or starting the device.
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        source: io::Error,
    },
    /// The started process (QEMU or a `--command`) exited before the link was up.
    Exited {
        /// What was started.
        what: String,
        /// Its exit status.
        status: std::process::ExitStatus,
    },
    /// The configuration cannot work (missing firmware file, empty command, ...).
    Config(String),
}

impl DeviceError {
    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> Self {
        Self::Io {
            context: context.into(),
            source,
        }
    }
}

impl std::fmt::Display for DeviceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Io { context, source } => write!(f, "{context}: {source}"),
            Self::Exited { what, status } => write!(f, "{what} exited early ({status})"),
            Self::Config(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for DeviceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// An open byte link to a device. Dropping it (or its [`Closer`]) closes it.
pub struct Link {
    /// Bytes from the device. Returns end-of-file once the link is closed.
    pub reader: Box<dyn Read + Send>,
    /// Bytes to the device.
    pub writer: Box<dyn Write + Send>,
    /// Unblocks the reader and stops the process behind the link, if any.
    pub closer: Closer,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("closer", &self.closer)
            .finish_non_exhaustive()
    }
}

/// What closing one link takes: socket shutdowns, a stop flag, child processes, files to remove.
#[derive(Debug, Default)]
pub struct Closer {
    actions: Vec<CloseAction>,
}

#[derive(Debug)]
enum CloseAction {
    Unix(UnixStream),
    Tcp(TcpStream),
    Flag(Arc<AtomicBool>),
    Child(ChildGuard),
    RemoveFile(PathBuf),
}

/// A connected socket the link reads and writes through two handles, with a third kept to shut
/// it down.
trait Socket: Read + Write + Send + Sized + 'static {
    /// Another handle to the same socket.
    fn duplicate(&self) -> io::Result<Self>;
    /// How the closer shuts this handle's socket down.
    fn close_action(self) -> CloseAction;
}

impl Socket for UnixStream {
    fn duplicate(&self) -> io::Result<Self> {
        self.try_clone()
    }
    fn close_action(self) -> CloseAction {
        CloseAction::Unix(self)
    }
}

impl Socket for TcpStream {
    fn duplicate(&self) -> io::Result<Self> {
        self.try_clone()
    }
    fn close_action(self) -> CloseAction {
        CloseAction::Tcp(self)
    }
}

/// The link over a connected socket; `closer` holds the closing steps already due (a child
/// process, a file to remove), and the socket's shutdown is added to them.
fn socket_link<S: Socket>(stream: S, mut closer: Closer) -> Result<Link, DeviceError> {
    let handle = || {
        stream
            .duplicate()
            .map_err(|e| DeviceError::io("cloning socket", e))
    };
    let (writer, shutdown) = (handle()?, handle()?);
    closer.push(shutdown.close_action());
    Ok(Link {
        reader: Box::new(stream),
        writer: Box::new(writer),
        closer,
    })
}

impl Closer {
    fn push(&mut self, action: CloseAction) {
        self.actions.push(action);
    }

    /// Closes the link now: stops children first (their pipes then end), then sockets. Idempotent.
    pub fn close(&mut self) {
        for action in self.actions.drain(..).rev() {
            match action {
                CloseAction::Unix(s) => {
                    let _ = s.shutdown(std::net::Shutdown::Both);
                }
                CloseAction::Tcp(s) => {
                    let _ = s.shutdown(std::net::Shutdown::Both);
                }
                CloseAction::Flag(f) => f.store(true, Ordering::SeqCst),
                CloseAction::Child(c) => c.kill(),
                CloseAction::RemoveFile(p) => {
                    let _ = std::fs::remove_file(p);
                }
            }
        }
    }

    /// The pid of the process behind the link, if one was started.
    pub fn child_pid(&self) -> Option<u32> {
        self.actions.iter().find_map(|a| match a {
            CloseAction::Child(c) => Some(c.pid()),
            _ => None,
        })
    }

    /// Exit status of the process behind the link if it has exited.
    pub fn child_exited(&self) -> Option<std::process::ExitStatus> {
        self.actions.iter().find_map(|a| match a {
            CloseAction::Child(c) => c.try_wait(),
            _ => None,
        })
    }
}

impl Drop for Closer {
    fn drop(&mut self) {
        self.close();
    }
}

impl Endpoint {
    /// Opens a link: connects, or starts the process (QEMU, command) and connects to it.
    pub fn open(&self, log: &Logger) -> Result<Link, DeviceError> {
        match self {
            Self::Serial { path, baud } => serial::open(path, *baud),
            Self::Unix(path) => {
                let stream = UnixStream::connect(path)
                    .map_err(|e| DeviceError::io(format!("connecting to {}", path.display()), e))?;
                socket_link(stream, Closer::default())
            }
            Self::Tcp(addr) => {
                let stream = TcpStream::connect(addr.as_str())
                    .map_err(|e| DeviceError::io(format!("connecting to {addr}"), e))?;
                let _ = stream.set_nodelay(true);
                socket_link(stream, Closer::default())
            }
            Self::Qemu(config) => qemu::open(config, log),
            Self::Command(argv) => {
                let (program, args) = argv
                    .split_first()
                    .ok_or_else(|| DeviceError::Config("--command needs a program".into()))?;
                let mut cmd = Command::new(program);
                cmd.args(args)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::inherit());
                stdio_child(cmd, &format!("`{}`", argv.join(" ")))
            }
        }
    }
}

/// Starts `cmd` (stdin and stdout piped) and makes its stdio the link.
pub(crate) fn stdio_child(mut cmd: Command, what: &str) -> Result<Link, DeviceError> {
    let guard =
        ChildGuard::spawn(&mut cmd).map_err(|e| DeviceError::io(format!("starting {what}"), e))?;
    let (stdin, stdout, _) = guard.take_stdio();
    let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
        return Err(DeviceError::Config(format!("{what}: stdio not piped")));
    };
    let mut closer = Closer::default();
    closer.push(CloseAction::Child(guard));
    Ok(Link {
        reader: Box::new(stdout),
        writer: Box::new(stdin),
        closer,
    })
}

/// Splits a `--command` string into program and arguments: whitespace separates words, single
/// and double quotes group, a backslash escapes the next character (outside single quotes).
pub fn split_command_line(line: &str) -> Result<Vec<String>, DeviceError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('\''), c) => word.push(c),
            (_, '\\') => {
                let next = chars
                    .next()
                    .ok_or_else(|| DeviceError::Config("--command ends with a backslash".into()))?;
                word.push(next);
                in_word = true;
            }
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err(DeviceError::Config(
            "--command has an unclosed quote".into(),
        ));
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(DeviceError::Config("--command is empty".into()));
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        assert_eq!(
            split_command_line(r#"prog -a 'b c' "d \"e\"" f\ g"#).unwrap(),
            vec!["prog", "-a", "b c", "d \"e\"", "f g"]
        );
        assert_eq!(split_command_line("  x  ''  ").unwrap(), vec!["x", ""]);
        assert!(split_command_line("a 'b").is_err());
        assert!(split_command_line("   ").is_err());
    }
}
