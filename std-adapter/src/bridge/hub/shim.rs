//! The hub's side of the legacy input-required shim ([`crate::bridge::input_shim`]), for each
//! device: a legacy host's call goes to its device in 2026-07-28 form, the device's questions go
//! to the host under the hub's own ids, and the answers come back as the call's next round.

use serde_json::Value;

use super::{Hub, Job};
use crate::bridge::input_shim::Action;
use crate::bridge::message::{self, method, splice, Class, Id};

/// Prefix of the hub's ids for its questions to the host.
pub(super) const ASK_PREFIX: &str = "embedded-mcp-hub-input-";

impl Hub {
    /// Starts a shim call `id` of device `index` with `params` (the device's tool name in them):
    /// false when the shim does not take it.
    pub(super) fn begin_shim_call(&mut self, index: usize, id: &Id, params: &str) -> bool {
        let value = serde_json::from_str::<Value>(params).ok();
        if !self.shim.wants(value.as_ref()) {
            return false;
        }
        let Some(line) = self.shim.begin(id, Some(params)) else {
            return false;
        };
        self.shim_devices.insert(id.key.clone(), index);
        self.send_round(index, id.clone(), &line);
        true
    }

    /// Sends a round (a request line under the host's id) to device `index` under a hub id.
    fn send_round(&mut self, index: usize, id: Id, line: &[u8]) {
        let params = splice::member_text(line, "params").unwrap_or("{}");
        let job = Job::Host {
            id,
            modern: false,
            shim: true,
        };
        self.send_job_text(index, job, method::TOOLS_CALL, params);
    }

    /// Device `index` answered a round of shim call `id` with `line`.
    pub(super) fn on_shim_answer(&mut self, id: &Id, line: &[u8]) {
        let actions = self.shim.on_device_answer(&id.key, line, self.now);
        self.shim_actions(actions);
    }

    /// The host answered with `line`: true when it was the answer to one of the shim's
    /// questions (then handled).
    pub(super) fn on_host_response(&mut self, line: &[u8]) -> bool {
        let Some(msg) = message::parse(line) else {
            return false;
        };
        let Class::Response { id } = msg.class else {
            return false;
        };
        if !self.shim.owns(&id.key) {
            return false;
        }
        let actions = self.shim.on_host_answer(&id.key, &msg.value);
        self.shim_actions(actions);
        true
    }

    /// The host cancelled call `key`: true when the shim held it (its questions withdrawn).
    pub(super) fn cancel_shim_call(&mut self, key: &str) -> bool {
        let Some(actions) = self.shim.cancel(key) else {
            return false;
        };
        self.shim_devices.remove(key);
        self.shim_actions(actions);
        true
    }

    /// Carries out what the shim asked.
    pub(super) fn shim_actions(&mut self, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::Host { line, .. } => self.emit(line),
                Action::Answer { key, line } => {
                    self.shim_devices.remove(&key);
                    self.emit(line);
                }
                Action::Complete { key, id, result } => {
                    self.shim_devices.remove(&key);
                    let mut line = b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec();
                    line.extend_from_slice(id.as_bytes());
                    line.extend_from_slice(b",\"result\":");
                    line.extend_from_slice(&result);
                    line.push(b'}');
                    self.emit(line);
                }
                Action::Device { key, line } => {
                    let Some(index) = self.shim_devices.get(&key).copied() else {
                        continue;
                    };
                    let id = message::parse(&line).and_then(|m| match m.class {
                        Class::Request { id, .. } => Some(id),
                        _ => None,
                    });
                    if let Some(id) = id {
                        self.send_round(index, id, &line);
                    }
                }
            }
        }
    }
}
