//! The router's side of a remote link as a byte reader: lines the link's tasks hand over on a
//! channel, each with its newline, then end of stream, or the error that ended the link (so the
//! router's `LinkEvent::Closed` says why the gateway went away).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::mpsc::Receiver;

/// What the link's tasks hand the router: a line, or why the link ended.
pub(super) type Delivery = Result<Vec<u8>, String>;

/// Reads the lines of a channel as bytes.
pub(super) struct ChannelReader {
    lines: Receiver<Delivery>,
    /// The rest of the line being read.
    pending: Vec<u8>,
    at: usize,
}

impl ChannelReader {
    pub(super) fn new(lines: Receiver<Delivery>) -> Self {
        Self {
            lines,
            pending: Vec::new(),
            at: 0,
        }
    }
}

impl AsyncRead for ChannelReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        while this.at == this.pending.len() {
            match this.lines.poll_recv(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => return Poll::Ready(Ok(())),
                Poll::Ready(Some(Err(why))) => return Poll::Ready(Err(io::Error::other(why))),
                Poll::Ready(Some(Ok(mut line))) => {
                    line.push(b'\n');
                    this.pending = line;
                    this.at = 0;
                }
            }
        }
        let n = buf.remaining().min(this.pending.len() - this.at);
        buf.put_slice(&this.pending[this.at..this.at + n]);
        this.at += n;
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn lines_then_the_reason_the_link_ended() {
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        tx.send(Ok(b"{\"a\":1}".to_vec())).await.unwrap();
        tx.send(Err("the gateway went away".into())).await.unwrap();
        let mut reader = ChannelReader::new(rx);
        let mut small = [0u8; 3];
        let mut got = Vec::new();
        loop {
            match reader.read(&mut small).await {
                Ok(n) => got.extend_from_slice(&small[..n]),
                Err(e) => {
                    assert_eq!(e.to_string(), "the gateway went away");
                    break;
                }
            }
        }
        assert_eq!(got, b"{\"a\":1}\n");
    }
}
