//! The three methods of the extension, answered by the layer itself: `tasks/get` (the task
//! with its details), `tasks/update` (answers to the device's input requests; once all are in,
//! the device gets the call again) and `tasks/cancel` (a round the device has is cancelled on
//! the device). Each needs the extension declared on the request (else `-32021`) and a known
//! `taskId` (else `-32602`).

use serde_json::{Map, Value};

use super::calls::declares_extension;
use super::layer::TaskLayer;
use super::lines::quoted;
use super::table::Status;
use super::wire;
use super::EXTENSION;
use crate::bridge::machine::Machine;
use crate::bridge::message::{self, error_response, Id, INVALID_PARAMS};

impl<M: Machine> TaskLayer<M> {
    pub(super) fn on_task_request(&mut self, id: &Id, name: &str, params: Option<&Value>) {
        if !declares_extension(params) {
            let what = format!(
                "{name} needs the {EXTENSION} extension in the request's clientCapabilities"
            );
            return self.emit(wire::missing_capability(&id.raw, &what));
        }
        let Some(task_id) = params.and_then(|p| p.get("taskId")).and_then(Value::as_str) else {
            let text = format!("Invalid params: {name} needs \"taskId\" (a string)");
            return self.emit(error_response(Some(&id.raw), INVALID_PARAMS, &text));
        };
        // Another client's task is as unknown as one that never was.
        let owner = self.owners.client_ref();
        let theirs = self.table.get(task_id, self.now);
        if theirs.is_none_or(|task| !task.belongs_to(owner)) {
            let text = "Failed to retrieve task: Task not found (unknown, or expired)";
            return self.emit(error_response(Some(&id.raw), INVALID_PARAMS, text));
        }
        match name {
            "tasks/get" => {
                if let Some(task) = self.table.get(task_id, self.now) {
                    let line = self.shape.detailed(&id.raw, task);
                    self.emit(line);
                }
            }
            "tasks/update" => {
                let Some(answers) = params
                    .and_then(|p| p.get("inputResponses"))
                    .and_then(Value::as_object)
                else {
                    let text = "Invalid params: tasks/update needs \"inputResponses\" (an object)";
                    return self.emit(error_response(Some(&id.raw), INVALID_PARAMS, text));
                };
                let answers = answers.clone();
                self.update(task_id, &answers);
                self.emit(wire::ack(&id.raw));
            }
            _ => {
                self.cancel(task_id);
                self.emit(wire::ack(&id.raw));
            }
        }
    }

    /// Answers to a task's outstanding input requests; once every one is answered, the device
    /// gets the call again with them (and its `requestState`). Keys not outstanding are
    /// ignored.
    pub(super) fn update(&mut self, task_id: &str, answers: &Map<String, Value>) {
        let now = self.now;
        let mut left = None;
        for (key, answer) in answers {
            let taken = self
                .calls
                .get_mut(task_id)
                .is_some_and(|call| call.answer(key, answer));
            if taken {
                left = self.table.answered(task_id, key, now);
            }
        }
        if left == Some(0) {
            self.retry(task_id);
        }
    }

    /// The device gets task `task_id`'s call again, with the answers collected and its
    /// `requestState`.
    pub(super) fn retry(&mut self, task_id: &str) {
        let now = self.now;
        let call_id = self.new_call_id();
        let Some(call) = self.calls.get_mut(task_id) else {
            return;
        };
        let line = call.line(&call_id, None);
        call.in_flight = Some(quoted(&call_id));
        self.rounds.insert(quoted(&call_id), task_id.to_owned());
        self.table.resume(task_id, now);
        self.pass_in(line);
    }

    /// Cancels a task: a round the device has is cancelled on the device (cooperatively: its
    /// late answer is dropped).
    fn cancel(&mut self, task_id: &str) {
        let was = self.table.cancel(task_id, self.now);
        if was.is_none_or(Status::is_terminal) {
            return;
        }
        let in_flight = self.calls.get_mut(task_id).and_then(|c| c.in_flight.take());
        if let Some(round) = in_flight {
            self.pass_in(message::cancelled(&round, "the client cancelled the task"));
        }
    }
}
