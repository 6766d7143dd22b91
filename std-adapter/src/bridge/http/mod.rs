//! The HTTP front of the bridge (`embedded-mcp bridge --http ADDR:PORT`): MCP Streamable HTTP at
//! `/mcp` for any number of clients, in front of one device (or a hub of devices).
//!
//! The routing loop (the sans-IO router or hub and its shell) and the clients layer
//! ([`crate::bridge::clients`]) run as one task on the front's own tokio runtime, beside
//! hyper's connections: every client is a client of that one engine. A handler hands the layer
//! an event over a channel (`exchange`'s handle, with no state of any client) and answers from
//! what the layer delivers on the request's own bounded channel. No thread, no pipe and no lock
//! stand between them.
//!
//! ```text
//!  clients ──TCP──> server (accept, connection table: slots, connection_limit; linger)
//!                     └─ hyper HTTP/1.1 ──> server (body bounds, doors, path, era)
//!                                             ├─ legacy (initialize: handshake)
//!                                             └─ stateless (2026-07-28 headers:
//!                                                  param_headers, header_text)
//!  exchange (events) ──channel──> the engine's task: clients layer + routing loop ──> device(s)
//!  exchange <──a channel per request or stream── the clients layer's deliveries
//!     └─ the answer: JSON, or SSE (sse)
//! ```
//!
//! What is per client lives in the clients layer (ids, sessions, streams, the shim's
//! questions, per-client bounds); here:
//!
//! - `legacy`: 2025-06-18 and 2025-11-25. The device's `InitializeResult` is learnt once by the
//!   front's own handshake (`handshake`) and every session's `initialize` is answered from it,
//!   so no session's handshake reaches the device; the session itself is the layer's.
//! - `stateless`: 2026-07-28 requests, checked against the headers that revision adds and
//!   forwarded as they are.
//! - `doors`: `Host`, `Origin` and the bearer token, checked on the head, before the body.
//! - No client can lock the others out: the head is bounded in size (431) and time, the body in
//!   size (413) and time (408), all before the token is checked or the body is worked on; a
//!   connection that waits (idle, or still sending) gives its place to a newer one at the
//!   connection bound (`slots`); refusals close lingeringly so the client reads them (`linger`).

mod clock;
mod connection_limit;
mod doors;
mod exchange;
mod front_state;
mod handshake;
mod header_text;
mod legacy;
mod linger;
mod param_headers;
mod request;
mod server;
mod slots;
mod sse;
mod stateless;

pub use doors::{Exposure, Token};

use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::unbounded_channel;

pub use super::clients::admission::Limits;
use super::clients::ClientsConfig;
use super::{BridgeConfig, BridgeError};
use crate::log::Logger;
use exchange::LayerHandle;
use front_state::FrontState;
use handshake::Handshake;

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
    /// `Host` values accepted besides this server's own (`--allowed-host`): the names a reverse
    /// proxy in front of this replica sends.
    pub allowed_hosts: Vec<String>,
    /// Longest request body (default [`DEFAULT_MAX_BODY`]); a longer one gets 413.
    pub max_body: usize,
    /// Most legacy sessions at once (default
    /// [`crate::bridge::clients::sessions::DEFAULT_MAX_SESSIONS`]); at the bound only an
    /// abandoned session (unused for half an hour, nothing in flight) makes room, else the
    /// newcomer gets 503.
    pub max_sessions: usize,
    /// Most client connections at once (default 512); at the bound the connection that has
    /// waited longest (idle, or still sending its request) is closed to make room, and only
    /// when every connection is being answered does a newcomer get 503.
    pub max_connections: usize,
    /// Longest request head (request line and headers, default 16 KiB); a longer one gets 431.
    pub max_head: usize,
    /// Longest time to receive a request head (default 10 s), counted on a keep-alive
    /// connection from the end of the previous answer; the connection closes past it.
    pub head_timeout: Duration,
    /// Longest time to receive a request body once its head arrived (default 10 s); 408 past it.
    pub body_timeout: Duration,
    /// Listen on a non-loopback address without a token (`--allow-unauthenticated`): without
    /// it the front refuses to start there ([`HttpError::Unauthenticated`]); with it, it warns.
    pub allow_unauthenticated: bool,
    /// How many requests in flight and open streams a client, and all clients, may hold
    /// (default `None`: [`Limits::for_connections`] of `max_connections`).
    pub limits: Option<Limits>,
}

impl HttpConfig {
    /// The defaults documented on each field, listening on `bind`.
    pub fn new(bind: SocketAddr) -> Self {
        Self {
            bind,
            token: None,
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            max_body: DEFAULT_MAX_BODY,
            max_sessions: crate::bridge::clients::sessions::DEFAULT_MAX_SESSIONS,
            max_connections: 512,
            max_head: 16 * 1024,
            head_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            allow_unauthenticated: false,
            limits: None,
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
    /// A thread or the tokio runtime could not be started.
    Thread(io::Error),
    /// A non-loopback address without a token, and no `allow_unauthenticated`.
    Unauthenticated(SocketAddr),
    /// The routing loop stopped.
    Router(BridgeError),
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Bind(addr, e) => write!(f, "cannot listen on {addr}: {e}"),
            Self::Unauthenticated(addr) => write!(
                f,
                "refusing to listen on {addr} without a token: any machine that reaches it could drive the device; give --token-file PATH (clients then send Authorization: Bearer TOKEN), or --allow-unauthenticated to accept that"
            ),
            Self::Thread(e) => write!(f, "starting a thread failed: {e}"),
            Self::Router(e) => write!(f, "the routing loop stopped: {e}"),
        }
    }
}

