//! The task table, without I/O: each task's status, its `statusMessage`, its timestamps, and
//! what it ended with; the TTL and the two caps (tasks held, bytes per stored result).
//!
//! A task moves `working` → `input_required` → `working` … and ends `completed`, `failed` or
//! `cancelled`; an ended task never changes again (a late answer is ignored). It is purged
//! once its TTL, counted from its creation, has passed, unless it is still `working`: the
//! device has its call, and a running task is never dropped (the bridge's call limits end
//! it).
//!
//! Places: room is reserved before the device gets the call, so a task the device started
//! always has its place. When every place is taken, a finished task gives its place up to
//! the newcomer (its result stays readable until then): first one its client cancelled
//! (`tasks/cancel` frees a place, also of a task that had finished), then the one that
//! finished first. Only when every task is still running or waiting for input is the newcomer
//! refused ([`TableFull`]); no running task is ever dropped for it.
//!
//! Each task may carry an owner key (the client that made it; `None`: any client), for the
//! front to tell one client's tasks from another's ([`Task::belongs_to`]).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::bridge::message::push_json_string;

/// A task's status, as the extension names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The device is on it.
    Working,
    /// The device asked for input (`inputRequests`), answered with `tasks/update`.
    InputRequired,
    /// The call ended with a result (a tool error, `isError: true`, included).
    Completed,
    /// The call ended with a JSON-RPC error.
    Failed,
    /// The client cancelled it.
    Cancelled,
}

impl Status {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// `completed`, `failed` or `cancelled`.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

/// One task.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// Its id (unguessable: the client's only handle on it).
    pub id: String,
    /// Where it is.
    pub status: Status,
    /// Said about its state (the device's last progress message, why it failed).
    pub status_message: Option<String>,
    /// `createdAt`.
    pub created: Instant,
    /// `lastUpdatedAt`.
    pub updated: Instant,
    /// The exact JSON of the result (`completed`) or of the error (`failed`).
    pub outcome: Option<Vec<u8>>,
    /// The outstanding input requests (`input_required`), by the keys the client sees.
    pub input_requests: Map<String, Value>,
    /// The client that made it (a session, a bearer token), if the front binds tasks to one.
    pub owner: Option<String>,
    /// Its client cancelled it: the first to give its place up.
    pub released: bool,
}

impl Task {
    /// True when the client `owner` may see the task: an unowned task belongs to everyone.
    pub fn belongs_to(&self, owner: Option<&str>) -> bool {
        self.owner.is_none() || self.owner.as_deref() == owner
    }
}

/// The table is full: the task was not created (the message says why, for the client).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableFull(pub String);

/// Every task the bridge holds (see the module documentation).
#[derive(Debug)]
pub struct TaskTable {
    tasks: HashMap<String, Task>,
    /// Places promised to calls on their way to the device.
    reserved: usize,
    ttl: Duration,
    max_tasks: usize,
    max_result_bytes: usize,
}

impl TaskTable {
    /// An empty table: tasks live `ttl` from creation; at most `max_tasks` of them, and
    /// results or errors of at most `max_result_bytes`.
    pub fn new(ttl: Duration, max_tasks: usize, max_result_bytes: usize) -> Self {
        Self {
            tasks: HashMap::new(),
            reserved: 0,
            ttl,
            max_tasks,
            max_result_bytes,
        }
    }

    /// The TTL of every task.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// Tasks held.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// No task is held.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Reserves the place of a task about to be created. When every place is taken, a
    /// finished task gives its place up (see the module documentation) and its id is
    /// returned, for the caller to forget what it kept of it; refused when every task holding
    /// a place is still running or waiting for input (or the places are reserved).
    pub fn reserve(&mut self) -> Result<Option<String>, TableFull> {
        let mut evicted = None;
        if self.tasks.len() + self.reserved >= self.max_tasks {
            let Some(id) = self.first_to_go() else {
                return Err(TableFull(format!(
                    "the bridge holds {} tasks, none of them finished, its limit (--max-tasks); try again when one has finished",
                    self.max_tasks
                )));
            };
            self.tasks.remove(&id);
            evicted = Some(id);
        }
        self.reserved += 1;
        Ok(evicted)
    }

