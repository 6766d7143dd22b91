//! The hub: several devices behind one MCP server. Each device has a router of its own (its own
//! link, reconnects and timeouts, in its own threads), driven by the hub as its host through a
//! line pipe ([`pipe`]); so one device's fault never delays another's calls.
//!
//! The hub answers `initialize`, `ping` and `tools/list` itself (all devices' tools in one page,
//! named `NAME.tool`, from what each device listed), routes `tools/call` to the device named by
//! the prefix (which is stripped), and re-lists a device when its router says its tools may have
//! changed (`notifications/tools/list_changed`: the device said so, or its link closed or came
//! back). A device whose re-listing takes longer than [`withdraw::WITHDRAW_AFTER`] (it went away, or came
//! back silent) has its tools withdrawn until a listing succeeds, so hosts do not wait for its
//! reconnect attempts or timeout to learn it is gone. When the hub's list changes, a legacy host
//! that initialized gets `notifications/tools/list_changed`.
//!
//! The hub speaks one revision to its devices, the newest legacy one, whatever the host speaks:
//! the tools it lists and the results its routers check are of that revision. A 2026-07-28
//! host's call goes to the device without the revision's `_meta` keys, and its result comes back
//! with `resultType: "complete"` ([`tools::as_modern_result`]); so what such a host sees matches
//! the tool list it got (an `outputSchema` of an array tool is the legacy `{"result": [...]}`
//! wrapping, and so is its `structuredContent`).

mod pipe;
mod tools;
mod withdraw;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::events::Event;
use super::front::{is_batch, success_line, BatchStart, HostFront};
use super::{stdio, EVENT_QUEUE, PREVIEW, WRITE_QUEUE};
use crate::bridge::message::{self, error_response, Class, Id, CONNECTION_CLOSED, INVALID_REQUEST};
use crate::bridge::{BridgeConfig, BridgeError, HubDevice};
use crate::device::log::preview;
use crate::device::Logger;
use pipe::{LinesIn, LinesOut};

/// JSON-RPC "method not found".
const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC "invalid params".
const INVALID_PARAMS: i64 = -32602;
/// How often the hub looks for listings that take too long.
const TICK: Duration = Duration::from_millis(250);
/// The list-changed notification.
const LIST_CHANGED: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;

/// One device of the hub, as the hub sees it.
struct Slot {
    name: String,
    /// Lines for its router; `None` once the hub closed it.
    tx: Option<SyncSender<Vec<u8>>>,
    /// Its router's thread.
    thread: Option<JoinHandle<()>>,
    /// Its tools, already named `NAME.tool`.
    tools: Vec<Value>,
    /// Its first listing is over (answered or failed).
    settled: bool,
    /// The hub's `initialize` of it was answered: it may be listed.
    ready: bool,
    /// A listing is under way.
    listing: bool,
    /// Its tools may have changed again while a listing was under way.
    relist: bool,
    /// Since when its tools are being re-listed (the first request of a run of them).
    relisting_since: Option<Instant>,
}

/// A request the hub sent to a device's router, by the hub's id.
enum Job {
    /// A host request (its id); `modern`: the host asked in 2026-07-28.
    Host { id: Id, modern: bool },
    /// The hub's `initialize` of the device.
    Init(usize),
    /// The hub's `tools/list` of the device.
    List(usize),
}

struct Hub {
    log: Logger,
    out: Option<SyncSender<Vec<u8>>>,
    front: HostFront,
    slots: Vec<Slot>,
    jobs: HashMap<String, Job>,
    next_id: u64,
    /// Host `tools/list` requests waiting for the first listings.
    waiting: Vec<(Id, Option<String>)>,
    /// The host's `initialize` was answered: list changes may be announced.
    initialized: bool,
    eof: bool,
    output_failed: Option<String>,
}

/// Runs the hub of `cfg.devices` (see [`crate::bridge::run`]).
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
    let writer = stdio::spawn_host_writer(host_out, out_rx, events.clone())?;
    stdio::spawn_host_reader(host_in, cfg.max_line, events.clone())?;
    let mut hub = Hub {
        log,
        out: Some(out),
        front: HostFront::default(),
        slots: Vec::new(),
        jobs: HashMap::new(),
        next_id: 1,
        waiting: Vec::new(),
        initialized: false,
        eof: false,
        output_failed: None,
    };
    for (index, device) in cfg.devices.iter().enumerate() {
        hub.start_device(&cfg, index, device, &events)?;
    }
    drop(events);
    let result = hub.run(&rx);
    hub.shutdown(&rx);
    let _ = writer.join();
    result
}

