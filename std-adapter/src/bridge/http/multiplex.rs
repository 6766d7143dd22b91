//! The multiplexer: every request of every HTTP client goes to the router under a bridge-side id
//! of its own (an integer no client chose), and every line the router writes back goes to the
//! one request it belongs to, with the client's id (and progress token) put back.
//!
//! - Responses are matched by id.
//! - `notifications/progress` by token: a forwarded request's `_meta.progressToken` is replaced
//!   by its bridge-side id, so tokens of different clients never collide.
//! - `notifications/message` (logs) carry neither: a device serves one request at a time, in
//!   the order it receives them, so a log line belongs to the oldest forwarded request not yet
//!   answered.
//! - Notifications tied to no request (`notifications/tools/list_changed`, a log line while no
//!   request is in flight) go to every legacy session's GET stream (a session's log level
//!   applies), and are dropped when no session listens. `notifications/tools/list_changed` also
//!   goes to every 2026-07-28 listen stream that asked for it, tagged with its listen request's
//!   id ([`crate::bridge::subscriptions`]).
//! - Anything else (a device's own requests) is logged and dropped: it has no HTTP stream to go
//!   to.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use embedded_mcp::protocol::LogLevel;
use serde_json::{json, Value};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

use super::task_lines::TaskLines;
use crate::bridge::clients::ids::Ids;
use crate::bridge::input_shim::{InputShim, DEFAULT_INPUT_TIMEOUT};
use crate::bridge::message::{self, splice, Class, Id};
use crate::bridge::subscriptions::{tagged, Filter, Subscriptions};
use crate::log::preview;
use crate::log::Logger;

/// Bytes of a line shown in a log message.
const PREVIEW: usize = 200;

/// A line for one waiting HTTP request.
#[derive(Debug)]
pub(super) enum Delivery {
    /// A notification tied to the request (progress, log), before its response.
    Notification(Vec<u8>),
    /// The response (the last delivery).
    Response(Vec<u8>),
}

/// Who a forwarded request belongs to.
#[derive(Debug, Clone)]
pub(super) struct Owner {
    /// The legacy session, if any (ids are unique per session only).
    pub(super) session: Option<String>,
    /// The client's id, exact JSON text.
    pub(super) id_raw: String,
    /// The client's id, canonical (for `notifications/cancelled` in a session).
    pub(super) id_key: String,
    /// The session's log threshold ([`LogLevel::rank`], 0: none set);
    /// `None`: logs are not filtered here (2026-07-28 requests carry their own level).
    pub(super) log_level: Option<Arc<AtomicU8>>,
}

/// A forwarded request: its bridge-side id and where its lines arrive.
pub(super) struct Ticket {
    pub(super) id: u64,
    /// The client's id, exact JSON text (for the front's own error answers).
    pub(super) client_id: String,
    pub(super) lines: UnboundedReceiver<Delivery>,
}

/// Why a request could not be forwarded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ForwardError {
    /// The client's id is in flight already (in its session).
    DuplicateId,
    /// The routing loop stopped.
    RouterGone,
}

pub(super) struct Route {
    pub(super) tx: UnboundedSender<Delivery>,
    pub(super) owner: Owner,
    /// The client's progress token (JSON text), when the request had one.
    pub(super) token: Option<String>,
    /// A call the legacy input-required shim drives (`shim_calls`).
    shim: bool,
}

/// The id table of the front's clients ([`crate::bridge::clients::ids`]).
pub(super) type State = Ids<Route>;

/// One session's GET stream.
struct Listener {
    tx: UnboundedSender<Vec<u8>>,
    log_level: Arc<AtomicU8>,
}

/// The id map between the HTTP clients and the router.
pub(super) struct Multiplex {
    pub(super) to_router: UnboundedSender<Vec<u8>>,
    state: Mutex<State>,
    /// The GET stream of each legacy session that has one.
    listeners: Mutex<HashMap<String, Listener>>,
    /// The 2026-07-28 listen streams (`subscriptions/listen` POSTs).
    subscriptions: Mutex<Subscriptions<UnboundedSender<Vec<u8>>>>,
    /// The latest `notifications/tasks` of each task.
    task_lines: Mutex<TaskLines>,
    log: Logger,
    /// The legacy input-required shim of each session that has a call through it.
    pub(super) shims: Mutex<HashMap<String, InputShim>>,
    /// How long a person may take to answer (`--input-timeout-ms`).
    pub(super) input_timeout: Duration,
}

