//! The hub: several devices behind one MCP server, as a state machine without I/O ([`Machine`]).
//! Each device has a [`Router`] of its own (its own link, reconnects and timeouts), which the
//! hub drives as its host: the hub's requests are the router's host lines, the router's host
//! output is what the device answered; so one device's fault never delays another's calls.
//!
//! The hub answers `initialize`, `ping` and `tools/list` itself (all devices' tools in one page,
//! named `NAME.tool`, from what each device listed), routes `tools/call` to the device named by
//! the prefix (which is stripped), and re-lists a device when its router says its tools may have
//! changed (`notifications/tools/list_changed`: the device said so, or its link closed or came
//! back). A device whose re-listing takes longer than `withdraw::WITHDRAW_AFTER` (it went away, or came
//! back silent) has its tools withdrawn until a listing succeeds, so hosts do not wait for its
//! reconnect attempts or timeout to learn it is gone. When the hub's list changes, a legacy host
//! that initialized gets `notifications/tools/list_changed`, and so does every 2026-07-28
//! `subscriptions/listen` stream that asked for it, tagged with its id (`listen`).
//!
//! The hub lists its devices in the newest legacy revision, whatever the host speaks. A
//! 2026-07-28 host's call goes to the device with its `_meta` (revision, client capabilities,
//! log level), so `input_required` and the retry that answers it pass through; its result
//! comes back with `resultType: "complete"` (`tools::as_modern_result`) and a non-object
//! `structuredContent` wrapped as `{"result": ...}`; so what such a host sees matches the tool
//! list it got (an `outputSchema` of an array tool is the legacy `{"result": [...]}` wrapping,
//! and so is its `structuredContent`).

mod device_answers;
mod host_requests;
mod listen;
#[cfg(test)]
mod tests;
mod tools;
mod withdraw;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use super::catalog::{Fill, Tools};
use super::config::{BridgeConfig, Pages};
use super::machine::{Input, Machine, Output};
use super::message::{
    self, error_response, method, success_line, Id, CONNECTION_CLOSED, INVALID_REQUEST,
};
use super::router::Router;
use super::subscriptions::Subscriptions;
use crate::log::preview;
use crate::log::Logger;

/// Bytes of a line shown in a log message.
const PREVIEW: usize = 200;

/// One device of the hub, as the hub sees it.
struct Slot {
    name: String,
    /// Its router, driven by the hub as its host.
    router: Router,
    /// Its tools as shown to the host: its router's catalog as the last listing left it (kept
    /// while it re-lists, until withdrawn).
    shown: Arc<Tools>,
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

/// The hub of many devices (see the module documentation).
pub struct Hub {
    log: Logger,
    /// Outputs not taken yet.
    out: VecDeque<Output>,
    /// The time of the input being handled.
    now: Instant,
    slots: Vec<Slot>,
    jobs: HashMap<String, Job>,
    next_id: u64,
    /// Host `tools/list` requests waiting for the first listings.
    waiting: Vec<(Id, Option<String>)>,
    /// The host's `initialize` was answered: list changes may be announced.
    initialized: bool,
    /// The host's open 2026-07-28 listen streams.
    subscriptions: Subscriptions<()>,
    eof: bool,
    /// Device notifications the hub does not pass, counted for the log (logged at powers of two).
    dropped_notifications: u64,
}

impl Hub {
    /// A hub of `cfg.devices`, each with a router of its own that asks for its link at once.
    pub fn new(cfg: &BridgeConfig, log: Logger, now: Instant) -> Self {
        let mut hub = Self {
            log,
            out: VecDeque::new(),
            now,
            slots: Vec::new(),
            jobs: HashMap::new(),
            next_id: 1,
            waiting: Vec::new(),
            initialized: false,
            subscriptions: Subscriptions::default(),
            eof: false,
            dropped_notifications: 0,
        };
        for device in &cfg.devices {
            let mut device_cfg = cfg.clone();
            device_cfg.endpoint = device.endpoint.clone();
            device_cfg.devices = Vec::new();
            device_cfg.pages = Pages::One;
            // The hub lists each device itself when its tools may have changed.
            device_cfg.keep_catalog = false;
            let router = Router::new(device_cfg, hub.log.named(&device.name), true, now);
            hub.slots.push(Slot {
                name: device.name.clone(),
                router,
                shown: Arc::new(Tools::empty(Fill::Empty)),
                settled: false,
                ready: false,
                listing: false,
                relist: false,
                relisting_since: None,
            });
        }
        let params = json!({
            "protocolVersion": embedded_mcp::protocol::Version::LATEST_LEGACY.as_str(),
            "capabilities": {},
            "clientInfo": {"name": "embedded-mcp-hub", "version": env!("CARGO_PKG_VERSION")}
        });
        for index in 0..hub.slots.len() {
            hub.pump(index);
            hub.send_job(index, Job::Init(index), method::INITIALIZE, params.clone());
        }
        hub
    }

