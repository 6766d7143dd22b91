//! A small blocking MCP client over a device [`Link`](super::Link), for the `tools` and `call` commands.
//!
//! One request at a time; a reader thread frames the device's output into lines and hands them
//! over a bounded channel, so every wait has a deadline. Lines that are not JSON, notifications
//! and responses to other ids are logged and skipped.

use std::io::Write;
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use embedded_mcp::protocol::Version;
use serde_json::{json, Map, Value};

use super::lines::{Frame, LineReader, DEFAULT_MAX_LINE};
use super::log::preview;
use super::{Closer, DeviceError, Endpoint, Logger};
use crate::wire::method;

/// The protocol revision the client asks for when none is given.
pub const DEFAULT_PROTOCOL: &str = Version::LATEST_LEGACY.as_str();
/// The first revision without an `initialize` handshake.
pub const MODERN_PROTOCOL: &str = Version::V2026_07_28.as_str();
pub use crate::wire::MAX_PAGES;

// The `_meta` keys live in `crate::wire::meta`; these names stay for the client's own use.
pub use crate::wire::meta::{
    CLIENT_CAPABILITIES as META_CLIENT_CAPABILITIES, CLIENT_INFO as META_CLIENT_INFO,
    PROTOCOL_VERSION as META_PROTOCOL_VERSION,
};

/// What can go wrong talking to a device.
#[derive(Debug)]
#[non_exhaustive]
pub enum ClientError {
    /// The device could not be reached.
    Device(DeviceError),
    /// No answer within the timeout.
    Timeout {
        /// The request's method.
        method: String,
        /// The timeout.
        ms: u64,
    },
    /// The link closed (device reset, unplugged, process exited).
    Closed(String),
    /// The device answered with a JSON-RPC error.
    Rpc {
        /// The request's method.
        method: String,
        /// Error code.
        code: i64,
        /// Error message.
        message: String,
    },
    /// The device's answer does not make sense for the request.
    Protocol(String),
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Device(e) => write!(f, "{e}"),
            Self::Timeout { method, ms } => write!(f, "no answer to `{method}` within {ms} ms"),
            Self::Closed(why) => write!(f, "device link closed: {why}"),
            Self::Rpc {
                method,
                code,
                message,
            } => write!(f, "`{method}` failed: error {code}: {message}"),
            Self::Protocol(msg) => write!(f, "unexpected answer: {msg}"),
        }
    }
}

impl std::error::Error for ClientError {}

impl From<DeviceError> for ClientError {
    fn from(e: DeviceError) -> Self {
        Self::Device(e)
    }
}

/// How the client talks.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Per-request timeout.
    pub timeout: Duration,
    /// Protocol revision: a legacy one does the `initialize` handshake, `2026-07-28` sends the
    /// version in every request's `_meta` and starts with `server/discover`.
    pub protocol: String,
    /// Until the device has said anything, the first request is re-sent at this interval (QEMU's
    /// UART may drop bytes that arrive before the firmware enabled it). Zero disables.
    pub startup_retry: Duration,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(10),
            protocol: DEFAULT_PROTOCOL.into(),
            startup_retry: Duration::from_millis(1000),
        }
    }
}

/// One response line and its parsed form.
#[derive(Debug, Clone)]
pub struct Response {
    /// The line exactly as the device sent it.
    pub line: Vec<u8>,
    /// Its parsed form.
    pub message: Value,
}

impl Response {
    /// The `result` member.
    pub fn result(&self) -> Option<&Value> {
        self.message.get("result")
    }
}

enum ReadEvent {
    Line(Vec<u8>),
    Closed(String),
}

/// A connected, initialised MCP session with a device.
pub struct Client {
    closer: Closer,
    writer: Box<dyn Write + Send>,
    rx: Receiver<ReadEvent>,
    next_id: u64,
    options: ClientOptions,
    heard: bool,
    log: Logger,
    /// The protocol revision in use (the one the server answered for legacy sessions).
    pub protocol_version: String,
    /// The `initialize` or `server/discover` result.
    pub server: Value,
}

impl Client {
    /// Opens the endpoint and runs the handshake (`initialize` + `notifications/initialized`, or
    /// `server/discover` for 2026-07-28).
    pub fn connect(
        endpoint: &Endpoint,
        options: ClientOptions,
        log: Logger,
    ) -> Result<Self, ClientError> {
        let link = endpoint.open(&log)?;
        let (tx, rx) = sync_channel(64);
        let reader_log = log.clone();
        let reader = link.reader;
        std::thread::Builder::new()
            .name("device-reader".into())
            .spawn(move || {
                let mut lines = LineReader::new(reader, DEFAULT_MAX_LINE);
                loop {
                    let event = match lines.next_frame() {
                        Ok(Frame::Line(line)) => ReadEvent::Line(line),
                        Ok(Frame::Overlong { len }) => {
                            reader_log.warn(format_args!(
                                "skipped an overlong line from the device ({len} bytes)"
                            ));
                            continue;
                        }
                        Ok(Frame::Eof) => ReadEvent::Closed("end of stream".into()),
                        Err(e) => ReadEvent::Closed(e.to_string()),
                    };
                    let closed = matches!(event, ReadEvent::Closed(_));
                    if tx.send(event).is_err() || closed {
                        return;
                    }
                }
            })
            .map_err(|e| DeviceError::io("starting the reader thread", e))?;
        let protocol = options.protocol.clone();
        let mut client = Self {
            closer: link.closer,
            writer: link.writer,
            rx,
            next_id: 1,
            options,
            heard: false,
            log,
            protocol_version: protocol.clone(),
            server: Value::Null,
        };
        if client.is_modern() {
            let response = client.request("server/discover", json!({}))?;
            client.server = response.result().cloned().unwrap_or(Value::Null);
        } else {
            let params = json!({
                "protocolVersion": protocol,
                "capabilities": {},
                "clientInfo": {"name": "embedded-mcp", "version": env!("CARGO_PKG_VERSION")}
            });
            let response = client.request(method::INITIALIZE, params)?;
            let result = response.result().cloned().unwrap_or(Value::Null);
            if let Some(v) = result.get("protocolVersion").and_then(Value::as_str) {
                client.protocol_version = v.to_string();
            }
            client.server = result;
            client.send_line(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)?;
        }
        Ok(client)
    }