pub(super) fn client_key(owner: &Owner) -> (String, String) {
    (
        owner.session.clone().unwrap_or_default(),
        owner.id_key.clone(),
    )
}

impl Multiplex {
    /// A multiplexer writing request lines to `to_router`.
    pub(super) fn new(to_router: UnboundedSender<Vec<u8>>, log: Logger) -> Self {
        Self {
            to_router,
            state: Mutex::new(State::default()),
            listeners: Mutex::new(HashMap::new()),
            subscriptions: Mutex::new(Subscriptions::default()),
            task_lines: Mutex::new(TaskLines::default()),
            log,
            shims: Mutex::new(HashMap::new()),
            input_timeout: DEFAULT_INPUT_TIMEOUT,
        }
    }

    /// The same multiplexer whose people have `timeout` to answer the shim's questions.
    pub(super) fn with_input_timeout(mut self, timeout: Duration) -> Self {
        self.input_timeout = timeout;
        self
    }

    pub(super) fn state(&self) -> MutexGuard<'_, State> {
        // A poisoned lock means a thread panicked mid-update; the maps are still consistent
        // enough to go on (at worst one request is never answered and times out).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends `request` (a JSON-RPC request line, exactly as the client wrote it) to the router
    /// under a new id; only the id and the progress token are spliced, every other byte stays.
    pub(super) fn forward(&self, request: &[u8], owner: Owner) -> Result<Ticket, ForwardError> {
        self.forward_with(request, owner, false)
    }

    /// [`Multiplex::forward`], for a call the shim drives when `shim` is set.
    pub(super) fn forward_with(
        &self,
        request: &[u8],
        owner: Owner,
        shim: bool,
    ) -> Result<Ticket, ForwardError> {
        let mut state = self.state();
        // Stateless requests are never cancelled by id (closing the stream cancels them), so
        // only session ids are kept here.
        let key = owner.session.is_some().then(|| client_key(&owner));
        if key.as_ref().is_some_and(|k| state.in_use(k)) {
            return Err(ForwardError::DuplicateId);
        }
        let id_text = state.next_id().to_string();
        let (line, token) = splice::with_id_and_token(request, &id_text, &id_text)
            .ok_or(ForwardError::RouterGone)?;
        if self.to_router.send(line).is_err() {
            return Err(ForwardError::RouterGone);
        }
        let (tx, lines) = unbounded_channel();
        let client_id = owner.id_raw.clone();
        let route = Route {
            tx,
            owner,
            token,
            shim,
        };
        let id = state
            .file(key, route)
            .map_err(|_| ForwardError::DuplicateId)?;
        Ok(Ticket {
            id,
            client_id,
            lines,
        })
    }

    /// Sends a notification line as it is (nothing comes back for it).
    pub(super) fn notify(&self, notification: &Value) -> Result<(), ForwardError> {
        let line = serde_json::to_vec(notification).map_err(|_| ForwardError::RouterGone)?;
        self.to_router
            .send(line)
            .map_err(|_| ForwardError::RouterGone)
    }

