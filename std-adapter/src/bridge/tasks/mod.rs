//! The tasks extension (`io.modelcontextprotocol/tasks`), served by the bridge on top of a
//! device that knows nothing of it: the device runs one call at a time and keeps no clock and
//! no table, so the bridge holds the tasks.
//!
//! - `table`: the task table without I/O (statuses, timestamps, TTL, the caps);
//! - `wire`: the extension's messages as bytes, and ISO 8601 time;
//! - `layer`: a [`Machine`](super::machine::Machine) wrapped around the router or the hub: it
//!   turns a marked `tools/call` into a task once the device has the call, answers
//!   `tasks/get`, `tasks/update` and `tasks/cancel`, and takes the device's answers,
//!   progress and `input_required` rounds for its tasks;
//! - `requests`: `tasks/get`, `tasks/update` and `tasks/cancel`, answered by the layer;
//! - `listen`: `notifications/tasks` on listen streams;
//! - `calls`: what the layer keeps per task besides the table (the call to the device, its
//!   rounds).

mod calls;
mod layer;
mod lines;
mod listen;
mod owners;
mod requests;
mod table;
#[cfg(test)]
mod tests;
mod wire;

use std::time::Duration;

pub use layer::TaskLayer;
pub use listen::StatusLines;
pub use table::{Status, TableFull, Task, TaskTable};
pub use wire::missing_capability;

/// The extension's identifier (the key in `capabilities.extensions`).
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Which tools the bridge turns into tasks (`--task-tools`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TaskTools {
    /// Only tools the firmware marks with `execution.taskSupport` `"optional"` or
    /// `"required"` in its `tools/list` (default).
    #[default]
    Marked,
    /// Every tool the firmware does not mark (as if marked `"optional"`), and the marked ones
    /// as marked.
    All,
    /// These tools as named here, whatever the firmware says; the others as the firmware
    /// marks them.
    Named(Vec<NamedTool>),
}

/// A tool named in `--task-tools`: `NAME` (a task when the client asks for one),
/// `NAME=required` (only as a task: `-32021` for a client without the extension), and either
/// with `ask-first` (`NAME=ask-first`, `NAME=required+ask-first`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedTool {
    /// The tool's name, as the client sees it (`DEVICE.tool` in a hub).
    pub name: String,
    /// `taskSupport: "required"` rather than `"optional"`.
    pub required: bool,
    /// The tool gathers its input before it becomes a task: a call without `inputResponses`
    /// is an ordinary call (its `input_required` goes back to the client synchronously), and
    /// only the retry carrying `inputResponses` becomes a task.
    pub ask_first: bool,
}

/// The task table's bounds and the tools that become tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskConfig {
    /// How long a task is kept after it was created (`ttlMs`; `--task-ttl-ms`, default 1 h).
    pub ttl: Duration,
    /// Most tasks held at once, finished ones included until their TTL (`--max-tasks`, default
    /// 64); a task beyond it is refused, no task is dropped for it.
    pub max_tasks: usize,
    /// Most bytes of one stored result or error (default 256 KiB); a larger one fails its task.
    pub max_result_bytes: usize,
    /// `pollIntervalMs` suggested to clients (default 500 ms).
    pub poll_interval: Duration,
    /// Tools turned into tasks.
    pub tools: TaskTools,
    /// Where `notifications/tasks` go (the HTTP front sets [`StatusLines::Front`]).
    pub status_lines: StatusLines,
}

impl Default for TaskConfig {
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(3600),
            max_tasks: 64,
            max_result_bytes: 256 * 1024,
            poll_interval: Duration::from_millis(500),
            tools: TaskTools::Marked,
            status_lines: StatusLines::Listens,
        }
    }
}
