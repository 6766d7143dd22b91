//! Where each line the router writes goes:
//!
//! - a response, to the request its id names, with the client's id put back (`splice`);
//! - `notifications/progress`, to the request its token names (a forwarded request's token is
//!   its ticket), with the client's token put back; in a hub, only when the device that wrote
//!   it has that request;
//! - `notifications/message` (logs carry neither id nor token), to the oldest request in
//!   flight on the device that wrote it (a device serves one request at a time, in arrival
//!   order), filtered by its session's level; outside any request, to every session's GET
//!   stream whose level admits it;
//! - `notifications/tools/list_changed`, to every GET stream and to the listen streams that
//!   asked; `notifications/tasks` (the task layer's, never a device's), to the listen streams
//!   that asked for the task;
//! - anything else (a device's own requests) is logged and dropped: no HTTP stream takes it.
//!
//! The input shim's questions come apart ([`Clients::on_question`]), naming their call.

use embedded_mcp::json::{Limits, Value as RawValue, MAX_DEPTH_LIMIT};
use embedded_mcp::protocol::LogLevel;
use serde_json::Value;

use super::engine::Clients;
use super::event::Delivery;
use super::ids::Ids;
use crate::bridge::message::{self, method, splice, Class};
use crate::log::preview;

/// The task layer's status notification (the tasks extension's).
const TASKS_STATUS: &str = "notifications/tasks";

/// Bytes of a line shown in a log message.
const PREVIEW: usize = 200;

impl<R: Clone> Clients<R> {
    /// One line the router wrote for its host; `from` is the device that wrote it, when the
    /// router says (a hub's device notifications; one device: always device 0).
    pub fn on_router_line(&mut self, line: Vec<u8>, from: Option<usize>, now: std::time::Instant) {
        self.now = now;
        // Most lines answer a request under one of the layer's ids: read only that, in place.
        if let Some(ticket) = answer_ticket(&line) {
            return self.on_response(Some(ticket), line);
        }
        let Some(msg) = message::parse(&line) else {
            self.log.warn(format_args!(
                "the router wrote a line that is not JSON: {}",
                preview(&line, PREVIEW)
            ));
            return;
        };
        let from = from.or(self.cfg.devices.is_empty().then_some(0));
        match msg.class {
            Class::Response { id } => self.on_response(Ids::<()>::parse(&id.key), line),
            Class::Notification { method } => self.on_notification(&method, &msg.value, line, from),
            Class::ErrorWithoutId | Class::Invalid { .. } | Class::Request { .. } => {
                self.log.warn(format_args!(
                    "dropped a line that belongs to no HTTP request: {}",
                    preview(&line, PREVIEW)
                ));
            }
        }
    }

    fn on_response(&mut self, ticket: Option<u64>, line: Vec<u8>) {
        let Some(ticket) = ticket.filter(|&t| self.ids.contains(t)) else {
            self.log.info(format_args!(
                "dropped the answer to a request nobody waits for: {}",
                preview(&line, PREVIEW)
            ));
            return;
        };
        let Some(route) = self.finish(ticket) else {
            return;
        };
        match splice::with_id(&line, &route.owner.id_raw) {
            Some(out) => self.deliver_to(route.sink, Delivery::Response(out)),
            None => self.log.warn(format_args!(
                "could not put the client's id back into a response"
            )),
        }
    }

    /// One of the input shim's questions (or its withdrawal) about call `call` (the id key of
    /// the call as the layer forwarded it: its ticket): onto that call's stream, where the
    /// person's client reads it; the call then waits for the person, up to the shim's deadline.
    pub fn on_question(&mut self, call: &str, line: Vec<u8>, now: std::time::Instant) {
        self.now = now;
        let ticket = Ids::<()>::parse(call);
        if let Some(sink) = ticket.and_then(|t| self.withdrawing.get(&t)) {
            // The withdrawal of the questions of a call just cancelled.
            let sink = sink.clone();
            return self.deliver_to(sink, Delivery::Notification(line));
        }
        let Some(ticket) = ticket.filter(|&t| self.ids.contains(t)) else {
            return self.log.info(format_args!(
                "dropped a question of the input shim about a call nobody waits for: {}",
                preview(&line, PREVIEW)
            ));
        };
        self.deliver(ticket, Delivery::Notification(line));
        let deadline = now + self.cfg.input_timeout;
        if let Some(route) = self.ids.get_mut(ticket) {
            route.asked = Some(deadline);
        }
    }

