//! Connections to a device that speaks MCP as newline-delimited JSON-RPC.
//!
//! An [`Endpoint`] says where the device is (a serial port, a unix socket, a TCP port, firmware to
//! run under QEMU, or a child process); [`Endpoint::open_streams`] opens its byte streams
//! ([`OpenStreams`]), and [`Endpoint::open`] makes them a blocking [`Link`]: a byte reader, a
//! byte writer and a [`Closer`] that unblocks the reader and stops whatever process was started.
//! The bridge makes them tokio I/O instead ([`OpenStreams::into_tokio`]).
//! Framing of the byte stream into lines is [`lines::LineReader`]; [`client::Client`] is a small
//! blocking MCP client on top, used by the `tools` and `call` commands.

pub mod child;
pub mod client;
pub mod command;
pub mod elf_arch;
pub mod lines;
pub mod qemu;
pub mod qemu_config;
pub mod remote;
pub mod serial;
pub mod socket;
pub mod spawner;
pub mod tokio_link;

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::{ChildStdin, ChildStdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The bridge's logger lives in [`crate::log`], below the device links and the bridge alike.
pub use crate::log;
pub use crate::log::subscriber as log_subscriber;
pub use crate::log::Logger;
pub use child::ChildGuard;
pub use command::split_command_line;
pub use qemu_config::{Machine, QemuConfig, QemuWiring};
pub use remote::RemoteConfig;
pub use tokio_link::TokioLink;

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
    /// Another MCP server over Streamable HTTP (a remote gateway), linked by the bridge only.
    Remote(RemoteConfig),
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
            Self::Remote(remote) => remote.fmt(f),
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

/// A device's byte streams as opened, each kind as itself, so that a blocking [`Link`] and the
/// bridge's tokio link are made from the same opening.
#[non_exhaustive]
pub enum Streams {
    /// A TCP connection.
    Tcp(TcpStream),
    /// A unix stream socket.
    Unix(UnixStream),
    /// A child process's stdin (to the device) and stdout (from it).
    Pipes {
        /// Bytes to the device.
        stdin: ChildStdin,
        /// Bytes from the device.
        stdout: ChildStdout,
    },
    /// Streams read and written by blocking calls only (a serial port).
    Blocking {
        /// Bytes from the device; end-of-file once the link is closed.
        reader: Box<dyn Read + Send>,
        /// Bytes to the device.
        writer: Box<dyn Write + Send>,
    },
}

/// A blocking reader (bytes from the device) and writer (bytes to it).
type BlockingHalves = (Box<dyn Read + Send>, Box<dyn Write + Send>);

/// A device's opened streams and what closing them takes.
pub struct OpenStreams {
    /// The byte streams.
    pub streams: Streams,
    /// Stops the process behind the streams, if any (the sockets' shutdown is added when they
    /// are split into a link).
    pub closer: Closer,
}

impl std::fmt::Debug for OpenStreams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenStreams")
            .field("closer", &self.closer)
            .finish_non_exhaustive()
    }
}

impl OpenStreams {
    /// The blocking link over these streams: a socket is read and written through two handles,
    /// and a third, kept by the closer, shuts it down.
    pub fn into_link(self) -> Result<Link, DeviceError> {
        let Self {
            streams,
            mut closer,
        } = self;
        let (reader, writer): BlockingHalves = match streams {
            Streams::Tcp(stream) => socket::split(stream, &mut closer)?,
            Streams::Unix(stream) => socket::split(stream, &mut closer)?,
            Streams::Pipes { stdin, stdout } => (Box::new(stdout), Box::new(stdin)),
            Streams::Blocking { reader, writer } => (reader, writer),
        };
        Ok(Link {
            reader,
            writer,
            closer,
        })
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
    /// Opens a blocking link: connects, or starts the process (QEMU, command) and connects to it.
    pub fn open(&self, log: &Logger) -> Result<Link, DeviceError> {
        self.open_streams(log)?.into_link()
    }

    /// Opens the device's byte streams (blocking: connecting, or starting the process and
    /// waiting for its UART socket, may take seconds).
    pub fn open_streams(&self, log: &Logger) -> Result<OpenStreams, DeviceError> {
        match self {
            Self::Serial { path, baud } => serial::open(path, *baud),
            Self::Unix(path) => socket::open_unix(path),
            Self::Tcp(addr) => socket::open_tcp(addr),
            Self::Qemu(config) => qemu::open(config, log),
            Self::Command(argv) => command::open(argv),
            Self::Remote(_) => Err(DeviceError::Config(
                "a gateway is linked by `bridge --device` only (this command reaches a device \
                 over a byte stream; ask the gateway's own bridge instead)"
                    .into(),
            )),
        }
    }
}