    /// Stops waiting for request `id`: the device is told (`notifications/cancelled`) unless
    /// it answered already.
    pub(super) fn cancel(&self, id: u64, reason: &str) {
        if self.state().remove(id).is_some() {
            let cancel = json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": id, "reason": reason}
            });
            if let Ok(line) = serde_json::to_vec(&cancel) {
                let _ = self.to_router.send(line);
            }
        }
    }

    /// The client's `notifications/cancelled` for its request `id_key` in `session`.
    pub(super) fn cancel_client(&self, session: Option<&str>, id_key: &str, reason: &str) {
        if session.is_some_and(|s| self.cancel_shimmed(s, id_key)) {
            return;
        }
        let key = (session.unwrap_or_default().to_owned(), id_key.to_owned());
        let id = self.state().id_of(&key);
        if let Some(id) = id {
            self.cancel(id, reason);
        }
    }

    /// Forgets request `id` without telling anyone (its response will be dropped).
    pub(super) fn forget(&self, id: u64) {
        self.state().remove(id);
    }

    /// Opens `session`'s GET stream (ending the one it had): the lines tied to no request.
    pub(super) fn listen(
        &self,
        session: &str,
        log_level: Arc<AtomicU8>,
    ) -> UnboundedReceiver<Vec<u8>> {
        let (tx, rx) = unbounded_channel();
        self.listeners()
            .insert(session.to_owned(), Listener { tx, log_level });
        rx
    }

    /// Ends `session`'s GET stream, if it has one.
    pub(super) fn unlisten(&self, session: &str) {
        self.listeners().remove(session);
        self.forget_shim(session);
    }

    /// Opens a 2026-07-28 listen stream for the listen request `id`: its acknowledgement first,
    /// then the list changes it asked for, until the receiver is dropped (the client closed the
    /// stream). Streams whose client left are forgotten here and at each list change.
    ///
    /// Of the `taskIds` asked, the stream agrees to the tasks the front knows (the task layer
    /// told it their status), and starts with the current state of each after the
    /// acknowledgement.
    pub(super) fn subscribe(&self, id: Id, mut filter: Filter) -> UnboundedReceiver<Vec<u8>> {
        let (tx, rx) = unbounded_channel();
        let mut currents = Vec::new();
        // Held until the stream is open, so that it misses no change (`on_task_status`).
        let lines = self.task_lines.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(asked) = filter.task_ids.take() {
            let mut agreed: Vec<String> = Vec::new();
            for task_id in asked {
                if let Some(line) = lines
                    .latest(&task_id)
                    .filter(|_| !agreed.contains(&task_id))
                {
                    currents.push(tagged(line, &id.raw));
                    agreed.push(task_id);
                }
            }
            filter.task_ids = Some(agreed);
        }
        let mut subscriptions = self.subscriptions();
        subscriptions.retain(|tx| !tx.is_closed());
        let ack = subscriptions.open(id, filter, tx.clone());
        drop((subscriptions, lines));
        let _ = tx.send(ack);
        for line in currents {
            let _ = tx.send(line);
        }
        rx
    }

    /// A task's status from the task layer: kept, and sent to the streams that asked for it.
    fn on_task_status(&self, value: &Value, line: &[u8]) {
        let Some(task_id) = value
            .get("params")
            .and_then(|p| p.get("taskId"))
            .and_then(Value::as_str)
        else {
            return;
        };
        // Both locks in the order `subscribe` takes them, so a stream misses no change.
        let mut lines = self.task_lines.lock().unwrap_or_else(|e| e.into_inner());
        lines.keep(task_id, line);
        self.subscriptions()
            .task_status(task_id, line, |tx, line| tx.send(line).is_ok());
    }

    fn subscriptions(&self) -> MutexGuard<'_, Subscriptions<UnboundedSender<Vec<u8>>>> {
        self.subscriptions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Open 2026-07-28 listen streams.
    #[cfg(test)]
    pub(super) fn subscribed(&self) -> usize {
        self.subscriptions().len()
    }

    fn listeners(&self) -> MutexGuard<'_, HashMap<String, Listener>> {
        self.listeners.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends a notification tied to no request to every GET stream that admits it; false when
    /// no session listens.
    fn broadcast(&self, value: &Value, line: &[u8]) -> bool {
        let is_log = value.get("method").and_then(Value::as_str) == Some("notifications/message");
        let mut listeners = self.listeners();
        // A stream whose connection ended has dropped its receiver: forget it.
        listeners.retain(|_, l| {
            is_log && !admits(Some(&l.log_level), value) || l.tx.send(line.to_vec()).is_ok()
        });
        !listeners.is_empty()
    }

    /// Requests waiting for an answer.
    #[cfg(test)]
    pub(super) fn in_flight(&self) -> usize {
        self.state().len()
    }

    /// One line the router wrote to its host.
    pub(super) fn on_router_line(&self, line: Vec<u8>) {
        let Some(msg) = message::parse(&line) else {
            self.log.warn(format_args!(
                "the router wrote a line that is not JSON: {}",
                preview(&line, PREVIEW)
            ));
            return;
        };
        match msg.class {
            Class::Response { id } => self.on_response(&id.key, &line),
            Class::Notification { method } => self.on_notification(&method, &msg.value, &line),
            Class::ErrorWithoutId | Class::Invalid { .. } | Class::Request { .. } => {
                self.log.warn(format_args!(
                    "dropped a line that belongs to no HTTP request: {}",
                    preview(&line, PREVIEW)
                ));
            }
        }
    }

    fn on_response(&self, key: &str, line: &[u8]) {
        let mut state = self.state();
        let Some((id, route)) = State::parse(key).and_then(|id| Some((id, state.get(id)?))) else {
            self.log.info(format_args!(
                "dropped the answer to a request nobody waits for: {}",
                preview(line, PREVIEW)
            ));
            return;
        };
        if route.shim {
            // The shim decides: another round, a question to the client, or the answer.
            let owner = route.owner.clone();
            drop(state);
            self.on_shim_answer(&owner, line);
            return;
        }
        let Some(route) = state.remove(id) else {
            return;
        };
        drop(state);
        match splice::with_id(line, &route.owner.id_raw) {
            Some(out) => {
                let _ = route.tx.send(Delivery::Response(out));
            }
            None => self.log.warn(format_args!(
                "could not put the client's id back into a response"
            )),
        }
    }

    fn on_notification(&self, method: &str, value: &Value, line: &[u8]) {
        if method == "notifications/tasks" {
            return self.on_task_status(value, line);
        }
        let mut told = false;
        if method == "notifications/tools/list_changed" {
            self.subscriptions().tools_list_changed(|tx, line| {
                let sent = tx.send(line).is_ok();
                told |= sent;
                sent
            });
        }
        let mut state = self.state();
        let target = match method {
            "notifications/progress" => value
                .get("params")
                .and_then(|p| p.get("progressToken"))
                .and_then(Value::as_u64)
                .filter(|&id| state.contains(id)),
            "notifications/message" => state.current(),
            _ => None,
        };
        let Some(route) = target.and_then(|id| state.get(id)) else {
            drop(state);
            let unrelated = matches!(
                method,
                "notifications/tools/list_changed" | "notifications/message"
            );
            if unrelated && (self.broadcast(value, line) || told) {
                return;
            }
            self.log.info(format_args!(
                "dropped a notification tied to no request in flight: {}",
                preview(line, PREVIEW)
            ));
            return;
        };
        let out = if method == "notifications/progress" {
            route
                .token
                .as_deref()
                .and_then(|token| splice::with_progress_token(line, token))
        } else if admits(route.owner.log_level.as_deref(), value) {
            Some(line.to_vec())
        } else {
            None
        };
        if let Some(out) = out {
            let _ = route.tx.send(Delivery::Notification(out));
        }
    }
}