impl std::error::Error for HttpError {}

/// Binds `http.bind` and serves until the routing loop stops (in the binary: until a signal
/// ends the process). Logs `listening: http://ADDR:PORT/mcp` (always) once it accepts.
/// Refuses a non-loopback address without a token before anything is bound.
pub fn serve(bridge: BridgeConfig, http: HttpConfig, log: Logger) -> Result<(), HttpError> {
    exposure(http.bind, &http)?;
    let listener = TcpListener::bind(http.bind).map_err(|e| HttpError::Bind(http.bind, e))?;
    serve_on(listener, bridge, http, log)
}

/// [`serve`] on a listener bound already (its address is the one `Host` is checked against,
/// and the one the rule on tokens is applied to). Must not be called from within a tokio
/// runtime: the front runs one of its own.
pub fn serve_on(
    listener: TcpListener,
    bridge: BridgeConfig,
    http: HttpConfig,
    log: Logger,
) -> Result<(), HttpError> {
    let bound = listener
        .local_addr()
        .map_err(|e| HttpError::Bind(http.bind, e))?;
    if exposure(bound, &http)? == Exposure::Unauthenticated {
        log.warn(format_args!(
            "listening on {bound}, which is not loopback, without a token (--allow-unauthenticated): any machine that reaches it can drive the device"
        ));
    }
    listener
        .set_nonblocking(true)
        .map_err(|e| HttpError::Bind(http.bind, e))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("http-front")
        .enable_all()
        .build()
        .map_err(HttpError::Thread)?;
    // The router answers every request within its own deadlines (its idle deadline, restarted
    // by progress, and its cap on a call); the front's wait restarts with every line of the
    // request and only catches a router that went silent.
    // The front serves listen streams: the task layer tells it every task's status.
    let mut bridge = bridge;
    bridge.tasks.status_lines = crate::bridge::tasks::StatusLines::Front;
    // Its header checks read each device's catalog before a call reaches the router.
    bridge.keep_catalog = true;
    let (tools_out, tools_in) = tokio::sync::watch::channel(Default::default());
    let reply_idle = bridge.timeout.saturating_mul(2) + Duration::from_secs(5);
    let clients = ClientsConfig {
        reply_idle,
        input_timeout: bridge.input_timeout,
        devices: bridge.devices.iter().map(|d| d.name.clone()).collect(),
        max_sessions: http.max_sessions,
        limits: http
            .limits
            .unwrap_or_else(|| Limits::for_connections(http.max_connections)),
        bearer: http.token.is_some(),
    };
    let (events, client_events) = unbounded_channel();
    let front = Arc::new(FrontState {
        layer: LayerHandle::new(events),
        handshake: Handshake::new(),
        tool_headers: param_headers::ToolHeaders::fed_by(tools_in),
        doors: doors::Doors::new(bound, &http.allowed_origins, http.token.clone())
            .with_hosts(&http.allowed_hosts),
        reply_idle,
        log: log.clone(),
    });
    let (served, routed) = runtime.block_on(async {
        let listener = match tokio::net::TcpListener::from_std(listener) {
            Ok(listener) => listener,
            Err(e) => return (Err(e), Ok(())),
        };
        // The routing loop and the clients layer run as one task of this runtime: the
        // clients' events come on a channel, and every line the router writes for its host
        // goes to the layer, which hands it to the request or stream it belongs to.
        let router = tokio::spawn(super::shell::serve_clients(
            bridge,
            clients,
            client_events,
            tools_out,
            log.clone(),
        ));
        // Learn the latest legacy handshake now, so the device is up when the first client comes.
        let learner = front.clone();
        tokio::spawn(async move {
            learner
                .handshake
                .result(&learner.layer, learner.reply_idle)
                .await;
        });
        log.note("listening", format_args!("http://{bound}/mcp"));
        let mut router = router;
        let routed = tokio::select! {
            () = server::accept(listener, front, &http) => Ok(()),
            done = &mut router => done.unwrap_or(Ok(())),
        };
        (Ok(()), routed)
    });
    runtime.shutdown_timeout(Duration::from_secs(1));
    served.map_err(|e| HttpError::Bind(bound, e))?;
    routed.map_err(HttpError::Router)
}

/// "Non-loopback binds need a key" ([`Exposure`]) for a front on `addr`.
fn exposure(addr: SocketAddr, http: &HttpConfig) -> Result<Exposure, HttpError> {
    Exposure::of(addr.ip(), http.token.is_some(), http.allow_unauthenticated)
        .ok_or(HttpError::Unauthenticated(addr))
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
