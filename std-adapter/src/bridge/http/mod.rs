//! The HTTP front of the bridge (`embedded-mcp bridge --http ADDR:PORT`): MCP Streamable HTTP at
//! `/mcp` for any number of clients, in front of one device.
//!
//! It is a layer on top of the routing loop, not a part of it: the routing loop runs exactly as
//! for a stdio host, and the front is its one host, talking to it through a line pipe
//! (`pipe`). What is per client lives here:
//!
//! - `hub`: each forwarded request gets a bridge-side id (and its progress token the same
//!   number), so requests of different clients never collide on the device's one stream; every
//!   response and notification the router writes goes back to the request it belongs to, with
//!   the client's own id and token put back byte for byte (`splice`).
//! - `legacy`: 2025-06-18 and 2025-11-25 sessions. The device's `InitializeResult` is learnt
//!   once by the front's own handshake (`handshake`) and every session's `initialize` is
//!   answered from it, so no session's handshake reaches the device; a session at another
//!   version than the device's gets the result translated and its requests carry its version in
//!   `_meta`.
//! - `stateless`: 2026-07-28 requests, checked against the headers that revision adds and
//!   forwarded as they are.
//! - `doors`: `Host`, `Origin` and the bearer token, checked before anything else.
//! - `front`: which era answers a request; `session`: the session table; `reply`: answers
//!   before they are written.
//! - `wire` and `connection`: HTTP/1.1 on std threads (one per connection, bounded), heads
//!   parsed by `httparse`, bodies bounded, answers as JSON or as SSE in chunked encoding.

mod connection;
mod doors;
mod front;
mod handshake;
mod hub;
mod legacy;
mod param_headers;
mod pipe;
mod reply;
mod session;
mod splice;
mod stateless;
mod wire;

pub use doors::Token;

use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;
use std::time::Duration;

use super::{BridgeConfig, BridgeError};
use crate::device::Logger;
use front::Front;
use handshake::Handshake;
use hub::Hub;
use pipe::{PipeIn, PipeOut};
use session::Sessions;

/// Default bound of a request body (1 MiB): a longer one gets 413.
pub const DEFAULT_MAX_BODY: usize = 1 << 20;

/// How the front listens and whom it lets in.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Address and port to listen on (`127.0.0.1` unless another address is given).
    pub bind: SocketAddr,
    /// Required bearer token (`--token-file`), if any.
    pub token: Option<Token>,
    /// Browser origins allowed besides this server's own (`--allowed-origin`); their hosts are
    /// accepted in `Host` too (needed when binding `0.0.0.0`).
    pub allowed_origins: Vec<String>,
    /// Longest request body (default [`DEFAULT_MAX_BODY`]).
    pub max_body: usize,
    /// Most legacy sessions at once (default 64); sessions idle for 10 minutes make room.
    pub max_sessions: usize,
    /// Most client connections at once (default 64); more get 503.
    pub max_connections: usize,
}

impl HttpConfig {
    /// The defaults documented on each field, listening on `bind`.
    pub fn new(bind: SocketAddr) -> Self {
        Self {
            bind,
            token: None,
            allowed_origins: Vec::new(),
            max_body: DEFAULT_MAX_BODY,
            max_sessions: 64,
            max_connections: 64,
        }
    }

    /// Parses `--http`'s value: `PORT`, `:PORT` or `localhost:PORT` (all on 127.0.0.1),
    /// `ADDR:PORT` or `[V6ADDR]:PORT`.
    pub fn parse_bind(text: &str) -> Option<SocketAddr> {
        let loopback = |port: &str| {
            port.parse::<u16>()
                .ok()
                .map(|p| SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), p))
        };
        if let Some(port) = text.strip_prefix(':').or(text.strip_prefix("localhost:")) {
            return loopback(port);
        }
        if !text.contains(':') {
            return loopback(text);
        }
        text.parse().ok()
    }
}

/// Why the HTTP front stopped.
#[derive(Debug)]
#[non_exhaustive]
pub enum HttpError {
    /// The address could not be bound.
    Bind(SocketAddr, io::Error),
    /// A thread could not be started.
    Thread(io::Error),
    /// The routing loop stopped.
    Router(BridgeError),
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Bind(addr, e) => write!(f, "cannot listen on {addr}: {e}"),
            Self::Thread(e) => write!(f, "starting a thread failed: {e}"),
            Self::Router(e) => write!(f, "the routing loop stopped: {e}"),
        }
    }
}

impl std::error::Error for HttpError {}