    /// The finished task that gives its place up first: one its client cancelled, else the
    /// one that finished first (ties: by id, so the choice does not depend on hashing).
    fn first_to_go(&self) -> Option<String> {
        self.tasks
            .values()
            .filter(|t| t.status.is_terminal())
            .min_by(|a, b| (!a.released, a.updated, &a.id).cmp(&(!b.released, b.updated, &b.id)))
            .map(|t| t.id.clone())
    }

    /// Gives back a reservation whose task was never created.
    pub fn release(&mut self) {
        self.reserved = self.reserved.saturating_sub(1);
    }

    /// Creates task `id` of client `owner`, `working`, in the place [`TaskTable::reserve`]
    /// kept for it.
    pub fn create(&mut self, id: String, owner: Option<String>, now: Instant) -> &Task {
        self.release();
        let task = Task {
            id: id.clone(),
            status: Status::Working,
            status_message: None,
            created: now,
            updated: now,
            outcome: None,
            input_requests: Map::new(),
            owner,
            released: false,
        };
        self.tasks.entry(id).or_insert(task)
    }

    /// Task `id`, unless there is none or its TTL has passed (and it is not running).
    pub fn get(&self, id: &str, now: Instant) -> Option<&Task> {
        self.tasks.get(id).filter(|t| !self.is_expired(t, now))
    }

    fn is_expired(&self, task: &Task, now: Instant) -> bool {
        task.status != Status::Working && task.created + self.ttl <= now
    }

    /// A task that may still change.
    fn live(&mut self, id: &str) -> Option<&mut Task> {
        self.tasks.get_mut(id).filter(|t| !t.status.is_terminal())
    }

    /// The device reported progress on a working task: `message` becomes its `statusMessage`.
    pub fn progress(&mut self, id: &str, message: String, now: Instant) -> bool {
        match self.live(id) {
            Some(task) if task.status == Status::Working => {
                task.status_message = Some(message);
                task.updated = now;
                true
            }
            _ => false,
        }
    }

    /// The call ended with `result` (exact JSON): `completed`, or `failed` when the result is
    /// larger than the cap. Returns the new status (`None`: no such live task).
    pub fn complete(&mut self, id: &str, result: Vec<u8>, now: Instant) -> Option<Status> {
        let cap = self.max_result_bytes;
        let task = self.live(id)?;
        task.updated = now;
        task.input_requests.clear();
        if result.len() > cap {
            let text = format!(
                "The result of {} bytes is larger than the bridge keeps for a task ({cap} bytes)",
                result.len()
            );
            task.outcome = Some(error_object(crate::bridge::message::INTERNAL_ERROR, &text));
            task.status_message = Some(text);
            task.status = Status::Failed;
        } else {
            task.outcome = Some(result);
            task.status_message = None;
            task.status = Status::Completed;
        }
        Some(task.status)
    }

    /// The call ended with a JSON-RPC `error` (exact JSON, capped like results); `message`
    /// becomes the `statusMessage`.
    pub fn fail(&mut self, id: &str, error: Vec<u8>, message: String, now: Instant) -> bool {
        let cap = self.max_result_bytes;
        let Some(task) = self.live(id) else {
            return false;
        };
        task.outcome = Some(if error.len() > cap {
            error_object(crate::bridge::message::INTERNAL_ERROR, &message)
        } else {
            error
        });
        task.status_message = Some(message);
        task.input_requests.clear();
        task.status = Status::Failed;
        task.updated = now;
        true
    }

    /// The device asked for input: the task waits for `requests` (by the keys the client
    /// sees).
    pub fn ask(&mut self, id: &str, requests: Map<String, Value>, now: Instant) -> bool {
        let Some(task) = self.live(id) else {
            return false;
        };
        task.input_requests = requests;
        task.status = Status::InputRequired;
        task.status_message = Some("The device asks for input".into());
        task.updated = now;
        true
    }

    /// The client answered `key`: it is no longer outstanding. Returns how many still are
    /// (`None`: the task does not wait for input).
    pub fn answered(&mut self, id: &str, key: &str, now: Instant) -> Option<usize> {
        let task = self.live(id)?;
        if task.status != Status::InputRequired {
            return None;
        }
        if task.input_requests.remove(key).is_some() {
            task.updated = now;
        }
        Some(task.input_requests.len())
    }

