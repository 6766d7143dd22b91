//! The latest `notifications/tasks` of each task the task layer told the front about (it
//! sends every status, untagged, to the HTTP front), so that a listen stream asking for a task
//! learns whether the task exists and starts with its current state. Bounded: the oldest task
//! is forgotten beyond [`MAX_TASK_LINES`].

use std::collections::{HashMap, VecDeque};

/// Most tasks whose latest status the front keeps.
pub(crate) const MAX_TASK_LINES: usize = 1024;

/// The latest status line of each task, oldest task first out.
#[derive(Debug, Default)]
pub(crate) struct TaskLines {
    latest: HashMap<String, Vec<u8>>,
    order: VecDeque<String>,
}

impl TaskLines {
    /// Keeps `line` as the latest of task `task_id`.
    pub(crate) fn keep(&mut self, task_id: &str, line: &[u8]) {
        if let Some(old) = self.latest.get_mut(task_id) {
            *old = line.to_vec();
            return;
        }
        if self.order.len() >= MAX_TASK_LINES {
            if let Some(oldest) = self.order.pop_front() {
                self.latest.remove(&oldest);
            }
        }
        self.order.push_back(task_id.to_owned());
        self.latest.insert(task_id.to_owned(), line.to_vec());
    }

    /// The latest status line of task `task_id`, if the front knows the task.
    pub(crate) fn latest(&self, task_id: &str) -> Option<&[u8]> {
        self.latest.get(task_id).map(Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_latest_line_and_forgets_the_oldest_task_beyond_the_bound() {
        let mut lines = TaskLines::default();
        lines.keep("a", b"1");
        lines.keep("a", b"2");
        assert_eq!(lines.latest("a"), Some(&b"2"[..]));
        for n in 0..MAX_TASK_LINES {
            lines.keep(&n.to_string(), b"x");
        }
        assert_eq!(lines.latest("a"), None, "a was the oldest");
        assert_eq!(lines.latest("0"), Some(&b"x"[..]));
        assert_eq!(lines.latest.len(), MAX_TASK_LINES);
    }
}