/// Binds `http.bind` and serves until the routing loop stops (in the binary: until a signal
/// ends the process). Logs `listening: http://ADDR:PORT/mcp` (always) once it accepts.
pub fn serve(bridge: BridgeConfig, http: HttpConfig, log: Logger) -> Result<(), HttpError> {
    let listener = TcpListener::bind(http.bind).map_err(|e| HttpError::Bind(http.bind, e))?;
    serve_on(listener, bridge, http, log)
}

/// [`serve`] on a listener bound already (its address is the one `Host` is checked against).
pub fn serve_on(
    listener: TcpListener,
    bridge: BridgeConfig,
    http: HttpConfig,
    log: Logger,
) -> Result<(), HttpError> {
    let bound = listener
        .local_addr()
        .map_err(|e| HttpError::Bind(http.bind, e))?;
    let reply_wait = bridge.timeout.saturating_mul(2) + Duration::from_secs(5);
    let (to_router, router_in) = channel();
    let (router_out, from_router) = channel();
    let front = Arc::new(Front {
        hub: Hub::new(to_router, log.clone()),
        sessions: Sessions::new(http.max_sessions, Duration::from_secs(600)),
        handshake: Handshake::new(),
        tool_headers: param_headers::ToolHeaders::new(),
        doors: doors::Doors::new(bound, &http.allowed_origins, http.token.clone()),
        reply_wait,
        log: log.clone(),
    });
    let stopped = Arc::new(AtomicBool::new(false));
    let router = {
        let (log, stopped) = (log.clone(), stopped.clone());
        std::thread::Builder::new()
            .name("router".into())
            .spawn(move || {
                let result = super::run(
                    bridge,
                    PipeIn::new(router_in),
                    PipeOut::new(router_out),
                    log,
                );
                stopped.store(true, Ordering::SeqCst);
                // Wake the accept loop up.
                let _ = TcpStream::connect(bound);
                result
            })
            .map_err(HttpError::Thread)?
    };
    {
        let front = front.clone();
        std::thread::Builder::new()
            .name("router-output".into())
            .spawn(move || {
                for line in from_router {
                    front.hub.on_router_line(line);
                }
            })
            .map_err(HttpError::Thread)?;
    }
    {
        // Learn the latest legacy handshake now, so the device is up when the first client comes.
        let front = front.clone();
        std::thread::Builder::new()
            .name("handshake".into())
            .spawn(move || {
                front.handshake.result(&front.hub, front.reply_wait);
            })
            .map_err(HttpError::Thread)?;
    }
    log.note("listening", format_args!("http://{bound}/mcp"));
    accept(&listener, &front, &http, &stopped);
    match router.join() {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(HttpError::Router(e)),
        Err(_) => Ok(()),
    }
}

/// Accepts connections (one thread each, at most `max_connections`) until `stopped`.
fn accept(listener: &TcpListener, front: &Arc<Front>, http: &HttpConfig, stopped: &AtomicBool) {
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        if stopped.load(Ordering::SeqCst) {
            return;
        }
        let Ok(mut stream) = stream else {
            continue;
        };
        if open.load(Ordering::SeqCst) >= http.max_connections {
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            let body = crate::bridge::message::error_response(
                None,
                crate::bridge::message::INVALID_REQUEST,
                "Service unavailable: too many connections",
            );
            let _ = wire::write_answer(
                &mut stream,
                &wire::Answer {
                    status: 503,
                    headers: vec![("Content-Type", "application/json".into())],
                    body: &body,
                    close: true,
                },
            );
            continue;
        }
        open.fetch_add(1, Ordering::SeqCst);
        let (shared, count, max_body) = (front.clone(), open.clone(), http.max_body);
        let spawned = std::thread::Builder::new()
            .name("http-connection".into())
            .spawn(move || {
                connection::serve(&shared, stream, max_body);
                count.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            open.fetch_sub(1, Ordering::SeqCst);
            front
                .log
                .warn(format_args!("could not start a connection thread"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bind_addresses() {
        let p = |t: &str| HttpConfig::parse_bind(t).map(|a| a.to_string());
        assert_eq!(p("8080").as_deref(), Some("127.0.0.1:8080"));
        assert_eq!(p(":8080").as_deref(), Some("127.0.0.1:8080"));
        assert_eq!(p("localhost:8080").as_deref(), Some("127.0.0.1:8080"));
        assert_eq!(p("0.0.0.0:80").as_deref(), Some("0.0.0.0:80"));
        assert_eq!(p("[::1]:9").as_deref(), Some("[::1]:9"));
        assert_eq!(p("nope:1"), None);
        assert_eq!(p("99999"), None);
    }
}
