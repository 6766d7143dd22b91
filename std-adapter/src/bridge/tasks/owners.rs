//! Which client made each task: a task is bound to the client that made it (over HTTP, its
//! session, or the bearer token when one is configured; the clients layer names it on each of
//! its lines, [`crate::bridge::machine::Input::ClientLine`]). Any other client asking for it
//! gets the "unknown task" error. A task made by a line that names no client (stdio, whose one
//! host is the only client) is anyone's who knows its id.

use std::collections::HashMap;

/// The owners (see the module documentation).
#[derive(Debug, Default)]
pub(super) struct Owners {
    /// The client whose line the layer is reading, if the line names one.
    reading: Option<String>,
    by_task: HashMap<String, String>,
}

impl Owners {
    /// The layer reads a line of `client` (`None`: a line naming no client).
    pub(super) fn reading(&mut self, client: Option<String>) {
        self.reading = client;
    }

    /// The client whose line is being read.
    pub(super) fn client(&self) -> Option<String> {
        self.reading.clone()
    }

    /// Task `task_id` was made for `client`.
    pub(super) fn made(&mut self, task_id: &str, client: Option<String>) {
        if let Some(client) = client {
            self.by_task.insert(task_id.to_owned(), client);
        }
    }

    /// True when the client whose line is being read may see task `task_id`.
    pub(super) fn may_see(&self, task_id: &str) -> bool {
        self.by_task
            .get(task_id)
            .is_none_or(|owner| self.reading.as_ref() == Some(owner))
    }

    /// Task `task_id` is gone.
    pub(super) fn forget(&mut self, task_id: &str) {
        self.by_task.remove(task_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_is_its_makers_and_one_made_by_no_client_is_anyones() {
        let mut o = Owners::default();
        o.reading(Some("A".into()));
        o.made("t1", o.client());
        o.reading(None);
        o.made("t0", o.client());
        assert!(!o.may_see("t1"), "a line naming no client");
        assert!(o.may_see("t0"));
        o.reading(Some("B".into()));
        assert!(!o.may_see("t1"));
        assert!(o.may_see("t0"));
        o.reading(Some("A".into()));
        assert!(o.may_see("t1"));
        o.forget("t1");
        o.reading(Some("B".into()));
        assert!(o.may_see("t1"), "forgotten: unknown to the table anyway");
    }
}
