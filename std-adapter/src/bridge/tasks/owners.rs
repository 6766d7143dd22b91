//! Which client a line the layer reads comes from: a task is bound to the client that made it
//! (over HTTP, its session, or the bearer token when one is configured; the clients layer
//! names it on each of its lines, [`crate::bridge::machine::Input::ClientLine`]), and the table
//! keeps it as the task's owner ([`super::table::Task::belongs_to`]). Any other client asking
//! for it gets the "unknown task" error. A task made by a line that names no client (stdio,
//! whose one host is the only client) is anyone's who knows its id.

/// The client of the line being read.
#[derive(Debug, Default)]
pub(super) struct Owners {
    reading: Option<String>,
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

    /// The same, borrowed.
    pub(super) fn client_ref(&self) -> Option<&str> {
        self.reading.as_deref()
    }
}
