//! The host side of the router: what a host line means, its way to the device (sent at once
//! when the link is ready, queued while it is not, refused with an error response when neither
//! is possible), and the one way out to the host.

use serde_json::{json, Value};

use super::flight::{Merging, Pending, Queued, Sent};
use super::link::LinkState;
use super::{Router, PREVIEW, RESENDABLE};
use crate::bridge::config::{Pages, STARTUP_RESENDS};
use crate::bridge::machine::{LinkAction, Output};
use crate::bridge::message::typed::{read, Cancelled};
use crate::bridge::message::{
    self, error_response, meta, method, Class, Id, Message, CONNECTION_CLOSED, INVALID_REQUEST,
    PARSE_ERROR,
};
use crate::log::preview;

impl Router {
    /// Sends a line to the host (the layers above reshape it for an old revision).
    pub(super) fn emit(&mut self, line: Vec<u8>) {
        if self.log.tracing() {
            self.log
                .trace(format_args!("to host: {}", preview(&line, PREVIEW)));
        }
        self.out.push_back(Output::Host(line));
    }

    /// A host line, and what the front read of it if it did (`parsed`: then it is not parsed
    /// again).
    pub(super) fn on_host_line(&mut self, line: Vec<u8>, parsed: Option<Message>) {
        if self.log.tracing() {
            self.log
                .trace(format_args!("from host: {}", preview(&line, PREVIEW)));
        }
        let Some(msg) = parsed.or_else(|| message::parse(&line)) else {
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
            Class::Notification { method: name } => {
                let params = msg.value.get("params");
                if name == method::INITIALIZED {
                    self.handshake.initialized_line = Some(line.clone());
                    self.forward(line, None);
                    self.renew_tools();
                    return;
                }
                if name == method::CANCELLED {
                    let key = read::<Cancelled>(params)
                        .and_then(|c| serde_json::to_string(&c.request_id).ok());
                    if let Some(key) = key {
                        // Removed from the queue, it never reaches the device: nothing to forward.
                        if self.flight.pending.remove(&key).is_some() && self.flight.unqueue(&key) {
                            self.log.info(format_args!(
                                "request {key} cancelled before it reached the device"
                            ));
                            return;
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

    pub(super) fn on_host_request(&mut self, line: Vec<u8>, value: &Value, id: Id, name: String) {
        if self.flight.in_use(&id.key) {
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
        let request_meta = params.and_then(|p| p.get(meta::KEY)).cloned();
        let progress = request_meta
            .as_ref()
            .and_then(|m| m.get(meta::PROGRESS_TOKEN))
            .and_then(|t| serde_json::to_string(t).ok());
        let pending = Pending {
            tool: (name == method::TOOLS_CALL)
                .then(|| params.and_then(|p| p.get("name")).and_then(Value::as_str))
                .flatten()
                .map(str::to_owned),
            version: request_meta
                .as_ref()
                .and_then(|m| m.get(meta::PROTOCOL_VERSION))
                .and_then(Value::as_str)
                .map(str::to_owned),
            meta: request_meta,
            init_params: (name == method::INITIALIZE).then(|| params.cloned().unwrap_or(json!({}))),
            first_page: name == method::TOOLS_LIST
                && params.and_then(|p| p.get("cursor")).is_none(),
            merging: None,
            progress,
            started: self.now,
            deadline: self.now + self.cfg.timeout.min(self.cfg.max_call),
            sent: None,
            id: id.clone(),
            method: name,
        };
        let mut pending = pending;
        if pending.first_page && self.cfg.pages == Pages::One {
            if self.answer_list_from_cache(&pending) {
                return;
            }
            pending.merging = Some(Merging {
                params: params.cloned().unwrap_or(json!({})),
                tools: Vec::new(),
                pages: 0,
            });
        }
        let key = id.key;
        self.flight.pending.insert(key.clone(), pending);
        self.forward(line, Some(key));
    }
}

impl Router {
    /// Sends a host message now if the link is ready, else queues it (and starts connecting if
    /// the bridge had given up).
    pub(super) fn forward(&mut self, line: Vec<u8>, key: Option<String>) {
        if self.device.ready() {
            self.send_now(line, key);
            return;
        }
        if self.flight.queue.len() >= self.cfg.max_queued {
            self.refuse(key, &line, "the bridge's queue for the device is full");
            return;
        }
        self.flight.queue.push_back(Queued { line, key });
        if matches!(self.device.link, LinkState::Down { .. }) {
            self.device.attempts = 0;
            self.start_connecting(0);
        }
    }

    pub(super) fn refuse(&mut self, key: Option<String>, line: &[u8], why: &str) {
        match key.and_then(|k| self.flight.pending.remove(&k)) {
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

    /// Writes a line to the device link if it is up (a message the bridge made, or one the
    /// host's request `key` is waiting on).
    pub(super) fn write_device(&mut self, line: Vec<u8>, key: Option<String>) {
        let Some(gen) = self.device.up_gen() else {
            return;
        };
        let line = self.lean_for_device(line, gen);
        if self.log.tracing() {
            self.log
                .trace(format_args!("to device: {}", preview(&line, PREVIEW)));
        }
        self.link_action(LinkAction::Write { gen, line, key });
    }

    pub(super) fn send_now(&mut self, line: Vec<u8>, key: Option<String>) {
        let LinkState::Up(up) = &self.device.link else {
            return;
        };
        let gen = up.gen;
        let heard = up.heard;
        let retry = self.cfg.startup_retry;
        let now = self.now;
        if let Some(p) = key.as_ref().and_then(|k| self.flight.pending.get_mut(k)) {
            let resend = !heard && !retry.is_zero() && RESENDABLE.contains(&p.method.as_str());
            p.sent = Some(Sent {
                gen,
                line: if resend { line.clone() } else { Vec::new() },
                resend_at: resend.then(|| now + retry),
                resends_left: if resend { STARTUP_RESENDS } else { 0 },
            });
        }
        self.write_device(line, key);
    }

    /// The shell could not queue a write on link `gen` (the device is not reading).
    pub(super) fn on_write_refused(&mut self, gen: u64, key: Option<String>) {
        if self.device.up_gen() != Some(gen) {
            return;
        }
        let why = "the device is not reading (its write queue is full)";
        let Some(key) = key else {
            self.log
                .warn(format_args!("dropped a line to the device: {why}"));
            return;
        };
        if let Some(req) = self.flight.internal.remove(&key) {
            self.internal_failed(req.kind, why);
            return;
        }
        if self.flight.awaits_on(&key, gen) {
            self.refuse(Some(key), b"", why);
        }
    }

    pub(super) fn flush_queue(&mut self) {
        while self.device.ready() {
            let Some(q) = self.flight.queue.pop_front() else {
                return;
            };
            // A queued request may have timed out or been cancelled meanwhile.
            if q.key
                .as_ref()
                .is_some_and(|k| !self.flight.pending.contains_key(k))
            {
                continue;
            }
            self.send_now(q.line, q.key);
        }
    }
}
