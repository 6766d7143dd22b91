//! The devices' side of the hub: answers to its jobs (re-addressed to the host's id), each
//! device's tool list (listed again when its router says it may have changed), and the one page
//! of every device's tools.

use std::sync::Arc;

use serde_json::{json, Value};

use super::{tools, Hub, Job, PREVIEW};
use crate::bridge::catalog::{Fill, Tools, ToolsView};
use crate::bridge::machine::Output;
use crate::bridge::message::{self, method, Class, Id};
use crate::log::preview;

impl Hub {
    pub(super) fn on_device_line(&mut self, index: usize, line: Vec<u8>) {
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
                    let note = json!({"jsonrpc": "2.0", "method": method::INITIALIZED});
                    if let Ok(bytes) = serde_json::to_vec(&note) {
                        self.send_to_router(index, bytes);
                    }
                    self.list(index);
                }
                Some(Job::List(index)) => {
                    let listed = msg
                        .value
                        .get("result")
                        .and_then(|r| r.get("tools"))
                        .is_some();
                    if !listed {
                        self.log.warn(format_args!(
                            "device {} did not list its tools: {}",
                            self.slots.get(index).map_or("?", |s| s.name.as_str()),
                            preview(&line, PREVIEW)
                        ));
                    }
                    self.on_listed(index, listed);
                }
                None => {}
            },
            Class::Notification { method: name } if name == method::TOOLS_LIST_CHANGED => {
                self.list(index);
            }
            // Each device's router let through only what the device may say (its
            // `device_rules`): progress of its own calls, no task statuses, no requests. Of its
            // notifications the hub passes progress and logs; the rest would speak for the hub
            // (its listen streams are the hub's: a device's acknowledgement or cancel of one
            // would be forged).
            Class::Notification { method: name }
                if name == method::PROGRESS || name == method::LOG_MESSAGE =>
            {
                self.emit_from(index, line);
            }
            Class::Notification { method: name } => {
                self.dropped_notifications += 1;
                let count = self.dropped_notifications;
                if count.is_power_of_two() {
                    self.log.warn(format_args!(
                        "dropped the device {}'s {name}: the hub passes a device's progress and logs only ({count} dropped so far)",
                        self.slots.get(index).map_or("?", |s| s.name.as_str())
                    ));
                }
            }
            Class::ErrorWithoutId => self.emit(line),
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
            slot.relisting_since = Some(self.now);
        }
        self.send_job(index, Job::List(index), method::TOOLS_LIST, json!({}));
    }

    /// Device `index` listed its tools into its router's catalog (`listed`; else it could not,
    /// and has none for now).
    pub(super) fn on_listed(&mut self, index: usize, listed: bool) {
        let announce = self.anyone_listens();
        let Some(slot) = self.slots.get_mut(index) else {
            return;
        };
        let shown = if listed {
            slot.router.tools()
        } else {
            Arc::new(Tools::empty(Fill::Failed))
        };
        let changed = slot.settled && shown.entries() != slot.shown.entries();
        slot.shown = shown;
        slot.settled = true;
        slot.listing = false;
        let again = std::mem::take(&mut slot.relist);
        // A listing that came back (even empty) ends the grace; a re-listing starts a new one.
        slot.relisting_since = None;
        if changed && announce {
            self.announce_list_changed();
        }
        self.publish_tools();
        if again {
            self.list(index);
        }
        self.answer_waiting();
    }

    /// Tells the readers outside the hub (the HTTP front) every device's tools as shown.
    pub(super) fn publish_tools(&mut self) {
        let devices = self.slots.iter();
        let view = ToolsView::hub(devices.map(|s| (s.name.clone(), s.shown.clone())).collect());
        self.out.push_back(Output::Tools(view));
    }

    pub(super) fn names(&self) -> Vec<String> {
        self.slots.iter().map(|s| s.name.clone()).collect()
    }

    pub(super) fn answer_list(&mut self, id: &Id, meta_version: Option<&str>) {
        let all: Vec<Value> = self
            .slots
            .iter()
            .flat_map(|s| tools::prefixed(&s.name, s.shown.entries().to_vec()))
            .collect();
        let result = tools::list_result(all, meta_version);
        self.answer(id, &result);
    }

    pub(super) fn answer_waiting(&mut self) {
        if !self.slots.iter().all(|s| s.settled) {
            return;
        }
        for (id, version) in std::mem::take(&mut self.waiting) {
            self.answer_list(&id, version.as_deref());
        }
    }
}
