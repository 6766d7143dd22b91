//! The task layer: a [`Machine`] around the router of one device or the hub of many, which
//! serves the tasks extension and passes everything else through untouched.
//!
//! From the host it takes `tasks/get`, `tasks/update` and `tasks/cancel` (answered here), and
//! a `tools/call` of a task tool from a client that declared the extension on that request:
//! the call goes to the device under an id of the layer's own, and the task is created, and
//! the client answered with `CreateTaskResult`, only when the machine hands the call to the
//! device link (a call the device never got is answered as it would have been). From the
//! machine it takes the answers and progress of its calls, into the table; the client sees
//! none of them. It adds the extension to `server/discover` results, and reads which tools the
//! firmware marks (`execution.taskSupport`) in the devices' catalogs the machine publishes.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Instant, SystemTime};

use serde_json::Value;

use super::calls::{carries_input, declares_extension, TaskCall, CALL_ID_PREFIX};
use super::lines::{
    canonical, declares_extension_raw, is_modern, look, quoted, raw_member, with_extension, with_id,
};
use super::listen::Listens;
use super::owners::Owners;
use super::table::TaskTable;
use super::wire::{self, Shape, WallClock};
use super::{TaskConfig, TaskTools, EXTENSION};
use crate::bridge::catalog::{TaskSupport, ToolsView};
use crate::bridge::machine::{Input, LinkAction, Machine, Output};
use crate::bridge::message::typed::{read, Cancelled, Progress};
use crate::bridge::message::{
    self, error_response, method, Class, Message, INTERNAL_ERROR, METHOD_NOT_FOUND,
};
use embedded_mcp::json::Kind;

/// Most `server/discover` answers awaited at once.
const MAX_WATCHED: usize = 256;

/// Most rounds of input one task may take (a device asking again and again is given up).
const MAX_ROUNDS: u32 = 16;

/// How a tool may run (its `execution.taskSupport`, or `--task-tools`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Support {
    Forbidden,
    Optional,
    Required,
}

/// A task call on its way to the device: the task is not created yet.
struct Creating {
    /// The client's `tools/call` id (exact text).
    host_raw: String,
    task_id: String,
    call: TaskCall,
    /// The client that asked for it, if its line named one.
    owner: Option<String>,
}

/// Makes task ids (unguessable in the bridge; counted in tests); `None` when no id can be
/// made (the OS gave no randomness), and the call is refused.
pub type TaskIds = Box<dyn FnMut() -> Option<String> + Send>;

/// The task layer around machine `M` (see the module documentation).
pub struct TaskLayer<M> {
    inner: M,
    pub(super) cfg: TaskConfig,
    pub(super) listens: Listens,
    pub(super) table: TaskTable,
    pub(super) shape: Shape,
    out: VecDeque<Output>,
    pub(super) now: Instant,
    new_task_id: TaskIds,
    next_call: u64,
    /// Calls not yet handed to the device, by the canonical key of their id.
    creating: HashMap<String, Creating>,
    /// Rounds of created tasks in flight: canonical key of the round's id → task id.
    pub(super) rounds: HashMap<String, String>,
    /// Each live task's call, by task id.
    pub(super) calls: HashMap<String, TaskCall>,
    /// The devices' catalogs as the machine last published them (the firmware's marks).
    tools: ToolsView,
    /// `server/discover` requests whose answers get the extension, by canonical id.
    watched: HashSet<String>,
    pub(super) owners: Owners,
}

impl<M: Machine> TaskLayer<M> {
    /// Wraps `inner`; `now` was `wall`; task ids come from `new_task_id`.
    pub fn new(
        inner: M,
        cfg: TaskConfig,
        now: Instant,
        wall: SystemTime,
        new_task_id: TaskIds,
    ) -> Self {
        let shape = Shape {
            clock: WallClock::new(now, wall),
            ttl: cfg.ttl,
            poll_interval: cfg.poll_interval,
        };
        let mut layer = Self {
            inner,
            table: TaskTable::new(cfg.ttl, cfg.max_tasks, cfg.max_result_bytes),
            cfg,
            listens: Listens::default(),
            shape,
            out: VecDeque::new(),
            now,
            new_task_id,
            next_call: 1,
            creating: HashMap::new(),
            rounds: HashMap::new(),
            calls: HashMap::new(),
            tools: ToolsView::default(),
            watched: HashSet::new(),
            owners: Owners::default(),
        };
        layer.pump();
        layer
    }