    /// Every answer is in: the device has the call again.
    pub fn resume(&mut self, id: &str, now: Instant) -> bool {
        let Some(task) = self.live(id) else {
            return false;
        };
        task.status = Status::Working;
        task.status_message = None;
        task.input_requests.clear();
        task.updated = now;
        true
    }

    /// The client cancelled task `id`. Returns the status it had (`None`: no such task);
    /// a finished task keeps its status. Either way the task is the first to give its place
    /// up when the table is full.
    pub fn cancel(&mut self, id: &str, now: Instant) -> Option<Status> {
        let expired = self.tasks.get(id).is_some_and(|t| self.is_expired(t, now));
        let task = self.tasks.get_mut(id).filter(|_| !expired)?;
        task.released = true;
        let was = task.status;
        if !was.is_terminal() {
            task.status = Status::Cancelled;
            task.status_message = Some("Cancelled by the client".into());
            task.input_requests.clear();
            task.updated = now;
        }
        Some(was)
    }

    /// The ids of the tasks held (expired ones not yet purged included).
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.tasks.keys().map(String::as_str)
    }

    /// Purges the tasks whose TTL has passed (running ones excepted); returns their ids.
    pub fn expire(&mut self, now: Instant) -> Vec<String> {
        let gone: Vec<String> = self
            .tasks
            .values()
            .filter(|t| self.is_expired(t, now))
            .map(|t| t.id.clone())
            .collect();
        for id in &gone {
            self.tasks.remove(id);
        }
        gone
    }

    /// When the next task expires, if any will (a running task waits for its end).
    pub fn next_expiry(&self) -> Option<Instant> {
        self.tasks
            .values()
            .filter(|t| t.status != Status::Working)
            .map(|t| t.created + self.ttl)
            .min()
    }
}

