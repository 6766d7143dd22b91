//! `notifications/tasks`: a task's status told to the listen streams that asked for it
//! (`subscriptions/listen` with `"notifications": {"taskIds": [...]}`), each time it changes.
//!
//! - [`StatusLines::Listens`] (stdio): the layer reads the host's listen requests on their way
//!   in. One with `taskIds` from a request that does not declare the extension is refused with
//!   `-32021`; otherwise the machine inside (the hub) opens the stream, and the layer adds the
//!   task ids it agrees to (those of live tasks) to its acknowledgement, then sends the current
//!   state of each, and a notification at every later change of status, tagged with the stream.
//! - [`StatusLines::Front`] (HTTP): the front serves listen streams itself, so the layer sends
//!   every task's status, untagged, when the task is created and at every change; the front
//!   tags each for the streams that asked for it.
//!
//! A notification carries the task as `tasks/get` would return it (status, timestamps, then
//! `inputRequests`, `result` or `error`), without `resultType`.

use std::collections::HashMap;

use serde_json::Value;

use super::calls::declares_extension;
use super::table::Status;
use super::wire;
use super::TaskLayer;
use crate::bridge::machine::Machine;
use crate::bridge::message::{meta, splice, Id};
use crate::bridge::subscriptions::{push_task_ids, tagged, Filter};

/// Where the layer sends task status notifications.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StatusLines {
    /// To the host's own listen streams (stdio; the layer reads its listen requests).
    #[default]
    Listens,
    /// Every change, untagged, to a front that serves listen streams itself (HTTP).
    Front,
}

/// The listen streams that asked for tasks, and what each task last told.
#[derive(Debug, Default)]
pub(super) struct Listens {
    /// Listen requests passed to the machine, not yet acknowledged: key → (id, asked ids).
    pending: HashMap<String, (Id, Vec<String>)>,
    /// Open streams with the task ids agreed to.
    open: Vec<(Id, Vec<String>)>,
    /// The status last told of each task.
    told: HashMap<String, Status>,
}

impl Listens {
    /// Some listen request is pending or open.
    pub(super) fn any(&self) -> bool {
        !self.pending.is_empty() || !self.open.is_empty()
    }

    /// Forgets the stream (or pending request) whose canonical id is `key`.
    pub(super) fn forget(&mut self, key: &str) {
        self.pending.remove(key);
        self.open.retain(|(id, _)| id.key != key);
    }

    /// A response to a pending listen request (a refusal): it never opened.
    pub(super) fn refused(&mut self, key: &str) -> bool {
        self.pending.remove(key).is_some()
    }
}

impl<M: Machine> TaskLayer<M> {
    /// A host `subscriptions/listen`: one with `taskIds` is checked and remembered; all pass
    /// to the machine inside, which opens the stream.
    pub(super) fn on_listen(&mut self, line: Vec<u8>, id: &Id, params: Option<&Value>) {
        let asked = Filter::read(params).and_then(|f| f.task_ids);
        let Some(asked) = asked.filter(|_| self.cfg.status_lines == StatusLines::Listens) else {
            return self.pass_in(line);
        };
        if !declares_extension(params) {
            let what = "taskIds on subscriptions/listen need the tasks extension";
            return self.emit(wire::missing_capability(&id.raw, what));
        }
        self.listens
            .pending
            .insert(id.key.clone(), (id.clone(), asked));
        self.pass_in(line);
    }

    /// An acknowledgement the machine wrote: for a pending listen with `taskIds`, the agreed
    /// ids are added, and the current state of those tasks follows it.
    pub(super) fn on_acknowledged(&mut self, line: Vec<u8>, value: &Value) {
        let key = value
            .get("params")
            .and_then(|p| p.get(meta::KEY))
            .and_then(|m| m.get(meta::SUBSCRIPTION_ID))
            .map(Value::to_string);
        let Some((id, asked)) = key.and_then(|key| self.listens.pending.remove(&key)) else {
            return self.emit(line);
        };
        let mut agreed: Vec<String> = Vec::new();
        for task_id in asked {
            if self.table.get(&task_id, self.now).is_some() && !agreed.contains(&task_id) {
                agreed.push(task_id);
            }
        }
        self.emit(with_task_ids(&line, &agreed));
        for task_id in &agreed {
            if let Some(task) = self.table.get(task_id, self.now) {
                let status = self.shape.status(task);
                self.listens.told.insert(task_id.clone(), task.status);
                self.emit(tagged(&status, &id.raw));
            }
        }
        self.listens.open.push((id, agreed));
    }

    /// Tells every task status that changed since it was last told.
    pub(super) fn announce(&mut self) {
        let front = self.cfg.status_lines == StatusLines::Front;
        if !front && self.listens.open.is_empty() {
            return;
        }
        let mut lines = Vec::new();
        let watched: Vec<String> = if front {
            self.table.ids().map(str::to_owned).collect()
        } else {
            let mut ids: Vec<String> = Vec::new();
            for (_, agreed) in &self.listens.open {
                for task_id in agreed {
                    if !ids.contains(task_id) {
                        ids.push(task_id.clone());
                    }
                }
            }
            ids
        };
        self.listens
            .told
            .retain(|task_id, _| watched.contains(task_id));
        for task_id in &watched {
            let Some(task) = self.table.get(task_id, self.now) else {
                continue;
            };
            if self.listens.told.get(task_id) == Some(&task.status) {
                continue;
            }
            self.listens.told.insert(task_id.clone(), task.status);
            let status = self.shape.status(task);
            if front {
                lines.push(status);
                continue;
            }
            for (id, agreed) in &self.listens.open {
                if agreed.contains(task_id) {
                    lines.push(tagged(&status, &id.raw));
                }
            }
        }
        for line in lines {
            self.emit(line);
        }
    }
}

/// An acknowledgement with `"taskIds":[...]` as the first member of its
/// `params.notifications` (every other byte kept).
fn with_task_ids(ack: &[u8], agreed: &[String]) -> Vec<u8> {
    let mut ids = Vec::new();
    push_task_ids(&mut ids, agreed);
    let ids = String::from_utf8(ids).unwrap_or_default();
    splice::with_first_members(ack, &["params", "notifications"], &ids)
        .unwrap_or_else(|| ack.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreed_ids_lead_the_acknowledged_notifications() {
        let empty = br#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#;
        assert_eq!(
            String::from_utf8(with_task_ids(empty, &["a".to_owned()])).unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"taskIds":["a"]},"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#
        );
        let list = br#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#;
        assert_eq!(
            String::from_utf8(with_task_ids(list, &[])).unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"taskIds":[],"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#
        );
    }
}
