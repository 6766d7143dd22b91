//! The host side of the router: what a host line means, and the one way out to the host.

use serde_json::{json, Value};

use super::flight::{Merging, Pending};
use super::{Router, PREVIEW};
use crate::bridge::config::Pages;
use crate::bridge::machine::Output;
use crate::bridge::message::typed::{read, Cancelled};
use crate::bridge::message::{
    self, error_response, meta, method, Class, Id, INVALID_REQUEST, PARSE_ERROR,
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

    pub(super) fn on_host_line(&mut self, line: Vec<u8>) {
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
