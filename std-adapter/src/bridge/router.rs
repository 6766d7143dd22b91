//! The routing loop of the bridge: owns all session state, is fed by the I/O threads through one
//! bounded channel, and wakes up for the next deadline (timeouts, startup re-sends).

use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::catalog::{rules_revision, Catalog, Verdict};
use super::message::{
    self, error_response, tool_error_response, Class, Id, CONNECTION_CLOSED, INVALID_REQUEST,
    PARSE_ERROR, REQUEST_TIMEOUT,
};
use super::rewrite::drop_unsafe_icons;
use super::{BridgeConfig, BridgeError, OnInvalid, STARTUP_RESENDS};
use crate::device::client::{MAX_PAGES, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};
use crate::device::lines::{Frame, LineReader};
use crate::device::log::preview;
use crate::device::{Closer, Link, Logger};
use crate::full::ValidationFailure;

/// Capacity of the channel into the routing loop.
const EVENT_QUEUE: usize = 256;
/// Capacity of each writer's channel (host output, device input).
const WRITE_QUEUE: usize = 256;
/// Longest sleep of the routing loop without an event.
const MAX_WAIT: Duration = Duration::from_millis(500);
/// Revision assumed for result checks when the session never said (no `initialize` seen).
const DEFAULT_REVISION: &str = "2025-11-25";
/// Methods that may be re-sent safely while a fresh link is silent.
const RESENDABLE: [&str; 4] = ["initialize", "server/discover", "tools/list", "ping"];
/// Bytes of a line shown in a log message.
const PREVIEW: usize = 200;

pub(super) enum Event {
    HostLine(Vec<u8>),
    HostOverlong(usize),
    HostEof(Option<String>),
    HostOutputFailed(String),
    DeviceLine { gen: u64, line: Vec<u8> },
    DeviceOverlong { gen: u64, len: usize },
    DeviceClosed { gen: u64, why: String },
    Connected { gen: u64, attempt: u32, link: Link },
    GaveUp { gen: u64, error: String },
}

/// A request written to the device, with its startup re-send schedule.
struct Sent {
    gen: u64,
    line: Vec<u8>,
    resend_at: Option<Instant>,
    resends_left: u32,
}

