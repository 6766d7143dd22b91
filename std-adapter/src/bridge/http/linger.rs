//! Closing a client connection so that the client reads our last answer. Closing a TCP socket
//! while the client's bytes are still arriving (an over-long body, an endless head) makes the
//! kernel send a reset, and the client may then lose the `413` or `431` it was sent. So a
//! connection ends with a lingering close: our side is shut down for writing (the client sees
//! the end of the answer), then what the client still sends is read and dropped, bounded in
//! time and bytes, until it closes too.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;

/// Longest lingering close.
const LINGER_FOR: Duration = Duration::from_secs(2);
/// Most bytes read and dropped while lingering.
const LINGER_BYTES: usize = 16 << 20;
/// Most connections lingering at once; past that a connection is closed at once.
const MAX_LINGERING: usize = 256;

/// A client connection that closes lingeringly when dropped.
pub(super) struct Lingering {
    stream: Option<TcpStream>,
    /// Set when the connection is shed: it is then closed at once.
    abrupt: Arc<AtomicBool>,
    lingering: Arc<AtomicUsize>,
}

impl Lingering {
    /// Wraps `stream`; `abrupt` set before the drop skips the linger; `lingering` counts the
    /// connections lingering now (shared by all).
    pub(super) fn new(
        stream: TcpStream,
        abrupt: Arc<AtomicBool>,
        lingering: Arc<AtomicUsize>,
    ) -> Self {
        Self {
            stream: Some(stream),
            abrupt,
            lingering,
        }
    }

    fn stream(&mut self) -> io::Result<Pin<&mut TcpStream>> {
        self.stream
            .as_mut()
            .map(Pin::new)
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotConnected))
    }
}

impl AsyncRead for Lingering {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut().stream() {
            Ok(stream) => stream.poll_read(cx, buf),
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

impl AsyncWrite for Lingering {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut().stream() {
            Ok(stream) => stream.poll_write(cx, buf),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut().stream() {
            Ok(stream) => stream.poll_write_vectored(cx, bufs),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut().stream() {
            Ok(stream) => stream.poll_flush(cx),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut().stream() {
            Ok(stream) => stream.poll_shutdown(cx),
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

impl Drop for Lingering {
    fn drop(&mut self) {
        let Some(stream) = self.stream.take() else {
            return;
        };
        if self.abrupt.load(Ordering::SeqCst) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if self.lingering.fetch_add(1, Ordering::SeqCst) >= MAX_LINGERING {
            self.lingering.fetch_sub(1, Ordering::SeqCst);
            return;
        }
        let lingering = self.lingering.clone();
        runtime.spawn(async move {
            let _ = tokio::time::timeout(LINGER_FOR, drain(stream)).await;
            lingering.fetch_sub(1, Ordering::SeqCst);
        });
    }
}

/// Shuts `stream` down for writing, then reads and drops until the client closes (or
/// [`LINGER_BYTES`] were read).
async fn drain(mut stream: TcpStream) {
    let _ = stream.shutdown().await;
    let mut scratch = [0u8; 8192];
    let mut total = 0;
    while total < LINGER_BYTES {
        match stream.read(&mut scratch).await {
            Ok(0) | Err(_) => return,
            Ok(n) => total += n,
        }
    }
}
