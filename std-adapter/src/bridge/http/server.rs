//! The accept loop: every connection admitted into the connection table ([`super::slots`]),
//! served by hyper's HTTP/1.1 (keep-alive, pipelining, chunked bodies; the head bounded in size
//! with 431 and in time), shed when a newer connection needs its place while it waits, and
//! closed lingeringly ([`super::linger`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

use super::connection_limit::{ConnectionLimit, Shed};
use super::exchange::{BodyLimits, Exchange};
use super::front_state::FrontState;
use super::linger::Lingering;
use crate::bridge::message::error_response;
use crate::bridge::message::INVALID_REQUEST;

/// The bounds the accept loop enforces.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bounds {
    /// Most open connections.
    pub(super) max_connections: usize,
    /// Longest request head in bytes (431 past it).
    pub(super) max_head: usize,
    /// Longest time to receive a head, counted from the end of the previous answer on a
    /// keep-alive connection (the connection closes past it).
    pub(super) head_deadline: Duration,
    /// The bounds of a body.
    pub(super) body: BodyLimits,
}

/// hyper's read buffer bound per connection (hyper's minimum is 8 KiB).
const READ_BUFFER: usize = 64 * 1024;

/// Accepts connections on `listener` until the task is dropped.
pub(super) async fn accept(listener: TcpListener, front: Arc<FrontState>, bounds: Bounds) {
    let limit = Arc::new(ConnectionLimit::new(bounds.max_connections));
    let lingering = Arc::new(AtomicUsize::new(0));
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(bounds.head_deadline)
        .max_header_size(bounds.max_head)
        .max_buf_size(READ_BUFFER.max(bounds.max_head));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok((stream, peer)) => (stream, peer.ip().to_string()),
            Err(e) => {
                // Out of file descriptors, or the peer left before the accept: wait a little
                // rather than spin.
                front
                    .log
                    .warn(format_args!("accepting a connection failed: {e}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let shed = Arc::new(Shed::default());
        let Some(slot) = limit.admit(shed.clone()) else {
            tokio::spawn(turn_away(stream, shed, lingering.clone()));
            continue;
        };
        let io = TokioIo::new(Lingering::new(
            stream,
            shed.abrupt.clone(),
            lingering.clone(),
        ));
        let exchange = Exchange {
            front: front.clone(),
            limit: limit.clone(),
            slot,
            body: bounds.body,
            peer,
        };
        let connection = http.serve_connection(io, service_fn(move |r| exchange.clone().answer(r)));
        let limit = limit.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = connection => {}
                () = shed.now.notified() => {}
            }
            limit.close(slot);
        });
    }
}

/// Every connection is answering a request: a 503 to the newcomer, and close.
async fn turn_away(mut stream: TcpStream, shed: Arc<Shed>, lingering: Arc<AtomicUsize>) {
    let body = error_response(
        None,
        INVALID_REQUEST,
        "Service unavailable: too many connections",
    );
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut answer = head.into_bytes();
    answer.extend_from_slice(&body);
    let write = stream.write_all(&answer);
    if tokio::time::timeout(Duration::from_secs(1), write)
        .await
        .is_err()
    {
        shed.abrupt.store(true, Ordering::SeqCst);
    }
    drop(Lingering::new(stream, shed.abrupt.clone(), lingering));
}
