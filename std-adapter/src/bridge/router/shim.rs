//! The router's side of the legacy input-required shim ([`crate::bridge::input_shim`]): the
//! device's answers to the shim's rounds, the host's answers to its questions, and the shim's
//! actions carried out (lines to the host, rounds to the device, the call's final answer).

use serde_json::Value;

use super::flight::Pending;
use super::Router;
use crate::bridge::config::OnInvalid;
use crate::bridge::input_shim::Action;
use crate::bridge::message::method;

/// Prefix of the shim's ids toward the host (never used by the router's own requests).
pub(super) const ASK_PREFIX: &str = "embedded-mcp-bridge-input-";

impl Router {
    /// The device answered a round of a call the shim drives.
    pub(super) fn on_shim_answer(&mut self, p: Pending, line: &[u8]) {
        let actions = self.shim.on_device_answer(&p.id.key, line, self.now);
        let mut p = Some(p);
        for action in actions {
            match action {
                Action::Complete { result, .. } => {
                    let Some(p) = p.take() else { continue };
                    self.answer_complete(p, &result);
                }
                other => self.shim_action(other),
            }
        }
    }

    /// The final result of a shim call, checked as any `tools/call` result.
    fn answer_complete(&mut self, p: Pending, result: &[u8]) {
        let mut line = Vec::with_capacity(result.len() + p.id.raw.len() + 32);
        line.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        line.extend_from_slice(p.id.raw.as_bytes());
        line.extend_from_slice(b",\"result\":");
        line.extend_from_slice(result);
        line.push(b'}');
        let value: Option<Value> = serde_json::from_slice(result).ok();
        match value {
            Some(value) if self.cfg.on_invalid != OnInvalid::Pass => {
                self.check_call_result(p, line, &value);
            }
            _ => self.emit(line),
        }
    }

    /// Carries out what the shim asked (timeouts, host answers and cancellations).
    pub(super) fn shim_actions(&mut self, actions: Vec<Action>) {
        for action in actions {
            self.shim_action(action);
        }
    }

    fn shim_action(&mut self, action: Action) {
        match action {
            Action::Host { line, .. } => self.emit(line),
            Action::Answer { line, .. } => self.emit(line),
            Action::Complete { id, result, .. } => {
                // Only a device answer completes a call, handled with its request above.
                let mut line = b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec();
                line.extend_from_slice(id.as_bytes());
                line.extend_from_slice(b",\"result\":");
                line.extend_from_slice(&result);
                line.push(b'}');
                self.emit(line);
            }
            Action::Device { key, line } => self.send_round(key, line),
        }
    }

    /// Sends a later round of a shim call to the device under the host's id, tracked as any
    /// request (its idle deadline starts now).
    fn send_round(&mut self, key: String, line: Vec<u8>) {
        let Some(msg) = crate::bridge::message::parse(&line) else {
            return;
        };
        let crate::bridge::message::Class::Request { id, .. } = msg.class else {
            return;
        };
        let params = msg.value.get("params");
        let request_meta = params
            .and_then(|p| p.get(crate::bridge::message::meta::KEY))
            .cloned();
        let progress = request_meta
            .as_ref()
            .and_then(|m| m.get(crate::bridge::message::meta::PROGRESS_TOKEN))
            .and_then(|t| serde_json::to_string(t).ok());
        let pending = Pending {
            tool: params
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            version: None,
            meta: request_meta,
            init_params: None,
            first_page: false,
            merging: None,
            progress,
            started: self.now,
            deadline: self.now + self.cfg.timeout.min(self.cfg.max_call),
            sent: None,
            id,
            method: method::TOOLS_CALL.to_owned(),
            shim: true,
        };
        self.flight.pending.insert(key.clone(), pending);
        self.forward(line, Some(key));
    }
}