    /// The machine inside.
    pub fn inner(&self) -> &M {
        &self.inner
    }

    pub(super) fn emit(&mut self, line: Vec<u8>) {
        self.out.push_back(Output::Host(line));
    }

    pub(super) fn pass_in(&mut self, line: Vec<u8>) {
        self.pass_read(line, None);
    }

    /// Hands a host line down with what the front read of it (so the machine does not read it
    /// again).
    fn pass_read(&mut self, line: Vec<u8>, msg: Option<Message>) {
        let input = match msg {
            Some(msg) => Input::ClientLine {
                line,
                msg: Some(msg),
                client: None,
                asker: None,
            },
            None => Input::HostLine(line),
        };
        self.inner.handle(input, self.now);
        self.pump();
    }

    pub(super) fn new_call_id(&mut self) -> String {
        let id = format!("{CALL_ID_PREFIX}{}", self.next_call);
        self.next_call += 1;
        id
    }

    /// Takes the machine's outputs, keeping what concerns the layer.
    fn pump(&mut self) {
        while let Some(output) = self.inner.poll_output() {
            match output {
                Output::Host(line) => {
                    if let Some(line) = self.take_out(line) {
                        self.emit(line);
                    }
                }
                Output::HostFrom { device, line } => {
                    if let Some(line) = self.take_out(line) {
                        self.out.push_back(Output::HostFrom { device, line });
                    }
                }
                Output::Tools(view) => {
                    self.tools = view.clone();
                    self.out.push_back(Output::Tools(view));
                }
                question @ Output::Question { .. } => self.out.push_back(question),
                Output::Link { device, action } => {
                    let written = match &action {
                        LinkAction::Write { line, .. } if !self.creating.is_empty() => {
                            self.written_calls(line)
                        }
                        _ => Vec::new(),
                    };
                    self.out.push_back(Output::Link { device, action });
                    for key in written {
                        self.create(&key);
                    }
                }
            }
        }
    }

    /// Keys of the calls on their way that a line written to a device carries, as its id or
    /// as its progress token (the router writes the call as it came; the hub under its own id,
    /// with the same token).
    fn written_calls(&self, line: &[u8]) -> Vec<String> {
        let Some(doc) = look(line) else {
            return Vec::new();
        };
        let token = doc
            .get("params")
            .and_then(|p| p.get(message::meta::KEY))
            .and_then(|m| m.get(message::meta::PROGRESS_TOKEN));
        let mut keys: Vec<String> = [doc.get("id"), token]
            .into_iter()
            .flatten()
            .map(|v| canonical(v.raw()))
            .filter(|key| self.creating.contains_key(key))
            .collect();
        keys.dedup();
        keys
    }

    /// The device has call `key`: its task exists from now on.
    fn create(&mut self, key: &str) {
        let Some(c) = self.creating.remove(key) else {
            return;
        };
        let task = self
            .table
            .create(c.task_id.clone(), c.owner, self.now)
            .clone();
        let mut call = c.call;
        call.in_flight = Some(key.to_owned());
        self.calls.insert(c.task_id.clone(), call);
        self.rounds.insert(key.to_owned(), c.task_id);
        let line = self.shape.created(&c.host_raw, &task);
        self.emit(line);
    }

    // ---- from the host ----