impl Hub {
    fn start_device(
        &mut self,
        cfg: &BridgeConfig,
        index: usize,
        device: &HubDevice,
        events: &SyncSender<Event>,
    ) -> Result<(), BridgeError> {
        let (tx, rx) = sync_channel::<Vec<u8>>(WRITE_QUEUE);
        let mut device_cfg = cfg.clone();
        device_cfg.endpoint = device.endpoint.clone();
        device_cfg.devices = Vec::new();
        device_cfg.pages = crate::bridge::Pages::One;
        let input = LinesIn {
            rx,
            buf: Vec::new(),
            pos: 0,
        };
        let output = LinesOut {
            device: index,
            events: events.clone(),
            buf: Vec::new(),
        };
        let log = self.log.named(&device.name);
        let done = events.clone();
        let thread = std::thread::Builder::new()
            .name(format!("hub-{}", device.name))
            .spawn(move || {
                if let Err(e) = super::run_device(device_cfg, input, output, log.clone(), true) {
                    log.warn(format_args!("{e}"));
                }
                let _ = done.send(Event::HubDeviceDone { device: index });
            })
            .map_err(BridgeError::Thread)?;
        self.slots.push(Slot {
            name: device.name.clone(),
            tx: Some(tx),
            thread: Some(thread),
            tools: Vec::new(),
            settled: false,
            ready: false,
            listing: false,
            relist: false,
            relisting_since: None,
        });
        let params = json!({
            "protocolVersion": embedded_mcp::protocol::Version::LATEST_LEGACY.as_str(),
            "capabilities": {},
            "clientInfo": {"name": "embedded-mcp-hub", "version": env!("CARGO_PKG_VERSION")}
        });
        self.send_job(index, Job::Init(index), "initialize", params);
        Ok(())
    }

    fn run(&mut self, rx: &Receiver<Event>) -> Result<(), BridgeError> {
        loop {
            if let Some(why) = self.output_failed.take() {
                return Err(BridgeError::HostOutput(why));
            }
            if self.eof && !self.jobs.values().any(|j| matches!(j, Job::Host { .. })) {
                return Ok(());
            }
            match rx.recv_timeout(TICK) {
                Ok(event) => self.handle(event),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            }
            self.withdraw_stale();
        }
    }

