//! Links over a connected socket: a unix stream socket (`--unix`, and QEMU's UART socket) or a
//! TCP connection (`--tcp`).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::path::Path;

use super::{BlockingHalves, CloseAction, Closer, DeviceError, OpenStreams, Streams};

/// Connects to the unix stream socket at `path`.
pub fn open_unix(path: &Path) -> Result<OpenStreams, DeviceError> {
    let stream = UnixStream::connect(path)
        .map_err(|e| DeviceError::io(format!("connecting to {}", path.display()), e))?;
    Ok(OpenStreams {
        streams: Streams::Unix(stream),
        closer: Closer::default(),
    })
}

/// Connects to `addr` (`host:port`) over TCP.
pub fn open_tcp(addr: &str) -> Result<OpenStreams, DeviceError> {
    let stream = TcpStream::connect(addr)
        .map_err(|e| DeviceError::io(format!("connecting to {addr}"), e))?;
    let _ = stream.set_nodelay(true);
    Ok(OpenStreams {
        streams: Streams::Tcp(stream),
        closer: Closer::default(),
    })
}

/// A connected socket a link reads and writes, with another handle kept to shut it down.
pub(super) trait Socket: Read + Write + Send + Sized + 'static {
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

/// Gives `closer` a handle that shuts the socket down (added after the closing steps already
/// due: a child process, a file to remove).
pub(super) fn shut_on_close<S: Socket>(stream: &S, closer: &mut Closer) -> Result<(), DeviceError> {
    let shutdown = stream
        .duplicate()
        .map_err(|e| DeviceError::io("cloning socket", e))?;
    closer.push(shutdown.close_action());
    Ok(())
}

/// The blocking reader and writer of a socket, its shutdown given to `closer`.
pub(super) fn split<S: Socket>(
    stream: S,
    closer: &mut Closer,
) -> Result<BlockingHalves, DeviceError> {
    shut_on_close(&stream, closer)?;
    let writer = stream
        .duplicate()
        .map_err(|e| DeviceError::io("cloning socket", e))?;
    Ok((Box::new(stream), Box::new(writer)))
}
