//! A device's streams as tokio I/O, for the bridge: sockets through `tokio::net`, a child's
//! pipes through `tokio::process`, so a link costs the bridge no thread. A serial port has no
//! such form here and stays a blocking [`Link`] (see BRIDGE.md, "How it is built").

use tokio::io::{AsyncRead, AsyncWrite};

use super::socket::shut_on_close;
use super::{Closer, DeviceError, Link, OpenStreams, Streams};

/// A tokio reader (bytes from the device) and writer (bytes to it).
type TokioHalves = (
    Box<dyn AsyncRead + Send + Unpin>,
    Box<dyn AsyncWrite + Send + Unpin>,
);

/// An opened link as the bridge reads it.
pub enum TokioLink {
    /// Read and written by tasks of the caller's runtime.
    Tokio {
        /// Bytes from the device; end-of-file once the link is closed.
        reader: Box<dyn AsyncRead + Send + Unpin>,
        /// Bytes to the device.
        writer: Box<dyn AsyncWrite + Send + Unpin>,
        /// Shuts the socket down and stops the process behind the link, if any.
        closer: Closer,
    },
    /// Read and written by blocking calls (a serial port).
    Blocking(Link),
}

impl std::fmt::Debug for TokioLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokioLink")
            .field("closer", self.closer())
            .finish_non_exhaustive()
    }
}

impl TokioLink {
    /// What closes the link.
    pub fn closer(&self) -> &Closer {
        match self {
            Self::Tokio { closer, .. } => closer,
            Self::Blocking(link) => &link.closer,
        }
    }
}

impl OpenStreams {
    /// The streams as tokio I/O where they have such a form. Must be called inside a tokio
    /// runtime whose I/O driver is enabled.
    pub fn into_tokio(self) -> Result<TokioLink, DeviceError> {
        let Self {
            streams,
            mut closer,
        } = self;
        let io = |e| DeviceError::io("registering the link with tokio", e);
        let (reader, writer): TokioHalves = match streams {
            Streams::Tcp(stream) => {
                shut_on_close(&stream, &mut closer)?;
                stream.set_nonblocking(true).map_err(io)?;
                let stream = tokio::net::TcpStream::from_std(stream).map_err(io)?;
                let (reader, writer) = stream.into_split();
                (Box::new(reader), Box::new(writer))
            }
            Streams::Unix(stream) => {
                shut_on_close(&stream, &mut closer)?;
                stream.set_nonblocking(true).map_err(io)?;
                let stream = tokio::net::UnixStream::from_std(stream).map_err(io)?;
                let (reader, writer) = stream.into_split();
                (Box::new(reader), Box::new(writer))
            }
            Streams::Pipes { stdin, stdout } => {
                let reader = tokio::process::ChildStdout::from_std(stdout).map_err(io)?;
                let writer = tokio::process::ChildStdin::from_std(stdin).map_err(io)?;
                (Box::new(reader), Box::new(writer))
            }
            blocking @ Streams::Blocking { .. } => {
                let streams = Self {
                    streams: blocking,
                    closer,
                };
                return Ok(TokioLink::Blocking(streams.into_link()?));
            }
        };
        Ok(TokioLink::Tokio {
            reader,
            writer,
            closer,
        })
    }
}
