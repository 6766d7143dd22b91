//! The device side of the router: lines from the device, and responses to host requests.

use serde_json::Value;

use super::flight::Pending;
use super::link::LinkState;
use super::{Router, PREVIEW};
use crate::bridge::config::OnInvalid;
use crate::bridge::message::{self, method, Class};
use crate::bridge::rewrite::drop_unsafe_icons;
use crate::log::preview;

impl Router {
    pub(super) fn on_device_line(&mut self, gen: u64, line: Vec<u8>) {
        let LinkState::Up(up) = &mut self.device.link else {
            return;
        };
        if up.gen != gen {
            return;
        }
        if !up.heard {
            up.heard = true;
            self.device.attempts = 0;
            for s in self.flight.sent_mut() {
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
                if let Some(req) = self.flight.internal.remove(&id.key) {
                    self.on_internal_response(req, &msg.value);
                } else if self.flight.awaits_on(&id.key, gen) {
                    if let Some(p) = self.flight.pending.remove(&id.key) {
                        if self.refused_task_claim(&p, &msg.value) {
                            return;
                        }
                        if let Some((p, line, value)) = self.lean_for_host(p, line, msg.value) {
                            self.on_response(p, line, value);
                        }
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
            Class::Request { id, method: name } => self.refuse_device_request(&id, &name),
            Class::Notification { method: name } => {
                if !self.device_may_notify(&name, &msg.value, gen) {
                    return;
                }
                if name == method::TOOLS_LIST_CHANGED {
                    self.forget_tools();
                }
                self.emit(line);
            }
            Class::Invalid { .. } => self.log.warn(format_args!(
                "skipped a message from the device that is not JSON-RPC: {}",
                preview(&line, PREVIEW)
            )),
        }
    }

    pub(super) fn on_response(&mut self, p: Pending, line: Vec<u8>, value: Value) {
        let Some(result) = value.get("result") else {
            self.emit(line);
            return;
        };
        match p.method.as_str() {
            method::INITIALIZE => self.learn_initialize(&p, result),
            method::TOOLS_LIST => {
                if let Some(tools) = result.get("tools") {
                    let last = result.get("nextCursor").is_none_or(Value::is_null);
                    self.learn_tools(tools, p.first_page, last);
                }
                let result = result.clone();
                if let Some((_, line)) = self.join_page(p, line, &result) {
                    let line = self.safe_icons(line);
                    self.emit(line);
                }
                return; // or the next page is asked for
            }
            _ => {}
        }
        let line = self.safe_icons(line);
        if p.method != method::TOOLS_CALL || self.cfg.on_invalid == OnInvalid::Pass {
            self.emit(line);
            return;
        }
        self.check_call_result(p, line, result);
    }

    fn safe_icons(&mut self, line: Vec<u8>) -> Vec<u8> {
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
        line
    }
}