    /// True when the session uses per-request `_meta` (2026-07-28) instead of a handshake.
    pub fn is_modern(&self) -> bool {
        self.options.protocol.as_str() >= MODERN_PROTOCOL
    }

    fn send_line(&mut self, line: &[u8]) -> Result<(), ClientError> {
        if self.log.tracing() {
            self.log.trace(format_args!("-> {}", preview(line, 400)));
        }
        self.writer
            .write_all(line)
            .and_then(|()| self.writer.write_all(b"\n"))
            .and_then(|()| self.writer.flush())
            .map_err(|e| ClientError::Closed(format!("writing to the device: {e}")))
    }

    /// Sends a request and waits for its response. A JSON-RPC error becomes [`ClientError::Rpc`].
    pub fn request(&mut self, method: &str, params: Value) -> Result<Response, ClientError> {
        let mut params = match params {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        if self.is_modern() {
            let meta = params.entry("_meta").or_insert_with(|| json!({}));
            if let Value::Object(meta) = meta {
                meta.insert(META_PROTOCOL_VERSION.into(), json!(self.options.protocol));
                meta.insert(META_CLIENT_CAPABILITIES.into(), json!({}));
                meta.insert(
                    META_CLIENT_INFO.into(),
                    json!({"name": "embedded-mcp", "version": env!("CARGO_PKG_VERSION")}),
                );
            }
        }
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let line =
            serde_json::to_vec(&message).map_err(|e| ClientError::Protocol(e.to_string()))?;
        self.send_line(&line)?;
        let ms = u64::try_from(self.options.timeout.as_millis()).unwrap_or(u64::MAX);
        let deadline = Instant::now() + self.options.timeout;
        let retry = self.options.startup_retry;
        let mut resend_at = (!retry.is_zero()).then(|| Instant::now() + retry);
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Err(ClientError::Timeout {
                    method: method.into(),
                    ms,
                });
            }
            let mut wait = deadline - now;
            if let Some(at) = resend_at.filter(|_| !self.heard) {
                if now >= at {
                    self.log.info(format_args!(
                        "device silent so far: sending `{method}` again"
                    ));
                    self.send_line(&line)?;
                    resend_at = Some(now + retry);
                    continue;
                }
                wait = wait.min(at - now);
            }
            match self.rx.recv_timeout(wait) {
                Ok(ReadEvent::Line(line)) => {
                    self.heard = true;
                    if self.log.tracing() {
                        self.log.trace(format_args!("<- {}", preview(&line, 400)));
                    }
                    let Ok(message) = serde_json::from_slice::<Value>(&line) else {
                        self.log.warn(format_args!(
                            "skipped a line that is not JSON: {}",
                            preview(&line, 120)
                        ));
                        continue;
                    };
                    if message.get("method").is_some() || message.get("id") != Some(&json!(id)) {
                        self.log
                            .info(format_args!("skipped: {}", preview(&line, 120)));
                        continue;
                    }
                    if let Some(error) = message.get("error") {
                        return Err(ClientError::Rpc {
                            method: method.into(),
                            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                            message: error
                                .get("message")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_string(),
                        });
                    }
                    if message.get("result").is_none() {
                        return Err(ClientError::Protocol(format!(
                            "response to `{method}` has neither result nor error"
                        )));
                    }
                    return Ok(Response { line, message });
                }
                Ok(ReadEvent::Closed(why)) => return Err(ClientError::Closed(why)),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(ClientError::Closed("reader stopped".into()))
                }
            }
        }
    }

    /// All tools, following `nextCursor` (at most [`MAX_PAGES`] pages).
    pub fn list_tools(&mut self) -> Result<Vec<Value>, ClientError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let response = self.request(method::TOOLS_LIST, params)?;
            let result = response.result().cloned().unwrap_or(Value::Null);
            match result.get("tools") {
                Some(Value::Array(page)) => tools.extend(page.iter().cloned()),
                _ => {
                    return Err(ClientError::Protocol(
                        "tools/list result has no `tools` array".into(),
                    ))
                }
            }
            match result.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() => cursor = Some(next.to_string()),
                _ => return Ok(tools),
            }
        }
        Err(ClientError::Protocol(format!(
            "tools/list still had a next page after {MAX_PAGES} pages"
        )))
    }

    /// Calls one tool. Tool errors come back as results with `isError: true`.
    pub fn call_tool(&mut self, name: &str, arguments: Value) -> Result<Response, ClientError> {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
    }

    /// Closes the link and stops the process behind it, if any.
    pub fn close(mut self) {
        self.closer.close();
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.closer.close();
    }
}