    /// Closes every device router (they finish, stop their links and QEMUs) and waits for them.
    fn shutdown(&mut self, rx: &Receiver<Event>) {
        for slot in &mut self.slots {
            slot.tx = None;
        }
        // Keep draining so that no router blocks on a full inbox while it stops.
        let mut running = self.slots.iter().filter(|s| s.thread.is_some()).count();
        while running > 0 {
            match rx.recv_timeout(Duration::from_secs(5)) {
                Ok(Event::HubDeviceDone { device }) => {
                    if let Some(t) = self.slots.get_mut(device).and_then(|s| s.thread.take()) {
                        let _ = t.join();
                    }
                    running -= 1;
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
        self.out = None;
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::HostLine(line) => self.on_host_line(line),
            Event::HostOverlong(len) => {
                let text = format!("Invalid request: a line of {len} bytes is too long");
                self.emit(error_response(None, INVALID_REQUEST, &text));
            }
            Event::HostEof(_) => {
                self.log
                    .info(format_args!("host closed its input; finishing"));
                self.eof = true;
            }
            Event::HostOutputFailed(why) => self.output_failed = Some(why),
            Event::HubLine { device, line } => self.on_device_line(device, line),
            Event::HubDeviceDone { device } => {
                if let Some(slot) = self.slots.get_mut(device) {
                    slot.tx = None;
                    slot.settled = true;
                }
                self.answer_waiting();
            }
            _ => {}
        }
    }

    fn emit(&mut self, line: Vec<u8>) {
        let Some(line) = self.front.outgoing(line) else {
            return;
        };
        self.write_host(line);
    }

    fn write_host(&mut self, line: Vec<u8>) {
        if self.log.tracing() {
            self.log
                .trace(format_args!("to host: {}", preview(&line, PREVIEW)));
        }
        let failed = self.out.as_ref().is_none_or(|out| out.send(line).is_err());
        if failed && self.output_failed.is_none() {
            self.output_failed = Some("the host writer stopped".into());
        }
    }

    fn on_host_line(&mut self, line: Vec<u8>) {
        if self.log.tracing() {
            self.log
                .trace(format_args!("from host: {}", preview(&line, PREVIEW)));
        }
        if !is_batch(&line) {
            self.on_host_message(&line);
            return;
        }
        match self.front.open_batch(&line) {
            BatchStart::Refused(answer) => self.write_host(answer),
            BatchStart::Messages(messages) => {
                for message in messages {
                    self.on_host_message(&message);
                }
                if let Some(answer) = self.front.close_batch() {
                    self.write_host(answer);
                }
            }
        }
    }

    fn on_host_message(&mut self, line: &[u8]) {
        let Some(msg) = message::parse(line) else {
            self.emit(error_response(
                None,
                message::PARSE_ERROR,
                "Parse error: the line is not JSON",
            ));
            return;
        };
        let params = msg.value.get("params");
        match msg.class {
            Class::Request { id, method } => {
                self.front.request(&id.key, &method, params);
                self.on_host_request(id, &method, params);
            }
            Class::Notification { method } => {
                if method == "notifications/cancelled" {
                    self.forward_cancel(params);
                }
            }
            Class::Response { .. } | Class::ErrorWithoutId => self.log.info(format_args!(
                "dropped a host response: the hub asks nothing"
            )),
            Class::Invalid { id } => {
                let raw = id.map(|id| id.raw);
                self.emit(error_response(
                    raw.as_deref(),
                    INVALID_REQUEST,
                    "Invalid request: not a JSON-RPC 2.0 request, notification or response",
                ));
            }
        }
    }

    fn on_host_request(&mut self, id: Id, method: &str, params: Option<&Value>) {
        let meta_version = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(crate::device::client::META_PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .map(str::to_owned);
        match method {
            "initialize" => {
                let asked = params
                    .and_then(|p| p.get("protocolVersion"))
                    .and_then(Value::as_str);
                let result = tools::initialize_result(asked, &self.names());
                self.answer(&id, &result);
                self.initialized = true;
            }
            "ping" => self.answer(&id, &json!({})),
            "server/discover" => {
                let result = tools::discover_result();
                self.answer(&id, &result);
            }
            "tools/list" => {
                if self.slots.iter().all(|s| s.settled) {
                    self.answer_list(&id, meta_version.as_deref());
                } else {
                    self.waiting.push((id, meta_version));
                }
            }
            "tools/call" => {
                let modern = meta_version
                    .as_deref()
                    .and_then(embedded_mcp::protocol::Version::parse)
                    .is_some_and(|v| !v.is_legacy());
                self.route_call(id, params, modern);
            }
            _ => self.emit(error_response(
                Some(&id.raw),
                METHOD_NOT_FOUND,
                &format!("Method not found: the embedded-mcp hub serves tools only ({method})"),
            )),
        }
    }

    fn names(&self) -> Vec<String> {
        self.slots.iter().map(|s| s.name.clone()).collect()
    }

    fn answer(&mut self, id: &Id, result: &Value) {
        if let Some(line) = success_line(&id.raw, result) {
            self.emit(line);
        }
    }

    fn answer_list(&mut self, id: &Id, meta_version: Option<&str>) {
        let all: Vec<Value> = self
            .slots
            .iter()
            .flat_map(|s| s.tools.iter().cloned())
            .collect();
        let result = tools::list_result(all, meta_version);
        self.answer(id, &result);
    }

    fn answer_waiting(&mut self) {
        if !self.slots.iter().all(|s| s.settled) {
            return;
        }
        for (id, version) in std::mem::take(&mut self.waiting) {
            self.answer_list(&id, version.as_deref());
        }
    }

    fn route_call(&mut self, id: Id, params: Option<&Value>, modern: bool) {
        let name = params
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let target = name.split_once('.').and_then(|(device, tool)| {
            let index = self.slots.iter().position(|s| s.name == device)?;
            Some((index, tool.to_owned()))
        });
        let Some((index, tool)) = target else {
            let text = format!("Unknown tool: {name:?} (hub tools are named DEVICE.tool)");
            self.emit(error_response(Some(&id.raw), INVALID_PARAMS, &text));
            return;
        };
        let mut params = params.cloned().unwrap_or(json!({}));
        if let Some(object) = params.as_object_mut() {
            object.insert("name".into(), json!(tool));
            tools::drop_modern_meta(object);
        }
        self.send_job(index, Job::Host { id, modern }, "tools/call", params);
    }

    fn forward_cancel(&mut self, params: Option<&Value>) {
        let Some(key) = params
            .and_then(|p| p.get("requestId"))
            .and_then(|id| serde_json::to_string(id).ok())
        else {
            return;
        };
        let found = self.jobs.iter().find_map(|(hub_id, job)| match job {
            Job::Host { id, .. } if id.key == key => Some(hub_id.clone()),
            _ => None,
        });
        let Some(hub_id) = found else {
            return;
        };
        self.front.forget(&key);
        let Some(Job::Host { .. }) = self.jobs.remove(&hub_id) else {
            return;
        };
        let mut params = params.cloned().unwrap_or(json!({}));
        if let Some(object) = params.as_object_mut() {
            object.insert("requestId".into(), Value::String(hub_id.clone()));
        }
        let line = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params});
        // The device router learns of it; its answer, if any, finds no job and is dropped.
        for slot in &self.slots {
            if let (Some(tx), Ok(bytes)) = (&slot.tx, serde_json::to_vec(&line)) {
                let _ = tx.try_send(bytes);
            }
        }
    }

    /// Sends a request to device `index`'s router under a fresh hub id.
    fn send_job(&mut self, index: usize, job: Job, method: &str, params: Value) {
        let hub_id = format!("\"hub-{}\"", self.next_id);
        self.next_id += 1;
        let id = hub_id.trim_matches('"').to_owned();
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let sent = match (
            self.slots.get(index).and_then(|s| s.tx.as_ref()),
            serde_json::to_vec(&request),
        ) {
            (Some(tx), Ok(line)) => tx.try_send(line).is_ok(),
            _ => false,
        };
        if sent {
            self.jobs.insert(hub_id, job);
            return;
        }
        let why = "the device's router is not taking requests (stopped or its queue is full)";
        self.on_job_failed(job, why);
    }

    fn on_job_failed(&mut self, job: Job, why: &str) {
        match job {
            Job::Host { id, .. } => {
                self.emit(error_response(Some(&id.raw), CONNECTION_CLOSED, why));
            }
            Job::Init(index) => {
                if let Some(slot) = self.slots.get_mut(index) {
                    slot.settled = true;
                }
                self.answer_waiting();
            }
            Job::List(index) => self.on_listed(index, None),
        }
    }

    fn on_device_line(&mut self, index: usize, line: Vec<u8>) {
        let Some(msg) = message::parse(&line) else {
            return;
        };
        match msg.class {
            Class::Response { id } => match self.jobs.remove(&id.key) {
                Some(Job::Host {
                    id: host_id,
                    modern,
                }) => {
                    if let Some(answer) = tools::reply_as(&line, &host_id.raw, modern) {
                        self.emit(answer);
                    }
                }
                Some(Job::Init(index)) => {
                    if let Some(slot) = self.slots.get_mut(index) {
                        slot.ready = true;
                    }
                    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
                    if let (Some(tx), Ok(bytes)) = (
                        self.slots.get(index).and_then(|s| s.tx.as_ref()),
                        serde_json::to_vec(&note),
                    ) {
                        let _ = tx.try_send(bytes);
                    }
                    self.list(index);
                }
                Some(Job::List(index)) => {
                    let tools = msg
                        .value
                        .get("result")
                        .and_then(|r| r.get("tools"))
                        .and_then(Value::as_array)
                        .cloned();
                    if tools.is_none() {
                        self.log.warn(format_args!(
                            "device {} did not list its tools: {}",
                            self.slots.get(index).map_or("?", |s| s.name.as_str()),
                            preview(&line, PREVIEW)
                        ));
                    }
                    self.on_listed(index, tools);
                }
                None => {}
            },
            Class::Notification { method } if method == "notifications/tools/list_changed" => {
                self.list(index);
            }
            Class::Notification { .. } | Class::ErrorWithoutId => self.emit(line),
            Class::Request { id, .. } => {
                let answer = error_response(
                    Some(&id.raw),
                    METHOD_NOT_FOUND,
                    "the embedded-mcp hub does not pass device requests to the host",
                );
                if let Some(tx) = self.slots.get(index).and_then(|s| s.tx.as_ref()) {
                    let _ = tx.try_send(answer);
                }
            }
            _ => {}
        }
    }

    /// Lists device `index`'s tools (again).
    fn list(&mut self, index: usize) {
        let Some(slot) = self.slots.get_mut(index) else {
            return;
        };
        if !slot.ready {
            return; // its initialize's answer lists it
        }
        if slot.listing {
            slot.relist = true;
            return;
        }
        slot.listing = true;
        if slot.settled && slot.relisting_since.is_none() {
            slot.relisting_since = Some(Instant::now());
        }
        self.send_job(index, Job::List(index), "tools/list", json!({}));
    }

    /// Device `index` listed `tools` (`None`: it could not; it has none for now).
    fn on_listed(&mut self, index: usize, tools: Option<Vec<Value>>) {
        let announce = self.initialized;
        let Some(slot) = self.slots.get_mut(index) else {
            return;
        };
        let named = tools::prefixed(&slot.name, tools.unwrap_or_default());
        let changed = slot.settled && named != slot.tools;
        slot.tools = named;
        slot.settled = true;
        slot.listing = false;
        let again = std::mem::take(&mut slot.relist);
        // A listing that came back (even empty) ends the grace; a re-listing starts a new one.
        slot.relisting_since = None;
        if changed && announce {
            self.log.info(format_args!("the hub's tool list changed"));
            self.emit(LIST_CHANGED.to_vec());
        }
        if again {
            self.list(index);
        }
        self.answer_waiting();
    }
}