/// True when the session's threshold (if any) admits the log message `value`.
fn admits(threshold: Option<&AtomicU8>, value: &Value) -> bool {
    let Some(threshold) = threshold.map(|t| t.load(Ordering::Relaxed)) else {
        return true;
    };
    let level = value
        .get("params")
        .and_then(|p| p.get("level"))
        .and_then(Value::as_str)
        .and_then(LogLevel::from_name);
    threshold == 0 || level.is_some_and(|l| l.rank() >= threshold)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::mpsc::UnboundedReceiver as Receiver;

    fn owner(session: &str, id: &str, level: Option<u8>) -> Owner {
        Owner {
            session: Some(session.into()),
            id_raw: id.into(),
            id_key: id.into(),
            log_level: level.map(|l| Arc::new(AtomicU8::new(l))),
        }
    }

    fn multiplex() -> (Multiplex, Receiver<Vec<u8>>) {
        let (tx, rx) = unbounded_channel();
        (
            Multiplex::new(tx, Logger::to_writer(0, "t", Box::new(std::io::sink()))),
            rx,
        )
    }

    fn drain(ticket: &mut Ticket) -> Vec<Delivery> {
        std::iter::from_fn(|| ticket.lines.try_recv().ok()).collect()
    }

    #[test]
    fn ids_and_tokens_are_mapped_both_ways() {
        let (mux, mut router) = multiplex();
        let mut a = mux
            .forward(
                br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}"#,
                owner("A", "1", None),
            )
            .unwrap();
        let mut b = mux
            .forward(
                br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
                owner("B", "1", None),
            )
            .unwrap();
        assert_eq!(
            router.try_recv().unwrap(),
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":1}}}"#.to_vec()
        );
        assert_eq!(
            router.try_recv().unwrap(),
            br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#.to_vec()
        );
        assert_eq!(
            mux.forward(
                br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
                owner("A", "1", None)
            )
            .err(),
            Some(ForwardError::DuplicateId)
        );
        mux.on_router_line(br#"{"jsonrpc":"2.0","id":2,"result":{}}"#.to_vec());
        mux.on_router_line(
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":5}}"#.to_vec(),
        );
        mux.on_router_line(br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#.to_vec());
        mux.on_router_line(br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#.to_vec());
        assert!(
            matches!(b.lines.try_recv().unwrap(), Delivery::Response(l) if l == br#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
        );
        let got = drain(&mut a);
        assert_eq!(got.len(), 3);
        assert!(
            matches!(&got[0], Delivery::Notification(l) if l == br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":5}}"#)
        );
        assert!(
            matches!(&got[1], Delivery::Notification(l) if l.starts_with(br#"{"jsonrpc":"2.0","method":"notifications/message""#))
        );
        assert!(
            matches!(&got[2], Delivery::Response(l) if l == br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#)
        );
        assert_eq!(mux.in_flight(), 0);
    }

    #[test]
    fn logs_are_filtered_by_the_session_level_and_cancel_reaches_the_router() {
        let (mux, mut router) = multiplex();
        // Threshold "warning" (4).
        let mut a = mux
            .forward(
                br#"{"jsonrpc":"2.0","id":"q","method":"tools/call"}"#,
                owner("A", "\"q\"", Some(4)),
            )
            .unwrap();
        router.try_recv().unwrap();
        mux.on_router_line(br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}"#.to_vec());
        mux.on_router_line(br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":2}}"#.to_vec());
        let got = drain(&mut a);
        assert_eq!(got.len(), 1);
        mux.cancel_client(Some("A"), "\"q\"", "user");
        assert_eq!(
            router.try_recv().unwrap(),
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"user","requestId":1}}"#.to_vec()
        );
        // The late answer is dropped.
        mux.on_router_line(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec());
        assert!(a.lines.try_recv().is_err());
    }

    fn listen_id(text: &str) -> Id {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{text},"method":"subscriptions/listen"}}"#);
        match message::parse(line.as_bytes()).unwrap().class {
            Class::Request { id, .. } => id,
            _ => panic!("a request"),
        }
    }

    #[test]
    fn listen_streams_get_their_acknowledgement_then_tagged_list_changes_until_closed() {
        let (mux, mut router) = multiplex();
        let on = Filter {
            tools_list_changed: true,
            task_ids: None,
        };
        // Two clients may both use id 1.
        let mut a = mux.subscribe(listen_id("1"), on.clone());
        let mut b = mux.subscribe(listen_id("1"), on.clone());
        let mut quiet = mux.subscribe(listen_id(r#""q""#), Filter::default());
        let ack = br#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#;
        assert_eq!(a.try_recv().unwrap(), ack.to_vec());
        assert_eq!(b.try_recv().unwrap(), ack.to_vec());
        assert_eq!(
            quiet.try_recv().unwrap(),
            br#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/subscriptionId":"q"}}}"#.to_vec()
        );
        mux.on_router_line(
            br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.to_vec(),
        );
        let tagged = br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#;
        assert_eq!(a.try_recv().unwrap(), tagged.to_vec());
        assert_eq!(b.try_recv().unwrap(), tagged.to_vec());
        assert!(quiet.try_recv().is_err());
        // A client closed its stream: forgotten at the next change, and nothing reaches the
        // router for it.
        drop(b);
        mux.on_router_line(
            br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.to_vec(),
        );
        assert_eq!(a.try_recv().unwrap(), tagged.to_vec());
        assert_eq!(mux.subscribed(), 2);
        drop(quiet);
        let _again = mux.subscribe(listen_id("2"), on);
        assert_eq!(
            mux.subscribed(),
            2,
            "a closed stream is forgotten at the next listen"
        );
        assert!(router.try_recv().is_err());
        // Nothing else of the router's reaches a listen stream.
        mux.on_router_line(br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}"#.to_vec());
        assert!(a.try_recv().is_err());
    }

    #[test]
    fn task_statuses_reach_the_streams_that_asked_starting_with_the_current_one() {
        let (mux, _router) = multiplex();
        let working = br#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"working"}}"#;
        mux.on_router_line(working.to_vec());
        let asks = |ids: &[&str]| Filter {
            tools_list_changed: false,
            task_ids: Some(ids.iter().map(|id| id.to_string()).collect()),
        };
        let mut a = mux.subscribe(listen_id("1"), asks(&["t1", "t9"]));
        let mut other = mux.subscribe(listen_id("2"), asks(&["t2"]));
        assert_eq!(
            a.try_recv().unwrap(),
            br#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"taskIds":["t1"]},"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#.to_vec()
        );
        assert_eq!(
            a.try_recv().unwrap(),
            br#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"working","_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#.to_vec()
        );
        assert!(other.try_recv().is_ok(), "its acknowledgement");
        let done = br#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"completed","result":{}}}"#;
        mux.on_router_line(done.to_vec());
        assert_eq!(
            a.try_recv().unwrap(),
            br#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"completed","result":{},"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#.to_vec()
        );
        assert!(other.try_recv().is_err(), "t2 was never known");
        assert!(a.try_recv().is_err());
    }
}