    fn on_host_line(&mut self, line: Vec<u8>, parsed: Option<Message>) {
        if !self.may_concern_tasks(&line) {
            return self.pass_read(line, parsed);
        }
        let Some(msg) = parsed.or_else(|| message::parse(&line)) else {
            return self.pass_in(line);
        };
        let params = msg.value.get("params");
        // A line that goes down as it came goes with what was read of it.
        match &msg.class {
            Class::Request { id, method: name } => match name.as_str() {
                "tasks/get" | "tasks/update" | "tasks/cancel" => {
                    self.on_task_request(id, name, params);
                }
                other if other.starts_with("tasks/") => {
                    let text = format!("Method not found: {other} (the tasks extension has tasks/get, tasks/update and tasks/cancel)");
                    self.emit(error_response(Some(&id.raw), METHOD_NOT_FOUND, &text));
                }
                method::TOOLS_CALL => self.on_call(line, msg),
                method::SUBSCRIPTIONS_LISTEN => self.on_listen(line, id, params),
                method::DISCOVER => {
                    if self.watched.len() >= MAX_WATCHED {
                        // Answers that never came (requests cancelled): forget them.
                        self.watched.clear();
                    }
                    self.watched.insert(id.key.clone());
                    self.pass_read(line, Some(msg));
                }
                _ => self.pass_read(line, Some(msg)),
            },
            Class::Notification { method: name } if name == method::CANCELLED => {
                self.on_host_cancel(line, params);
            }
            _ => self.pass_read(line, Some(msg)),
        }
    }

    /// A cheap look at a host line (its method and the members that matter, read in place):
    /// false when the layer surely has nothing to do with it.
    fn may_concern_tasks(&self, line: &[u8]) -> bool {
        // Not JSON, or a batch (legacy revisions only): nothing for the layer.
        let Some(doc) = look(line).filter(|d| d.kind() == Kind::Object) else {
            return false;
        };
        let Some(name) = doc.get("method").and_then(|m| m.as_str()) else {
            return false;
        };
        let name: String = name.chars().collect();
        let params = doc.get("params");
        match name.as_str() {
            // A call matters when it declares the extension, or may be refused for not doing so.
            method::TOOLS_CALL => self.any_required() || declares_extension_raw(params),
            method::DISCOVER => true,
            method::SUBSCRIPTIONS_LISTEN => params
                .and_then(|p| p.get("notifications"))
                .and_then(|n| n.get("taskIds"))
                .is_some(),
            method::CANCELLED => !self.creating.is_empty() || self.listens.any(),
            other => other.starts_with("tasks/"),
        }
    }

    /// Some tool runs only as a task (so a call without the extension may be refused).
    fn any_required(&self) -> bool {
        let named = match &self.cfg.tools {
            TaskTools::Named(named) => named.iter().any(|n| n.required),
            _ => false,
        };
        named || self.tools.any_required()
    }

    /// How `tool` may run: as `--task-tools` names it, else as the firmware marks it, else
    /// (`--task-tools all`) optional, else never as a task.
    fn support(&self, tool: &str) -> Support {
        if let TaskTools::Named(named) = &self.cfg.tools {
            if let Some(n) = named.iter().find(|n| n.name == tool) {
                return if n.required {
                    Support::Required
                } else {
                    Support::Optional
                };
            }
        }
        match self.tools.task_support(tool) {
            Some(TaskSupport::Optional) => Support::Optional,
            Some(TaskSupport::Required) => Support::Required,
            Some(TaskSupport::Forbidden) => Support::Forbidden,
            None if self.cfg.tools == TaskTools::All => Support::Optional,
            None => Support::Forbidden,
        }
    }

    /// True when `--task-tools` or the firmware (`_meta`
    /// [`ASK_FIRST_META`](crate::bridge::catalog::ASK_FIRST_META)) marks `tool`
    /// `ask-first`.
    fn asks_first(&self, tool: &str) -> bool {
        let named = match &self.cfg.tools {
            TaskTools::Named(named) => named.iter().any(|n| n.name == tool && n.ask_first),
            _ => false,
        };
        named || self.tools.asks_first(tool)
    }