    fn on_notification(&mut self, name: &str, value: &Value, line: Vec<u8>, from: Option<usize>) {
        match name {
            method::PROGRESS => {
                let target = value
                    .get("params")
                    .and_then(|p| p.get("progressToken"))
                    .and_then(Value::as_u64)
                    .filter(|&t| {
                        self.ids
                            .get(t)
                            .is_some_and(|r| from.is_none() || r.device == from)
                    });
                let out = target.and_then(|t| {
                    let token = self.ids.get(t)?.token.as_deref()?;
                    Some((t, splice::with_progress_token(&line, token)?))
                });
                match out {
                    Some((ticket, out)) => self.deliver(ticket, Delivery::Notification(out)),
                    None => self.dropped_note(&line),
                }
            }
            method::LOG_MESSAGE => {
                let target = from.and_then(|d| self.ids.oldest(|r| r.device == Some(d)));
                let Some(ticket) = target else {
                    return self.broadcast_log(value, &line);
                };
                let level = self
                    .ids
                    .get(ticket)
                    .and_then(|r| r.owner.session.as_deref())
                    .and_then(|s| self.sessions.peek(s))
                    .map(|s| s.log_level);
                if admits(level, value) {
                    self.deliver(ticket, Delivery::Notification(line));
                }
            }
            method::TOOLS_LIST_CHANGED => {
                let mut told = self.streams.tools_list_changed();
                let sessions: Vec<R> = self
                    .streams
                    .session_streams()
                    .map(|(_, r)| r.clone())
                    .collect();
                told.extend(
                    sessions
                        .into_iter()
                        .map(|r| (r, Delivery::Line(line.clone()))),
                );
                for (sink, delivery) in told {
                    self.deliver_to(sink, delivery);
                }
            }
            TASKS_STATUS => {
                let task_id = value
                    .get("params")
                    .and_then(|p| p.get("taskId"))
                    .and_then(Value::as_str);
                if let Some(task_id) = task_id {
                    for (sink, delivery) in self.streams.task_status(task_id, &line) {
                        self.deliver_to(sink, delivery);
                    }
                }
            }
            _ => self.dropped_note(&line),
        }
    }

    /// A log line tied to no request: to every GET stream whose session's level admits it.
    fn broadcast_log(&mut self, value: &Value, line: &[u8]) {
        let mut sinks = Vec::new();
        for (session, sink) in self.streams.session_streams() {
            let level = self.sessions.peek(session).map(|s| s.log_level);
            if admits(level, value) {
                sinks.push(sink.clone());
            }
        }
        if sinks.is_empty() {
            return self.dropped_note(line);
        }
        for sink in sinks {
            self.deliver_to(sink, Delivery::Line(line.to_vec()));
        }
    }

    fn dropped_note(&self, line: &[u8]) {
        self.log.info(format_args!(
            "dropped a notification tied to no request in flight: {}",
            preview(line, PREVIEW)
        ));
    }
}

/// The ticket a response line answers, read in place (no tree is built): `None` when the line
/// is no response, or its id is not a number (then not one of the layer's).
fn answer_ticket(line: &[u8]) -> Option<u64> {
    let limits = Limits {
        max_depth: MAX_DEPTH_LIMIT,
    };
    let doc = RawValue::parse_with(line, limits).ok()?;
    if doc.get("method").is_some() || (doc.get("result").is_none() && doc.get("error").is_none()) {
        return None;
    }
    Ids::<()>::parse(doc.get("id")?.raw())
}

/// True when a session's threshold (`None`: no session, 0: none set) admits the log message
/// `value`.
pub(super) fn admits(threshold: Option<u8>, value: &Value) -> bool {
    let Some(threshold) = threshold.filter(|&t| t != 0) else {
        return true;
    };
    value
        .get("params")
        .and_then(|p| p.get("level"))
        .and_then(Value::as_str)
        .and_then(LogLevel::from_name)
        .is_some_and(|l| l.rank() >= threshold)
}
