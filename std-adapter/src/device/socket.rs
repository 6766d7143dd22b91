//! Links over a connected socket: a unix stream socket (`--unix`, and QEMU's UART socket) or a
//! TCP connection (`--tcp`).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::path::Path;

use super::{CloseAction, Closer, DeviceError, Link};

/// Connects to the unix stream socket at `path`.
pub fn open_unix(path: &Path) -> Result<Link, DeviceError> {
    let stream = UnixStream::connect(path)
        .map_err(|e| DeviceError::io(format!("connecting to {}", path.display()), e))?;
    socket_link(stream, Closer::default())
}

/// Connects to `addr` (`host:port`) over TCP.
pub fn open_tcp(addr: &str) -> Result<Link, DeviceError> {
    let stream = TcpStream::connect(addr)
        .map_err(|e| DeviceError::io(format!("connecting to {addr}"), e))?;
    let _ = stream.set_nodelay(true);
    socket_link(stream, Closer::default())
}

/// A connected socket the link reads and writes through two handles, with a third kept to shut
/// it down.
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

/// The link over a connected socket; `closer` holds the closing steps already due (a child
/// process, a file to remove), and the socket's shutdown is added to them.
pub(super) fn socket_link<S: Socket>(stream: S, mut closer: Closer) -> Result<Link, DeviceError> {
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