/// `{"code":<code>,"message":<message>}`.
fn error_object(code: i64, message: &str) -> Vec<u8> {
    let mut out = b"{\"code\":".to_vec();
    out.extend_from_slice(code.to_string().as_bytes());
    out.extend_from_slice(b",\"message\":");
    push_json_string(&mut out, message);
    out.push(b'}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TTL: Duration = Duration::from_secs(60);

    fn table(max: usize) -> TaskTable {
        TaskTable::new(TTL, max, 64)
    }

    fn ms(t0: Instant, n: u64) -> Instant {
        t0 + Duration::from_millis(n)
    }

    fn create(table: &mut TaskTable, id: &str, now: Instant) {
        assert_eq!(table.reserve(), Ok(None));
        table.create(id.into(), None, now);
    }

    #[test]
    fn a_task_is_created_working_and_polled() {
        let t0 = Instant::now();
        let mut t = table(4);
        create(&mut t, "a", t0);
        let task = t.get("a", ms(t0, 10)).unwrap();
        assert_eq!(task.status, Status::Working);
        assert_eq!((task.created, task.updated), (t0, t0));
        assert!(t.progress("a", "3 of 10".into(), ms(t0, 20)));
        let task = t.get("a", ms(t0, 30)).unwrap();
        assert_eq!(task.status_message.as_deref(), Some("3 of 10"));
        assert_eq!(task.updated, ms(t0, 20));
        assert!(t.get("b", t0).is_none());
    }

    #[test]
    fn complete_keeps_the_exact_result_and_nothing_changes_it_after() {
        let t0 = Instant::now();
        let mut t = table(4);
        create(&mut t, "a", t0);
        let result = br#"{"content":[],"isError":true}"#.to_vec();
        assert_eq!(
            t.complete("a", result.clone(), ms(t0, 5)),
            Some(Status::Completed)
        );
        assert_eq!(t.get("a", ms(t0, 6)).unwrap().outcome, Some(result));
        assert_eq!(t.complete("a", b"{}".to_vec(), ms(t0, 7)), None);
        assert!(!t.fail("a", b"{}".to_vec(), "late".into(), ms(t0, 7)));
        assert!(!t.progress("a", "late".into(), ms(t0, 7)));
        assert_eq!(t.cancel("a", ms(t0, 8)), Some(Status::Completed));
        assert_eq!(t.get("a", ms(t0, 9)).unwrap().status, Status::Completed);
        assert_eq!(t.get("a", ms(t0, 9)).unwrap().updated, ms(t0, 5));
    }

    #[test]
    fn fail_keeps_the_error_and_its_message() {
        let t0 = Instant::now();
        let mut t = table(4);
        create(&mut t, "a", t0);
        let error = br#"{"code":-32001,"message":"late"}"#.to_vec();
        assert!(t.fail("a", error.clone(), "late".into(), ms(t0, 1)));
        let task = t.get("a", ms(t0, 2)).unwrap();
        assert_eq!(task.status, Status::Failed);
        assert_eq!(task.outcome, Some(error));
        assert_eq!(task.status_message.as_deref(), Some("late"));
    }

    #[test]
    fn input_required_waits_for_every_key_then_resumes() {
        let t0 = Instant::now();
        let mut t = table(4);
        create(&mut t, "a", t0);
        let mut asked = Map::new();
        asked.insert("x".into(), Value::from(1));
        asked.insert("y".into(), Value::from(2));
        assert!(t.ask("a", asked, ms(t0, 1)));
        assert_eq!(t.get("a", t0).unwrap().status, Status::InputRequired);
        assert_eq!(t.answered("a", "nope", ms(t0, 2)), Some(2));
        assert_eq!(t.answered("a", "x", ms(t0, 3)), Some(1));
        let keys: Vec<_> = t.get("a", t0).unwrap().input_requests.keys().collect();
        assert_eq!(keys, ["y"]);
        assert_eq!(t.answered("a", "y", ms(t0, 4)), Some(0));
        assert!(t.resume("a", ms(t0, 5)));
        assert_eq!(t.get("a", t0).unwrap().status, Status::Working);
        assert_eq!(
            t.answered("a", "y", ms(t0, 6)),
            None,
            "working: no input asked"
        );
    }

    #[test]
    fn cancel_ends_a_live_task_once() {
        let t0 = Instant::now();
        let mut t = table(4);
        create(&mut t, "a", t0);
        assert_eq!(t.cancel("a", ms(t0, 1)), Some(Status::Working));
        assert_eq!(t.get("a", t0).unwrap().status, Status::Cancelled);
        assert_eq!(t.cancel("a", ms(t0, 2)), Some(Status::Cancelled));
        assert_eq!(t.complete("a", b"{}".to_vec(), ms(t0, 3)), None);
        assert_eq!(t.cancel("nope", t0), None);
    }

    #[test]
    fn a_finished_task_expires_at_its_ttl_and_a_running_one_does_not() {
        let t0 = Instant::now();
        let mut t = table(4);
        create(&mut t, "done", t0);
        create(&mut t, "running", t0);
        t.complete("done", b"{}".to_vec(), ms(t0, 10));
        assert_eq!(t.next_expiry(), Some(t0 + TTL));
        let just_before = t0 + TTL - Duration::from_millis(1);
        assert!(t.get("done", just_before).is_some());
        assert!(t.expire(just_before).is_empty());
        assert!(
            t.get("done", t0 + TTL).is_none(),
            "expired, even before the purge"
        );
        assert_eq!(t.cancel("done", t0 + TTL), None);
        assert_eq!(t.expire(t0 + TTL), ["done"]);
        assert!(t.get("running", t0 + TTL * 2).is_some());
        assert_eq!(t.next_expiry(), None);
        t.complete("running", b"{}".to_vec(), t0 + TTL * 2);
        assert_eq!(t.expire(t0 + TTL * 2), ["running"]);
        assert!(t.is_empty());
    }

    #[test]
    fn a_full_table_of_running_tasks_refuses_and_drops_nothing() {
        let t0 = Instant::now();
        let mut t = table(2);
        create(&mut t, "a", t0);
        t.reserve().unwrap();
        let TableFull(why) = t.reserve().unwrap_err();
        assert_eq!(
            why,
            "the bridge holds 2 tasks, none of them finished, its limit (--max-tasks); try again when one has finished"
        );
        t.release();
        create(&mut t, "b", t0);
        let mut asked = Map::new();
        asked.insert("x".into(), Value::from(1));
        t.ask("b", asked, ms(t0, 1));
        assert!(t.reserve().is_err(), "working and input_required hold on");
        assert_eq!(t.len(), 2);
        assert!(t.get("a", ms(t0, 2)).is_some() && t.get("b", ms(t0, 2)).is_some());
    }

    #[test]
    fn a_finished_task_gives_its_place_up_and_is_readable_until_then() {
        let t0 = Instant::now();
        let mut t = table(3);
        for (n, id) in ["a", "b", "c"].into_iter().enumerate() {
            create(&mut t, id, t0);
            // Finished in the order c, a, b.
            let at = [20, 30, 10][n];
            t.complete(id, b"{}".to_vec(), ms(t0, at));
        }
        // Full of finished tasks: each still readable.
        for id in ["a", "b", "c"] {
            assert_eq!(t.get(id, ms(t0, 40)).unwrap().status, Status::Completed);
        }
        // The newcomer takes the place of the task that finished first.
        assert_eq!(t.reserve(), Ok(Some("c".to_owned())));
        t.create("d".into(), None, ms(t0, 50));
        assert!(t.get("c", ms(t0, 50)).is_none());
        assert_eq!(t.reserve(), Ok(Some("a".to_owned())));
        t.create("e".into(), None, ms(t0, 60));
        // d and e run, b finished: b goes next, then nobody.
        assert_eq!(t.reserve(), Ok(Some("b".to_owned())));
        t.create("f".into(), None, ms(t0, 70));
        assert!(t.reserve().is_err());
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn a_cancelled_task_is_the_first_to_give_its_place_up() {
        let t0 = Instant::now();
        let mut t = table(3);
        create(&mut t, "old", t0);
        t.complete("old", b"{}".to_vec(), ms(t0, 1));
        create(&mut t, "done", t0);
        t.complete("done", b"{}".to_vec(), ms(t0, 2));
        create(&mut t, "running", t0);
        // Cancelling a finished task keeps its status and frees its place first.
        assert_eq!(t.cancel("done", ms(t0, 3)), Some(Status::Completed));
        assert_eq!(t.get("done", ms(t0, 3)).unwrap().status, Status::Completed);
        assert_eq!(t.reserve(), Ok(Some("done".to_owned())));
        t.create("next".into(), None, ms(t0, 4));
        // Cancelling a running task ends it and frees its place before the older finished one.
        assert_eq!(t.cancel("running", ms(t0, 5)), Some(Status::Working));
        assert_eq!(t.reserve(), Ok(Some("running".to_owned())));
    }

    #[test]
    fn a_task_belongs_to_its_owner_or_to_everyone() {
        let t0 = Instant::now();
        let mut t = table(2);
        t.reserve().unwrap();
        let owned = t.create("a".into(), Some("session-1".into()), t0);
        assert!(owned.belongs_to(Some("session-1")));
        assert!(!owned.belongs_to(Some("session-2")));
        assert!(!owned.belongs_to(None));
        create(&mut t, "b", t0);
        assert!(t.get("b", t0).unwrap().belongs_to(Some("anyone")));
    }

    #[test]
    fn a_result_over_the_byte_cap_fails_the_task() {
        let t0 = Instant::now();
        let mut t = table(2);
        create(&mut t, "a", t0);
        let big = format!(
            r#"{{"content":[{{"type":"text","text":"{}"}}]}}"#,
            "x".repeat(64)
        );
        assert_eq!(t.complete("a", big.into_bytes(), t0), Some(Status::Failed));
        let task = t.get("a", t0).unwrap();
        assert_eq!(
            String::from_utf8(task.outcome.clone().unwrap()).unwrap(),
            r#"{"code":-32603,"message":"The result of 103 bytes is larger than the bridge keeps for a task (64 bytes)"}"#
        );
        create(&mut t, "b", t0);
        assert!(t.fail("b", vec![b' '; 65], "too long".into(), t0));
        assert_eq!(
            String::from_utf8(t.get("b", t0).unwrap().outcome.clone().unwrap()).unwrap(),
            r#"{"code":-32603,"message":"too long"}"#
        );
    }
}
