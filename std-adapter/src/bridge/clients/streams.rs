//! The streams tied to no request: each legacy session's GET stream, the 2026-07-28 listen
//! streams (`subscriptions/listen`), and the latest status of each task, which a listen stream
//! asking for a task starts with.

use std::collections::HashMap;

use super::event::{Delivery, Ticket};
use super::task_lines::TaskLines;
use crate::bridge::message::Id;
use crate::bridge::subscriptions::{tagged, Filter, Subscriptions};

/// The open streams, each with its route `R`.
pub(super) struct Streams<R> {
    /// The GET stream of each legacy session that has one.
    listeners: HashMap<String, (Ticket, R)>,
    /// The 2026-07-28 listen streams.
    subscriptions: Subscriptions<(Ticket, R)>,
    /// The latest `notifications/tasks` of each task.
    task_lines: TaskLines,
}

impl<R> Default for Streams<R> {
    fn default() -> Self {
        Self {
            listeners: HashMap::new(),
            subscriptions: Subscriptions::default(),
            task_lines: TaskLines::default(),
        }
    }
}

impl<R: Clone> Streams<R> {
    /// Opens `session`'s GET stream (it has none: [`Self::end_session_stream`] first).
    pub(super) fn open_session_stream(&mut self, session: &str, ticket: Ticket, route: R) {
        self.listeners.insert(session.to_owned(), (ticket, route));
    }

    /// Ends `session`'s GET stream, if it has one: its ticket.
    pub(super) fn end_session_stream(&mut self, session: &str) -> Option<Ticket> {
        self.listeners.remove(session).map(|(ticket, _)| ticket)
    }

    /// The GET streams: (session, route).
    pub(super) fn session_streams(&self) -> impl Iterator<Item = (&str, &R)> {
        self.listeners.iter().map(|(s, (_, r))| (s.as_str(), r))
    }

    /// Opens the listen stream of request `id`: what to hand it (its acknowledgement, then
    /// the current state of each task it asked for that the front knows; an unknown task is
    /// left out of what the stream agrees to).
    pub(super) fn subscribe(
        &mut self,
        ticket: Ticket,
        id: Id,
        mut filter: Filter,
        route: R,
    ) -> Vec<(R, Delivery)> {
        let mut currents = Vec::new();
        if let Some(asked) = filter.task_ids.take() {
            let mut agreed: Vec<String> = Vec::new();
            for task_id in asked {
                if agreed.contains(&task_id) {
                    continue;
                }
                if let Some(line) = self.task_lines.latest(&task_id) {
                    currents.push(tagged(line, &id.raw));
                    agreed.push(task_id);
                }
            }
            filter.task_ids = Some(agreed);
        }
        let ack = self.subscriptions.open(id, filter, (ticket, route.clone()));
        let mut out = vec![
            (route.clone(), Delivery::Opened),
            (route.clone(), Delivery::Line(ack)),
        ];
        out.extend(
            currents
                .into_iter()
                .map(|l| (route.clone(), Delivery::Line(l))),
        );
        out
    }

    /// The stream of `ticket` was closed by its client: the session whose GET stream it was,
    /// if it was one.
    pub(super) fn close(&mut self, ticket: Ticket) -> Option<String> {
        self.subscriptions.retain(|(t, _)| *t != ticket);
        let session = self
            .listeners
            .iter()
            .find(|(_, (t, _))| *t == ticket)
            .map(|(s, _)| s.clone())?;
        self.listeners.remove(&session);
        Some(session)
    }

    /// The tool list changed: the tagged notification for each listen stream that asked.
    pub(super) fn tools_list_changed(&mut self) -> Vec<(R, Delivery)> {
        let mut out = Vec::new();
        self.subscriptions.tools_list_changed(|(_, route), line| {
            out.push((route.clone(), Delivery::Line(line)));
            true
        });
        out
    }

    /// Task `task_id`'s status `line`: kept, and tagged for each stream that asked for it.
    pub(super) fn task_status(&mut self, task_id: &str, line: &[u8]) -> Vec<(R, Delivery)> {
        self.task_lines.keep(task_id, line);
        let mut out = Vec::new();
        self.subscriptions
            .task_status(task_id, line, |(_, route), line| {
                out.push((route.clone(), Delivery::Line(line)));
                true
            });
        out
    }

    /// Open listen streams (2026-07-28).
    #[cfg(test)]
    pub(super) fn listening(&self) -> usize {
        self.subscriptions.len()
    }
}