    /// A `tools/call` (`msg`, what was read of `line`): made a task, refused, or passed on as an
    /// ordinary call with what was read of it.
    fn on_call(&mut self, line: Vec<u8>, msg: Message) {
        let Class::Request { id, .. } = &msg.class else {
            return self.pass_read(line, Some(msg));
        };
        let params = msg.value.get("params");
        let tool = params
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        // Tasks are of 2026-07-28: an older host's call is an ordinary call, whatever the tool.
        if !is_modern(params) {
            return self.pass_read(line, Some(msg));
        }
        let declared = declares_extension(params);
        match (self.support(&tool), declared) {
            (Support::Forbidden, _) | (Support::Optional, false) => {
                return self.pass_read(line, Some(msg))
            }
            (Support::Required, false) => {
                let what = format!("tool {tool:?} runs only as a task ({EXTENSION})");
                return self.emit(wire::missing_capability(&id.raw, &what));
            }
            (_, true) => {}
        }
        if self.asks_first(&tool) && !carries_input(params) {
            // The first round of a tool that asks before it becomes a task: an ordinary call.
            return self.pass_read(line, Some(msg));
        }
        // Ids from the OS or nothing: a guessable id would hand the task to anyone.
        let Some(task_id) = (self.new_task_id)() else {
            let text =
                "Task refused: the operating system gave no randomness for an unguessable task id";
            return self.emit(error_response(Some(&id.raw), INTERNAL_ERROR, text));
        };
        match self.table.reserve() {
            Err(full) => {
                let text = format!("Task refused: {}", full.0);
                return self.emit(error_response(Some(&id.raw), INTERNAL_ERROR, &text));
            }
            Ok(Some(evicted)) => self.forget(&evicted),
            Ok(None) => {}
        }
        let call = TaskCall::new(params);
        let call_id = self.new_call_id();
        let round = call.line(&call_id, params);
        let creating = Creating {
            host_raw: id.raw.clone(),
            task_id,
            call,
            owner: self.owners.client(),
        };
        self.creating.insert(quoted(&call_id), creating);
        self.pass_in(round);
    }

    /// A client cancels a `tools/call`: one of the layer's calls not yet handed to the device
    /// is cancelled under the layer's id; anything else passes.
    fn on_host_cancel(&mut self, line: Vec<u8>, params: Option<&Value>) {
        let key = read::<Cancelled>(params).and_then(|c| serde_json::to_string(&c.request_id).ok());
        if let Some(key) = &key {
            self.listens.forget(key);
        }
        let found = key.and_then(|key| {
            self.creating
                .iter()
                .find(|(_, c)| canonical(&c.host_raw) == key)
                .map(|(call_key, _)| call_key.clone())
        });
        let Some(call_key) = found else {
            return self.pass_in(line);
        };
        self.creating.remove(&call_key);
        self.table.release();
        self.pass_in(message::cancelled(&call_key, "cancelled by the client"));
    }

    // ---- from the machine ----

    /// A line the machine writes to the host: the layer's own are kept, watched answers
    /// edited, the rest passes.
    fn take_out(&mut self, line: Vec<u8>) -> Option<Vec<u8>> {
        let ours = names_a_task_call(&line);
        if !ours && self.watched.is_empty() && !self.listens.any() {
            return Some(line);
        }
        let Some(msg) = message::parse(&line) else {
            return Some(line);
        };
        match msg.class {
            Class::Response { id } => {
                if let Some(c) = self.creating.remove(&id.key) {
                    // The device never got the call: the client gets the answer itself.
                    self.table.release();
                    return Some(with_id(&line, &id.raw, &c.host_raw));
                }
                if self.listens.refused(&id.key) {
                    return Some(line);
                }
                if let Some(task_id) = self.rounds.remove(&id.key) {
                    self.on_round_answer(&task_id, &id.key, &line, &msg.value);
                    return None;
                }
                if self.watched.remove(&id.key) {
                    return Some(with_extension(line, &msg.value));
                }
                (!id.key.starts_with(&format!("\"{CALL_ID_PREFIX}"))).then_some(line)
            }
            Class::Notification { method: name } if ours && name == method::PROGRESS => {
                let progress = read::<Progress>(msg.value.get("params"));
                let token = progress
                    .as_ref()
                    .and_then(|p| serde_json::to_string(&p.progress_token).ok());
                if let (Some(token), Some(p)) = (token, progress) {
                    if let Some(task_id) = self.rounds.get(&token).cloned() {
                        let text = p.message.clone().unwrap_or_else(|| match p.total {
                            Some(total) => format!("{} of {total}", p.progress),
                            None => format!("{}", p.progress),
                        });
                        self.table.progress(&task_id, text, self.now);
                    }
                    if self.rounds.contains_key(&token) || self.creating.contains_key(&token) {
                        return None;
                    }
                }
                Some(line)
            }
            Class::Notification { method: name } if name == method::SUBSCRIPTIONS_ACKNOWLEDGED => {
                self.on_acknowledged(line, &msg.value);
                None
            }
            Class::Notification { method: name } if name == method::CANCELLED => {
                // The machine ends a listen stream (it stops).
                let key = read::<Cancelled>(msg.value.get("params"))
                    .and_then(|c| serde_json::to_string(&c.request_id).ok());
                if let Some(key) = key {
                    self.listens.forget(&key);
                }
                Some(line)
            }
            _ => Some(line),
        }
    }