    /// Takes the outputs of device `index`'s router: its host lines are the device's answers,
    /// its link actions go to the shell under the device's index.
    fn pump(&mut self, index: usize) {
        loop {
            let Some(output) = self
                .slots
                .get_mut(index)
                .and_then(|s| s.router.poll_output())
            else {
                return;
            };
            match output {
                Output::Host(line) | Output::HostFrom { line, .. } => {
                    self.on_device_line(index, line)
                }
                Output::Link { action, .. } => self.out.push_back(Output::Link {
                    device: index,
                    action,
                }),
                // The hub shows the catalog as its own listing of the device left it; a router
                // asks no questions (the input shim is a layer above the hub).
                Output::Tools(_) | Output::Question { .. } => {}
            }
        }
    }

    /// Hands `line` to device `index`'s router as a host line.
    fn send_to_router(&mut self, index: usize, line: Vec<u8>) {
        let now = self.now;
        if let Some(slot) = self.slots.get_mut(index) {
            slot.router.handle(Input::HostLine(line), now);
        }
        self.pump(index);
    }

    /// Sends a line to the host (the layers above reshape it for an old revision).
    fn emit(&mut self, line: Vec<u8>) {
        if self.log.tracing() {
            self.log
                .trace(format_args!("to host: {}", preview(&line, PREVIEW)));
        }
        self.out.push_back(Output::Host(line));
    }

    /// Sends a notification of device `index` to the host, saying which device wrote it.
    fn emit_from(&mut self, index: usize, line: Vec<u8>) {
        if self.log.tracing() {
            self.log
                .trace(format_args!("to host: {}", preview(&line, PREVIEW)));
        }
        self.out.push_back(Output::HostFrom {
            device: index,
            line,
        });
    }

    fn answer(&mut self, id: &Id, result: &Value) {
        if let Some(line) = success_line(&id.raw, result) {
            self.emit(line);
        }
    }

    /// Sends a request to device `index`'s router under a fresh hub id.
    fn send_job(&mut self, index: usize, job: Job, name: &str, params: Value) {
        self.send_job_text(index, job, name, &params.to_string());
    }

    /// Sends request `name` with `params` (exact JSON text, kept byte for byte) to device
    /// `index` under a hub id.
    fn send_job_text(&mut self, index: usize, job: Job, name: &str, params: &str) {
        let hub_id = format!("\"hub-{}\"", self.next_id);
        self.next_id += 1;
        if index >= self.slots.len() {
            return self.on_job_failed(job, "the request could not be made");
        }
        let mut line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{hub_id},\"method\":").into_bytes();
        message::push_json_string(&mut line, name);
        line.extend_from_slice(b",\"params\":");
        line.extend_from_slice(params.as_bytes());
        line.push(b'}');
        self.jobs.insert(hub_id, job);
        self.send_to_router(index, line);
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
            Job::List(index) => self.on_listed(index, false),
        }
    }
}

impl Machine for Hub {
    fn handle(&mut self, input: Input, now: Instant) {
        self.now = now;
        match input {
            Input::HostLine(line) => self.on_host_line(line, None),
            Input::ClientLine { line, msg, .. } => self.on_host_line(line, msg),
            Input::HostOverlong(len) => {
                let text = format!("Invalid request: a line of {len} bytes is too long");
                self.emit(error_response(None, INVALID_REQUEST, &text));
            }
            Input::HostEof(_) => {
                self.log
                    .info(format_args!("host closed its input; finishing"));
                self.eof = true;
            }
            Input::Link { device, event } => {
                if let Some(slot) = self.slots.get_mut(device) {
                    slot.router.handle(Input::Link { device: 0, event }, now);
                }
                self.pump(device);
            }
            Input::ClientEnded { .. } => {}
        }
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.now = now;
        for index in 0..self.slots.len() {
            let due = self.slots.get(index).and_then(|s| s.router.poll_timeout());
            if due.is_some_and(|at| at <= now) {
                if let Some(slot) = self.slots.get_mut(index) {
                    slot.router.handle_timeout(now);
                }
                self.pump(index);
            }
        }
        self.withdraw_stale();
    }

    fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        let routers = self.slots.iter().filter_map(|s| s.router.poll_timeout());
        routers.chain(self.next_withdrawal()).min()
    }

    fn is_finished(&self) -> bool {
        self.eof && !self.jobs.values().any(|j| matches!(j, Job::Host { .. }))
    }

    fn stop(&mut self) {
        self.end_listens();
        for index in 0..self.slots.len() {
            if let Some(slot) = self.slots.get_mut(index) {
                slot.router.stop();
            }
            self.pump(index);
        }
    }
}
