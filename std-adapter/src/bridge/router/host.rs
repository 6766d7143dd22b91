//! The host side of the routing loop: what a host line means, and the one way out to the host.

use std::sync::mpsc::SyncSender;
use std::time::Instant;

use serde_json::{json, Value};

use super::flight::{Merging, Pending};
use super::front::{is_batch, BatchStart, HostFront};
use super::{Router, PREVIEW};
use crate::bridge::message::{self, error_response, Class, Id, INVALID_REQUEST, PARSE_ERROR};
use crate::bridge::Pages;
use crate::device::client::META_PROTOCOL_VERSION;
use crate::device::log::preview;

/// The host end of the bridge: where responses go, and whether the host is still there.
pub(super) struct HostSide {
    /// Lines for the host writer; `None` once the bridge stops.
    pub(super) out: Option<SyncSender<Vec<u8>>>,
    /// The host closed its input: finish what is in flight, then stop.
    pub(super) eof: bool,
    /// Writing to the host failed (why): the bridge stops.
    pub(super) output_failed: Option<String>,
    /// Old revisions and batches.
    pub(super) front: HostFront,
}

impl Router {
    /// Sends a line to the host, reshaped for its revision (or held for its batch).
    pub(super) fn emit(&mut self, line: Vec<u8>) {
        if let Some(line) = self.host.front.outgoing(line) {
            self.write_host(line);
        }
    }

    fn write_host(&mut self, line: Vec<u8>) {
        if self.log.tracing() {
            self.log
                .trace(format_args!("to host: {}", preview(&line, PREVIEW)));
        }
        let failed = match &self.host.out {
            Some(out) => out.send(line).is_err(),
            None => true,
        };
        if failed && self.host.output_failed.is_none() {
            self.host.output_failed = Some("the host writer stopped".into());
        }
    }

    pub(super) fn on_host_line(&mut self, line: Vec<u8>) {
        if self.log.tracing() {
            self.log
                .trace(format_args!("from host: {}", preview(&line, PREVIEW)));
        }
        if is_batch(&line) {
            match self.host.front.open_batch(&line) {
                BatchStart::Refused(answer) => self.write_host(answer),
                BatchStart::Messages(messages) => {
                    for message in messages {
                        self.on_host_message(message);
                    }
                    if let Some(answer) = self.host.front.close_batch() {
                        self.write_host(answer);
                    }
                }
            }
            return;
        }
        self.on_host_message(line);
    }

    fn on_host_message(&mut self, line: Vec<u8>) {
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
                    self.session.initialized_line = Some(line.clone());
                }
                if method == "notifications/cancelled" {
                    let key = params
                        .and_then(|p| p.get("requestId"))
                        .and_then(|id| serde_json::to_string(id).ok());
                    if let Some(key) = key {
                        // Removed from the queue, it never reaches the device: nothing to forward.
                        if self.flight.pending.remove(&key).is_some() && self.flight.unqueue(&key) {
                            self.host.front.forget(&key);
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

    pub(super) fn on_host_request(&mut self, line: Vec<u8>, value: &Value, id: Id, method: String) {
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
            merging: None,
            deadline: Instant::now() + self.cfg.timeout,
            sent: None,
            id: id.clone(),
            method,
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
        self.host.front.request(&key, &pending.method, params);
        self.flight.pending.insert(key.clone(), pending);
        self.forward(line, Some(key));
    }
}