    /// The device answered round `key` of task `task_id`.
    fn on_round_answer(&mut self, task_id: &str, key: &str, line: &[u8], value: &Value) {
        let now = self.now;
        let Some(call) = self.calls.get_mut(task_id) else {
            return;
        };
        if call.in_flight.as_deref() != Some(key) {
            return; // a round the client cancelled
        }
        call.in_flight = None;
        if let Some(error) = value.get("error") {
            let text = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("the device answered with an error")
                .to_owned();
            let raw = raw_member(line, "error").unwrap_or_else(|| error.to_string().into_bytes());
            self.table.fail(task_id, raw, text, now);
            return;
        }
        let result = value.get("result");
        let asks = result
            .and_then(|r| r.get("resultType"))
            .and_then(Value::as_str)
            == Some("input_required");
        if asks {
            let asked = result
                .and_then(|r| r.get("inputRequests"))
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let state = result.and_then(|r| r.get("requestState")).cloned();
            if call.round >= MAX_ROUNDS {
                let text = format!(
                    "The device asked for input more than {MAX_ROUNDS} times; the bridge gave the call up"
                );
                let error = error_response(None, INTERNAL_ERROR, &text);
                let raw = raw_member(&error, "error").unwrap_or_default();
                self.table.fail(task_id, raw, text, now);
                return;
            }
            let shown = call.ask(&asked, state);
            if shown.is_empty() {
                // `requestState` alone: the device wants the call again at once.
                self.retry(task_id);
                return;
            }
            self.table.ask(task_id, shown, now);
            return;
        }
        let raw = raw_member(line, "result").unwrap_or_else(|| b"{}".to_vec());
        self.table.complete(task_id, raw, now);
    }

    fn expire(&mut self) {
        for task_id in self.table.expire(self.now) {
            self.forget(&task_id);
        }
    }

    /// Forgets what the layer kept of a task the table no longer holds (a late answer of its
    /// call is dropped).
    fn forget(&mut self, task_id: &str) {
        self.calls.remove(task_id);
        self.rounds.retain(|_, t| t != task_id);
    }
}

impl<M: Machine> Machine for TaskLayer<M> {
    fn handle(&mut self, input: Input, now: Instant) {
        self.now = now;
        match input {
            Input::HostLine(line) => self.on_host_line(line, None),
            Input::ClientLine {
                line, msg, client, ..
            } => {
                self.owners.reading(client);
                self.on_host_line(line, msg);
                self.owners.reading(None);
            }
            other => {
                self.inner.handle(other, now);
                self.pump();
            }
        }
        self.announce();
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.now = now;
        if self.inner.poll_timeout().is_some_and(|at| at <= now) {
            self.inner.handle_timeout(now);
            self.pump();
        }
        self.expire();
        self.announce();
    }

    fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        [self.inner.poll_timeout(), self.table.next_expiry()]
            .into_iter()
            .flatten()
            .min()
    }

    fn is_finished(&self) -> bool {
        self.inner.is_finished() && self.creating.is_empty()
    }

    fn stop(&mut self) {
        self.inner.stop();
        self.pump();
    }
}

/// True when `line` names one of the layer's calls (an id of its own, `embedded-mcp-task-N`) as
/// its id, its progress token or the request it cancels, read in place.
fn names_a_task_call(line: &[u8]) -> bool {
    let Some(doc) = look(line) else {
        return false;
    };
    let params = doc.get("params");
    let named = [
        doc.get("id"),
        params.and_then(|p| p.get("progressToken")),
        params.and_then(|p| p.get("requestId")),
    ];
    named.into_iter().flatten().any(|v| {
        v.as_str()
            .is_some_and(|s| s.chars().collect::<String>().starts_with(CALL_ID_PREFIX))
    })
}