/// A host request awaiting its response.
struct Pending {
    id: Id,
    method: String,
    tool: Option<String>,
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]` (2026-07-28 requests).
    version: Option<String>,
    /// `params._meta` (reused for the bridge's own `tools/list` in 2026-07-28 sessions).
    meta: Option<Value>,
    /// `params` of an `initialize` (kept to replay the handshake).
    init_params: Option<Value>,
    /// A `tools/list` without cursor: its page starts a new listing.
    first_page: bool,
    deadline: Instant,
    sent: Option<Sent>,
}

enum InternalKind {
    ReplayInit,
    ToolsList {
        pages: usize,
        version: String,
        meta: Option<Value>,
    },
}

/// A request of the bridge's own.
struct Internal {
    kind: InternalKind,
    first_page: bool,
    deadline: Instant,
    sent: Sent,
}

/// A `tools/call` response waiting for the tool's schema.
struct Held {
    id: Id,
    line: Vec<u8>,
    result: Value,
    tool: String,
    version: String,
}

struct Up {
    gen: u64,
    tx: SyncSender<Vec<u8>>,
    closer: Closer,
    /// False while the handshake is being replayed.
    ready: bool,
    /// The device has sent at least one line on this link.
    heard: bool,
}

enum LinkState {
    Connecting { gen: u64, stop: Arc<AtomicBool> },
    Up(Up),
    Down { error: String },
}

struct Queued {
    line: Vec<u8>,
    key: Option<String>,
}

struct Router {
    cfg: BridgeConfig,
    log: Logger,
    events: SyncSender<Event>,
    out: Option<SyncSender<Vec<u8>>>,
    link: LinkState,
    gen: u64,
    /// Failed connection attempts in the current cycle.
    attempts: u32,
    queue: VecDeque<Queued>,
    pending: HashMap<String, Pending>,
    internal: HashMap<String, Internal>,
    next_internal: u64,
    held: Vec<Held>,
    fetching: bool,
    fetch_tried: bool,
    catalog: Catalog,
    /// Confirmed `initialize` params of a legacy session (replayed after a reconnect).
    init_params: Option<Value>,
    initialized_line: Option<Vec<u8>>,
    /// Protocol version the device agreed to in `initialize`.
    version: Option<String>,
    host_eof: bool,
    output_failed: Option<String>,
}

pub(super) fn run<R, W>(
    cfg: BridgeConfig,
    host_in: R,
    host_out: W,
    log: Logger,
) -> Result<(), BridgeError>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    let (events, rx) = sync_channel(EVENT_QUEUE);
    let (out, out_rx) = sync_channel::<Vec<u8>>(WRITE_QUEUE);
    let writer = spawn_host_writer(host_out, out_rx, events.clone())?;
    spawn_host_reader(host_in, cfg.max_line, events.clone())?;
    let mut router = Router {
        cfg,
        log,
        events,
        out: Some(out),
        link: LinkState::Down {
            error: "not connected yet".into(),
        },
        gen: 0,
        attempts: 0,
        queue: VecDeque::new(),
        pending: HashMap::new(),
        internal: HashMap::new(),
        next_internal: 1,
        held: Vec::new(),
        fetching: false,
        fetch_tried: false,
        catalog: Catalog::default(),
        init_params: None,
        initialized_line: None,
        version: None,
        host_eof: false,
        output_failed: None,
    };
    router
        .log
        .info(format_args!("bridging to {}", router.cfg.endpoint));
    router.start_connecting(0);
    let result = router.run(&rx);
    router.shutdown();
    // All responses are queued: let the writer drain them before returning.
    let _ = writer.join();
    result
}

fn spawn_host_reader<R: Read + Send + 'static>(
    host_in: R,
    max_line: usize,
    events: SyncSender<Event>,
) -> Result<(), BridgeError> {
    std::thread::Builder::new()
        .name("host-reader".into())
        .spawn(move || {
            let mut lines = LineReader::new(host_in, max_line);
            loop {
                let event = match lines.next_frame() {
                    Ok(Frame::Line(line)) => Event::HostLine(line),
                    Ok(Frame::Overlong { len }) => Event::HostOverlong(len),
                    Ok(Frame::Eof) => Event::HostEof(None),
                    Err(e) => Event::HostEof(Some(e.to_string())),
                };
                let end = matches!(event, Event::HostEof(_));
                if events.send(event).is_err() || end {
                    return;
                }
            }
        })
        .map(drop)
        .map_err(BridgeError::Thread)
}

fn spawn_host_writer<W: Write + Send + 'static>(
    mut host_out: W,
    lines: Receiver<Vec<u8>>,
    events: SyncSender<Event>,
) -> Result<JoinHandle<()>, BridgeError> {
    std::thread::Builder::new()
        .name("host-writer".into())
        .spawn(move || {
            for mut line in lines {
                line.push(b'\n');
                if let Err(e) = host_out.write_all(&line).and_then(|()| host_out.flush()) {
                    let _ = events.send(Event::HostOutputFailed(e.to_string()));
                    return;
                }
            }
        })
        .map_err(BridgeError::Thread)
}

fn spawn_device_threads(
    gen: u64,
    link_reader: Box<dyn Read + Send>,
    mut link_writer: Box<dyn Write + Send>,
    max_line: usize,
    events: &SyncSender<Event>,
) -> std::io::Result<SyncSender<Vec<u8>>> {
    let reader_events = events.clone();
    std::thread::Builder::new()
        .name(format!("device-reader-{gen}"))
        .spawn(move || {
            let mut lines = LineReader::new(link_reader, max_line);
            loop {
                let event = match lines.next_frame() {
                    Ok(Frame::Line(line)) => Event::DeviceLine { gen, line },
                    Ok(Frame::Overlong { len }) => Event::DeviceOverlong { gen, len },
                    Ok(Frame::Eof) => Event::DeviceClosed {
                        gen,
                        why: "end of stream".into(),
                    },
                    Err(e) => Event::DeviceClosed {
                        gen,
                        why: e.to_string(),
                    },
                };
                let end = matches!(event, Event::DeviceClosed { .. });
                if reader_events.send(event).is_err() || end {
                    return;
                }
            }
        })?;
    let (tx, rx) = sync_channel::<Vec<u8>>(WRITE_QUEUE);
    let writer_events = events.clone();
    std::thread::Builder::new()
        .name(format!("device-writer-{gen}"))
        .spawn(move || {
            for mut line in rx {
                line.push(b'\n');
                if let Err(e) = link_writer
                    .write_all(&line)
                    .and_then(|()| link_writer.flush())
                {
                    let _ = writer_events.send(Event::DeviceClosed {
                        gen,
                        why: format!("writing to the device failed: {e}"),
                    });
                    return;
                }
            }
        })?;
    Ok(tx)
}

fn sleep_unless_stopped(total: Duration, stop: &AtomicBool) -> bool {
    let end = Instant::now() + total;
    loop {
        if stop.load(Ordering::SeqCst) {
            return false;
        }
        let now = Instant::now();
        if now >= end {
            return true;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
}

fn millis(d: Duration) -> u128 {
    d.as_millis()
}

impl Router {
    fn run(&mut self, rx: &Receiver<Event>) -> Result<(), BridgeError> {
        loop {
            if let Some(why) = self.output_failed.take() {
                return Err(BridgeError::HostOutput(why));
            }
            if self.finished() {
                return Ok(());
            }
            let now = Instant::now();
            let wait = self.next_wakeup().map_or(MAX_WAIT, |at| {
                at.saturating_duration_since(now).min(MAX_WAIT)
            });
            match rx.recv_timeout(wait) {
                Ok(event) => self.handle(event),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            }
            self.tick(Instant::now());
        }
    }

    fn finished(&self) -> bool {
        self.host_eof && self.pending.is_empty() && self.held.is_empty()
    }

    fn shutdown(&mut self) {
        if let LinkState::Connecting { stop, .. } = &self.link {
            stop.store(true, Ordering::SeqCst);
        }
        // Dropping the link closes it: QEMU or the child process is stopped here.
        self.link = LinkState::Down {
            error: "bridge stopped".into(),
        };
        for q in self.queue.drain(..) {
            if q.key.is_none() {
                self.log.info(format_args!(
                    "dropped at exit, the device never got it: {}",
                    preview(&q.line, PREVIEW)
                ));
            }
        }
        self.out = None;
    }

    fn next_wakeup(&self) -> Option<Instant> {
        let sent_pending = self.pending.values().filter_map(|p| p.sent.as_ref());
        let sent_internal = self.internal.values().map(|i| &i.sent);
        let resends = sent_pending
            .chain(sent_internal)
            .filter_map(|s| s.resend_at);
        self.pending
            .values()
            .map(|p| p.deadline)
            .chain(self.internal.values().map(|i| i.deadline))
            .chain(resends)
            .min()
    }

    fn emit(&mut self, line: Vec<u8>) {
        if self.log.tracing() {
            self.log
                .trace(format_args!("to host: {}", preview(&line, PREVIEW)));
        }
        let failed = match &self.out {
            Some(out) => out.send(line).is_err(),
            None => true,
        };
        if failed && self.output_failed.is_none() {
            self.output_failed = Some("the host writer stopped".into());
        }
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::HostLine(line) => self.on_host_line(line),
            Event::HostOverlong(len) => {
                let text = format!(
                    "Invalid request: a line of {len} bytes is longer than the bridge's limit of {} bytes",
                    self.cfg.max_line
                );
                self.log.warn(format_args!("{text}; skipped"));
                self.emit(error_response(None, INVALID_REQUEST, &text));
            }
            Event::HostEof(error) => {
                match error {
                    Some(e) => self
                        .log
                        .warn(format_args!("reading the host failed: {e}; finishing")),
                    None => self.log.info(format_args!(
                        "host closed its input; finishing {} request(s) in flight",
                        self.pending.len()
                    )),
                }
                self.host_eof = true;
            }
            Event::HostOutputFailed(why) => {
                self.log
                    .warn(format_args!("writing to the host failed: {why}"));
                self.output_failed = Some(why);
            }
            Event::DeviceLine { gen, line } => self.on_device_line(gen, line),
            Event::DeviceOverlong { gen, len } => {
                if self.up_gen() == Some(gen) {
                    self.log.warn(format_args!(
                        "skipped a device line of {len} bytes (longer than {} bytes)",
                        self.cfg.max_line
                    ));
                }
            }
            Event::DeviceClosed { gen, why } => self.on_device_closed(gen, &why),
            Event::Connected { gen, attempt, link } => self.on_connected(gen, attempt, link),
            Event::GaveUp { gen, error } => self.on_gave_up(gen, error),
        }
    }

    fn up_gen(&self) -> Option<u64> {
        match &self.link {
            LinkState::Up(up) => Some(up.gen),
            _ => None,
        }
    }

    // ----- host side -------------------------------------------------------------------------

    fn on_host_line(&mut self, line: Vec<u8>) {
        if self.log.tracing() {
            self.log
                .trace(format_args!("from host: {}", preview(&line, PREVIEW)));
        }
        let Some(msg) = message::parse(&line) else {
            self.log.warn(format_args!(
                "the host sent a line that is not JSON: {}",
                preview(&line, PREVIEW)
            ));
            self.emit(error_response(
                None,
                PARSE_ERROR,
                "Parse error: the line is not JSON",
            ));
            return;
        };
        match msg.class {
            Class::Request { id, method } => self.on_host_request(line, &msg.value, id, method),
            Class::Notification { method } => {
                let params = msg.value.get("params");
                if method == "notifications/initialized" {
                    self.initialized_line = Some(line.clone());
                }
                if method == "notifications/cancelled" {
                    let key = params
                        .and_then(|p| p.get("requestId"))
                        .and_then(|id| serde_json::to_string(id).ok());
                    if let Some(key) = key {
                        if self.pending.remove(&key).is_some() {
                            let before = self.queue.len();
                            self.queue
                                .retain(|q| q.key.as_deref() != Some(key.as_str()));
                            if self.queue.len() != before {
                                self.log.info(format_args!(
                                    "request {key} cancelled before it reached the device"
                                ));
                                return;
                            }
                        }
                    }
                }
                self.forward(line, None);
            }
            Class::Response { .. } | Class::ErrorWithoutId => self.forward(line, None),
            Class::Invalid { id } => {
                self.log.warn(format_args!(
                    "the host sent JSON that is not a JSON-RPC message: {}",
                    preview(&line, PREVIEW)
                ));
                let raw = id.map(|id| id.raw);
                self.emit(error_response(
                    raw.as_deref(),
                    INVALID_REQUEST,
                    "Invalid request: not a JSON-RPC 2.0 request, notification or response",
                ));
            }
        }
    }

    fn on_host_request(&mut self, line: Vec<u8>, value: &Value, id: Id, method: String) {
        if self.pending.contains_key(&id.key) || self.internal.contains_key(&id.key) {
            self.log.warn(format_args!(
                "the host reused id {} while it is in flight",
                id.raw
            ));
            self.emit(error_response(
                Some(&id.raw),
                INVALID_REQUEST,
                "Invalid request: this id is already used by a request in flight",
            ));
            return;
        }
        let params = value.get("params");
        let meta = params.and_then(|p| p.get("_meta")).cloned();
        let pending = Pending {
            tool: (method == "tools/call")
                .then(|| params.and_then(|p| p.get("name")).and_then(Value::as_str))
                .flatten()
                .map(str::to_owned),
            version: meta
                .as_ref()
                .and_then(|m| m.get(META_PROTOCOL_VERSION))
                .and_then(Value::as_str)
                .map(str::to_owned),
            meta,
            init_params: (method == "initialize").then(|| params.cloned().unwrap_or(json!({}))),
            first_page: method == "tools/list" && params.and_then(|p| p.get("cursor")).is_none(),
            deadline: Instant::now() + self.cfg.timeout,
            sent: None,
            id: id.clone(),
            method,
        };
        let key = id.key;
        self.pending.insert(key.clone(), pending);
        self.forward(line, Some(key));
    }

    /// Sends a host message now if the link is ready, else queues it (and starts connecting if
    /// the bridge had given up).
    fn forward(&mut self, line: Vec<u8>, key: Option<String>) {
        if matches!(&self.link, LinkState::Up(up) if up.ready) {
            self.send_now(line, key);
            return;
        }
        if self.queue.len() >= self.cfg.max_queued {
            self.refuse(key, &line, "the bridge's queue for the device is full");
            return;
        }
        self.queue.push_back(Queued { line, key });
        if matches!(self.link, LinkState::Down { .. }) {
            self.attempts = 0;
            self.start_connecting(0);
        }
    }

    fn refuse(&mut self, key: Option<String>, line: &[u8], why: &str) {
        match key.and_then(|k| self.pending.remove(&k)) {
            Some(p) => {
                self.log
                    .warn(format_args!("`{}` {} not sent: {why}", p.method, p.id.raw));
                self.emit(error_response(Some(&p.id.raw), CONNECTION_CLOSED, why));
            }
            None => self
                .log
                .warn(format_args!("dropped {}: {why}", preview(line, PREVIEW))),
        }
    }

    fn send_now(&mut self, line: Vec<u8>, key: Option<String>) {
        let LinkState::Up(up) = &self.link else {
            return;
        };
        let gen = up.gen;
        let heard = up.heard;
        match up.tx.try_send(line.clone()) {
            Ok(()) => {
                if self.log.tracing() {
                    self.log
                        .trace(format_args!("to device: {}", preview(&line, PREVIEW)));
                }
                let retry = self.cfg.startup_retry;
                if let Some(p) = key.and_then(|k| self.pending.get_mut(&k)) {
                    let resend =
                        !heard && !retry.is_zero() && RESENDABLE.contains(&p.method.as_str());
                    p.sent = Some(Sent {
                        gen,
                        line: if resend { line } else { Vec::new() },
                        resend_at: resend.then(|| Instant::now() + retry),
                        resends_left: if resend { STARTUP_RESENDS } else { 0 },
                    });
                }
            }
            Err(TrySendError::Full(line)) => {
                self.refuse(
                    key,
                    &line,
                    "the device is not reading (its write queue is full)",
                );
            }
            Err(TrySendError::Disconnected(line)) => {
                self.refuse(key, &line, "the device link just closed");
            }
        }
    }

    fn flush_queue(&mut self) {
        while matches!(&self.link, LinkState::Up(up) if up.ready) {
            let Some(q) = self.queue.pop_front() else {
                return;
            };
            // A queued request may have timed out or been cancelled meanwhile.
            if q.key
                .as_ref()
                .is_some_and(|k| !self.pending.contains_key(k))
            {
                continue;
            }
            self.send_now(q.line, q.key);
        }
    }

    // ----- connection ------------------------------------------------------------------------

    fn start_connecting(&mut self, first_attempt: u32) {
        let policy = self.cfg.reconnect;
        if first_attempt >= policy.attempts {
            let error = format!("gave up after {} failed attempts", policy.attempts);
            self.gen += 1;
            let gen = self.gen;
            self.link = LinkState::Connecting {
                gen,
                stop: Arc::new(AtomicBool::new(true)),
            };
            self.on_gave_up(gen, error);
            return;
        }
        self.gen += 1;
        let gen = self.gen;
        let stop = Arc::new(AtomicBool::new(false));
        let thread_stop = Arc::clone(&stop);
        let endpoint = self.cfg.endpoint.clone();
        let events = self.events.clone();
        let log = self.log.clone();
        let spawned = std::thread::Builder::new()
            .name("device-connector".into())
            .spawn(move || {
                let mut last = String::from("no attempt made");
                for attempt in first_attempt..policy.attempts {
                    if !sleep_unless_stopped(policy.delay(attempt), &thread_stop) {
                        return;
                    }
                    match endpoint.open(&log) {
                        Ok(link) => {
                            log.info(format_args!(
                                "connected to {endpoint} (attempt {})",
                                attempt + 1
                            ));
                            let _ = events.send(Event::Connected { gen, attempt, link });
                            return;
                        }
                        Err(e) => {
                            log.warn(format_args!(
                                "connecting to {endpoint} failed (attempt {} of {}): {e}",
                                attempt + 1,
                                policy.attempts
                            ));
                            last = e.to_string();
                        }
                    }
                }
                let _ = events.send(Event::GaveUp { gen, error: last });
            });
        match spawned {
            Ok(_) => self.link = LinkState::Connecting { gen, stop },
            Err(e) => {
                self.link = LinkState::Connecting {
                    gen,
                    stop: Arc::new(AtomicBool::new(true)),
                };
                self.on_gave_up(gen, format!("cannot start the connector thread: {e}"));
            }
        }
    }

    fn on_gave_up(&mut self, gen: u64, error: String) {
        if !matches!(&self.link, LinkState::Connecting { gen: g, .. } if *g == gen) {
            return;
        }
        self.log.warn(format_args!(
            "device unavailable: {error}; the next message from the host starts a new attempt"
        ));
        let why = format!("device unavailable: {error}");
        for q in std::mem::take(&mut self.queue) {
            self.refuse(q.key, &q.line, &why);
        }
        self.attempts = 0;
        self.link = LinkState::Down { error };
    }

    fn on_connected(&mut self, gen: u64, attempt: u32, link: Link) {
        if !matches!(&self.link, LinkState::Connecting { gen: g, .. } if *g == gen) {
            return; // Stale: dropping the link closes it.
        }
        let Link {
            reader,
            writer,
            closer,
        } = link;
        let tx = match spawn_device_threads(gen, reader, writer, self.cfg.max_line, &self.events) {
            Ok(tx) => tx,
            Err(e) => {
                self.log
                    .warn(format_args!("cannot start the device threads: {e}"));
                self.link = LinkState::Down {
                    error: e.to_string(),
                };
                return;
            }
        };
        if let Some(pid) = closer.child_pid() {
            self.log.info(format_args!("device process pid {pid}"));
        }
        self.attempts = attempt;
        self.catalog.reset();
        self.fetch_tried = false;
        self.link = LinkState::Up(Up {
            gen,
            tx,
            closer,
            ready: false,
            heard: false,
        });
        match self.init_params.clone() {
            Some(params) => {
                self.log
                    .info(format_args!("replaying the initialize handshake"));
                self.send_internal(InternalKind::ReplayInit, "initialize", params, false);
            }
            None => self.set_ready(),
        }
    }

    fn set_ready(&mut self) {
        if let LinkState::Up(up) = &mut self.link {
            up.ready = true;
        }
        self.flush_queue();
    }

    fn on_device_closed(&mut self, gen: u64, why: &str) {
        if self.up_gen() != Some(gen) {
            return;
        }
        let LinkState::Up(up) = std::mem::replace(
            &mut self.link,
            LinkState::Down {
                error: why.to_string(),
            },
        ) else {
            return;
        };
        let exit = up
            .closer
            .child_exited()
            .map(|s| format!(" (process {s})"))
            .unwrap_or_default();
        self.log
            .warn(format_args!("device link closed: {why}{exit}"));
        let heard = up.heard;
        drop(up);
        let lost: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, p)| p.sent.as_ref().is_some_and(|s| s.gen == gen))
            .map(|(k, _)| k.clone())
            .collect();
        for key in lost {
            if let Some(p) = self.pending.remove(&key) {
                let text = format!(
                    "The device link closed before `{}` was answered ({why}); the bridge is reconnecting",
                    p.method
                );
                self.emit(error_response(Some(&p.id.raw), CONNECTION_CLOSED, &text));
            }
        }
        self.internal.clear();
        self.fetching = false;
        self.release_held("the device link closed while its tool list was fetched");
        self.catalog.reset();
        self.attempts = if heard { 0 } else { self.attempts + 1 };
        if self.host_eof && self.pending.is_empty() {
            return;
        }
        self.start_connecting(self.attempts);
    }

    // ----- device side -----------------------------------------------------------------------

    fn on_device_line(&mut self, gen: u64, line: Vec<u8>) {
        let LinkState::Up(up) = &mut self.link else {
            return;
        };
        if up.gen != gen {
            return;
        }
        if !up.heard {
            up.heard = true;
            self.attempts = 0;
            let sent = self.pending.values_mut().filter_map(|p| p.sent.as_mut());
            for s in sent.chain(self.internal.values_mut().map(|i| &mut i.sent)) {
                s.resend_at = None;
            }
        }
        if self.log.tracing() {
            self.log
                .trace(format_args!("from device: {}", preview(&line, PREVIEW)));
        }
        let Some(msg) = message::parse(&line) else {
            self.log.warn(format_args!(
                "skipped a garbled line from the device: {}",
                preview(&line, PREVIEW)
            ));
            return;
        };
        match msg.class {
            Class::Response { id } => {
                if let Some(req) = self.internal.remove(&id.key) {
                    self.on_internal_response(req, &msg.value);
                } else if self
                    .pending
                    .get(&id.key)
                    .is_some_and(|p| p.sent.as_ref().is_some_and(|s| s.gen == gen))
                {
                    if let Some(p) = self.pending.remove(&id.key) {
                        self.on_response(p, line, msg.value);
                    }
                } else {
                    self.log.warn(format_args!(
                        "dropped a device response to id {} that nobody awaits (answered, timed out or cancelled)",
                        id.raw
                    ));
                }
            }
            Class::ErrorWithoutId => {
                self.log.warn(format_args!(
                    "the device reported an error without id: {}",
                    preview(&line, PREVIEW)
                ));
                self.emit(line);
            }
            Class::Request { .. } => self.emit(line),
            Class::Notification { method } => {
                if method == "notifications/tools/list_changed" {
                    self.catalog.reset();
                    self.fetch_tried = false;
                }
                self.emit(line);
            }
            Class::Invalid { .. } => self.log.warn(format_args!(
                "skipped a message from the device that is not JSON-RPC: {}",
                preview(&line, PREVIEW)
            )),
        }
    }

    fn on_response(&mut self, p: Pending, line: Vec<u8>, value: Value) {
        let Some(result) = value.get("result") else {
            self.emit(line);
            return;
        };
        match p.method.as_str() {
            "initialize" => {
                let version = result.get("protocolVersion").and_then(Value::as_str);
                self.log.info(format_args!(
                    "legacy session, protocol {}",
                    version.unwrap_or("(none given)")
                ));
                self.version = version.map(str::to_owned);
                self.init_params = p.init_params.clone();
            }
            "tools/list" => {
                if let Some(tools) = result.get("tools") {
                    let last = result.get("nextCursor").is_none_or(Value::is_null);
                    let failed = self.catalog.learn_page(tools, p.first_page, last);
                    self.report_schema_errors(failed);
                }
            }
            _ => {}
        }
        let mut dropped = Vec::new();
        let line = match drop_unsafe_icons(&line, &mut dropped) {
            Some(edited) => edited,
            None => line,
        };
        for icon in dropped {
            self.log.warn(format_args!(
                "dropped the icon {:?} of {}: only https: and data: icons are passed",
                icon.src, icon.place
            ));
        }
        if p.method != "tools/call" || self.cfg.on_invalid == OnInvalid::Pass {
            self.emit(line);
            return;
        }
        let Some(tool) = p.tool else {
            self.emit(line);
            return;
        };
        let version = p
            .version
            .or_else(|| self.version.clone())
            .unwrap_or_else(|| DEFAULT_REVISION.to_owned());
        let result = result.clone();
        match self.catalog.check(&version, &tool, &result) {
            Verdict::Valid => self.emit(line),
            Verdict::Invalid(failure) => {
                self.on_invalid_result(&p.id, &tool, &version, &result, &failure, line)
            }
            Verdict::UnknownTool => {
                if self.catalog.complete || self.fetch_tried {
                    self.log.info(format_args!(
                        "tool `{tool}` is not in the device's tool list: its result is not checked"
                    ));
                    self.emit(line);
                    return;
                }
                self.held.push(Held {
                    id: p.id,
                    line,
                    result,
                    tool,
                    version: version.clone(),
                });
                if !self.fetching {
                    self.fetching = true;
                    self.log
                        .info(format_args!("fetching the tool list to check a result"));
                    let params = tools_list_params(&version, p.meta.as_ref(), None);
                    self.send_internal(
                        InternalKind::ToolsList {
                            pages: 1,
                            version,
                            meta: p.meta,
                        },
                        "tools/list",
                        params,
                        true,
                    );
                }
            }
        }
    }

    fn report_schema_errors(&self, failed: Vec<(String, crate::full::SchemaError)>) {
        for (tool, error) in failed {
            self.log.warn(format_args!("tool `{tool}`: {error}"));
        }
    }

    fn on_invalid_result(
        &mut self,
        id: &Id,
        tool: &str,
        version: &str,
        result: &Value,
        failure: &ValidationFailure,
        line: Vec<u8>,
    ) {
        let field = if failure.instance_path.is_empty() {
            "(the result itself)".to_string()
        } else {
            format!("`{}`", failure.instance_path)
        };
        let schema = if failure.schema_path.is_empty() {
            String::new()
        } else {
            format!(" (schema path `{}`)", failure.schema_path)
        };
        let text = format!(
            "The result of tool `{tool}` does not match its outputSchema, so the embedded-mcp bridge withheld it: field {field} broke rule `{}`{schema}: {}",
            failure.keyword, failure.message
        );
        match self.cfg.on_invalid {
            OnInvalid::Error => {
                self.log.warn(format_args!("{text}"));
                let result_type =
                    result.get("resultType").is_some() || rules_revision(version) == "2026-07-28";
                self.emit(tool_error_response(&id.raw, &text, result_type));
            }
            OnInvalid::Warn => {
                self.log
                    .warn(format_args!("forwarded anyway (--on-invalid=warn): {text}"));
                self.emit(line);
            }
            OnInvalid::Pass => self.emit(line),
        }
    }

    fn release_held(&mut self, why: &str) {
        for h in std::mem::take(&mut self.held) {
            match self.catalog.check(&h.version, &h.tool, &h.result) {
                Verdict::Valid => self.emit(h.line),
                Verdict::Invalid(failure) => {
                    self.on_invalid_result(&h.id, &h.tool, &h.version, &h.result, &failure, h.line)
                }
                Verdict::UnknownTool => {
                    self.log.warn(format_args!(
                        "the result of tool `{}` is forwarded unchecked: {why}",
                        h.tool
                    ));
                    self.emit(h.line);
                }
            }
        }
    }

    // ----- the bridge's own requests ---------------------------------------------------------

    fn send_internal(&mut self, kind: InternalKind, method: &str, params: Value, first_page: bool) {
        let LinkState::Up(up) = &self.link else {
            self.internal_failed(kind, "the device is not connected");
            return;
        };
        let id = format!("embedded-mcp-bridge-{}", self.next_internal);
        self.next_internal += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let Ok(line) = serde_json::to_vec(&message) else {
            self.internal_failed(kind, "the request could not be encoded");
            return;
        };
        let key = format!("\"{id}\"");
        let resend = !up.heard && !self.cfg.startup_retry.is_zero();
        let sent = Sent {
            gen: up.gen,
            line: line.clone(),
            resend_at: resend.then(|| Instant::now() + self.cfg.startup_retry),
            resends_left: if resend { STARTUP_RESENDS } else { 0 },
        };
        if up.tx.try_send(line).is_err() {
            self.internal_failed(kind, "the device is not reading");
            return;
        }
        self.internal.insert(
            key,
            Internal {
                kind,
                first_page,
                deadline: Instant::now() + self.cfg.timeout,
                sent,
            },
        );
    }

    fn internal_failed(&mut self, kind: InternalKind, why: &str) {
        match kind {
            InternalKind::ReplayInit => {
                self.log
                    .warn(format_args!("replaying the handshake failed: {why}"));
                self.set_ready();
            }
            InternalKind::ToolsList { .. } => {
                self.log
                    .warn(format_args!("fetching the tool list failed: {why}"));
                self.finish_fetch(why);
            }
        }
    }

    fn finish_fetch(&mut self, why: &str) {
        self.fetching = false;
        self.fetch_tried = true;
        self.release_held(why);
    }

    fn on_internal_response(&mut self, req: Internal, value: &Value) {
        let result = value.get("result");
        let error = value.get("error").map(|e| e.to_string());
        match req.kind {
            InternalKind::ReplayInit => {
                match (result, error) {
                    (Some(result), _) => {
                        let version = result.get("protocolVersion").and_then(Value::as_str);
                        if version != self.version.as_deref() {
                            self.log.warn(format_args!(
                                "after the reconnect the device agreed to protocol {:?}, before to {:?}",
                                version, self.version
                            ));
                        }
                        self.log.info(format_args!("handshake replayed"));
                        if let Some(line) = self.initialized_line.clone() {
                            if let LinkState::Up(up) = &self.link {
                                let _ = up.tx.try_send(line);
                            }
                        }
                    }
                    (None, error) => self.log.warn(format_args!(
                        "the device refused the replayed initialize: {}",
                        error.unwrap_or_default()
                    )),
                }
                self.set_ready();
            }
            InternalKind::ToolsList {
                pages,
                version,
                meta,
            } => {
                let tools = result.and_then(|r| r.get("tools"));
                let Some(tools) = tools else {
                    let why = format!(
                        "the device's tools/list failed: {}",
                        error.unwrap_or_default()
                    );
                    self.log.warn(format_args!("{why}"));
                    self.finish_fetch(&why);
                    return;
                };
                let next = result
                    .and_then(|r| r.get("nextCursor"))
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let failed = self
                    .catalog
                    .learn_page(tools, req.first_page, next.is_none());
                self.report_schema_errors(failed);
                match next {
                    Some(cursor) if pages < MAX_PAGES => {
                        let params = tools_list_params(&version, meta.as_ref(), Some(&cursor));
                        self.send_internal(
                            InternalKind::ToolsList {
                                pages: pages + 1,
                                version,
                                meta,
                            },
                            "tools/list",
                            params,
                            false,
                        );
                    }
                    _ => self.finish_fetch("the tool is not in the device's tool list"),
                }
            }
        }
    }

    // ----- time ------------------------------------------------------------------------------

    fn tick(&mut self, now: Instant) {
        let expired: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, p)| p.deadline <= now)
            .map(|(k, _)| k.clone())
            .collect();
        let ms = millis(self.cfg.timeout);
        for key in expired {
            let Some(p) = self.pending.remove(&key) else {
                continue;
            };
            let text = match &p.sent {
                Some(_) => format!("The device did not answer `{}` within {ms} ms", p.method),
                None => {
                    self.queue
                        .retain(|q| q.key.as_deref() != Some(key.as_str()));
                    let state = match &self.link {
                        LinkState::Down { error } => format!("device unavailable: {error}"),
                        LinkState::Connecting { .. } => "still connecting".to_string(),
                        LinkState::Up(_) => "replaying the handshake".to_string(),
                    };
                    format!("The device was not reachable within {ms} ms ({state})")
                }
            };
            self.log
                .warn(format_args!("request {} `{}`: {text}", p.id.raw, p.method));
            self.emit(error_response(Some(&p.id.raw), REQUEST_TIMEOUT, &text));
            if p.sent.is_some() {
                // Tell the device to stop working on it (MCP: the requester cancels on timeout).
                let cancel = format!(
                    "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{},\"reason\":\"timeout\"}}}}",
                    p.id.raw
                );
                if let LinkState::Up(up) = &self.link {
                    let _ = up.tx.try_send(cancel.into_bytes());
                }
            }
        }
        let expired: Vec<String> = self
            .internal
            .iter()
            .filter(|(_, i)| i.deadline <= now)
            .map(|(k, _)| k.clone())
            .collect();
        for key in expired {
            let Some(req) = self.internal.remove(&key) else {
                continue;
            };
            match req.kind {
                InternalKind::ReplayInit => {
                    let gen = req.sent.gen;
                    self.log.warn(format_args!(
                        "the device did not answer the replayed initialize within {ms} ms"
                    ));
                    self.on_device_closed(gen, "no answer to the replayed initialize");
                }
                kind => self.internal_failed(kind, "the device did not answer in time"),
            }
        }
        self.resend(now);
    }

    fn resend(&mut self, now: Instant) {
        let LinkState::Up(up) = &self.link else {
            return;
        };
        if up.heard {
            return;
        }
        let retry = self.cfg.startup_retry;
        let sent = self.pending.values_mut().filter_map(|p| p.sent.as_mut());
        for s in sent.chain(self.internal.values_mut().map(|i| &mut i.sent)) {
            if s.gen != up.gen || s.resend_at.is_none_or(|at| at > now) {
                continue;
            }
            if s.resends_left == 0 {
                s.resend_at = None;
                continue;
            }
            s.resends_left -= 1;
            s.resend_at = (s.resends_left > 0).then(|| now + retry);
            self.log.info(format_args!(
                "device silent so far: sending again {}",
                preview(&s.line, PREVIEW)
            ));
            let _ = up.tx.try_send(s.line.clone());
        }
    }
}

/// Params of the bridge's own `tools/list`: with the 2026-07-28 `_meta` when the session uses it.
fn tools_list_params(version: &str, meta: Option<&Value>, cursor: Option<&str>) -> Value {
    let mut params = serde_json::Map::new();
    if rules_revision(version) == "2026-07-28" {
        let caps = meta
            .and_then(|m| m.get(META_CLIENT_CAPABILITIES))
            .cloned()
            .unwrap_or(json!({}));
        params.insert(
            "_meta".into(),
            json!({ META_PROTOCOL_VERSION: version, META_CLIENT_CAPABILITIES: caps }),
        );
    }
    if let Some(cursor) = cursor {
        params.insert("cursor".into(), json!(cursor));
    }
    Value::Object(params)
}
