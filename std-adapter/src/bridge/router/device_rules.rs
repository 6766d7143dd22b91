//! What a device may not say to the host, whatever it writes: the bridge owns what it invented.
//!
//! - **Task statuses.** Tasks are the bridge's (its task table, `bridge/tasks/`); a device's
//!   `notifications/tasks` (or any `notifications/tasks/...`) claims a task it has no part in,
//!   and is dropped; an answer of its with `"resultType":"task"` (a task of its own) is
//!   replaced by an error, so no client is handed a task the bridge does not hold.
//! - **Progress.** A device may report progress only for the token of a request the bridge gave
//!   it, still in flight on this link; any other `notifications/progress` (another device's
//!   token, another client's, a finished call's, a token never given) is dropped, so a device
//!   can neither reach into another client's call nor keep a finished one alive. Dropping is
//!   the bound of a flood: nothing is queued for it.
//! - **Requests of its own** (`sampling/createMessage`, `elicitation/create`, `roots/list`,
//!   `ping`, ...) never reach a host: the bridge answers them `-32601` itself. A device asks a
//!   person with an `input_required` answer (see `input_shim`), which is no such request.
//!
//! Each drop is logged, the first of each kind and then at each power of two of their count,
//! so a flood cannot flood the log either.

use serde_json::Value;

use super::flight::Pending;
use super::Router;
use crate::bridge::message::typed::{read, Progress};
use crate::bridge::message::{error_response, method, Id, INTERNAL_ERROR, METHOD_NOT_FOUND};

/// Lines a device sent against the rules, counted by rule (for the log).
#[derive(Debug, Default)]
pub(super) struct Dropped {
    task_statuses: u64,
    progress: u64,
    requests: u64,
}

/// True at 1, 2, 4, 8, ...: when a count is worth a log line.
fn worth_logging(count: u64) -> bool {
    count.is_power_of_two()
}

impl Router {
    /// A notification the device sent on link `gen`: true when it may go on to the host.
    /// Progress it may send moves its request's idle deadline.
    pub(super) fn device_may_notify(&mut self, name: &str, value: &Value, gen: u64) -> bool {
        if name == method::TASK_STATUS || name.starts_with("notifications/tasks/") {
            self.dropped.task_statuses += 1;
            let count = self.dropped.task_statuses;
            if worth_logging(count) {
                let task = value
                    .get("params")
                    .and_then(|p| p.get("taskId"))
                    .map_or_else(|| "(none)".to_owned(), Value::to_string);
                self.log.warn(format_args!(
                    "dropped the device's {name} for task {task}: task statuses come only from the bridge's task table ({count} dropped so far)"
                ));
            }
            return false;
        }
        if name != method::PROGRESS {
            return true;
        }
        let token = read::<Progress>(value.get("params"))
            .and_then(|p| serde_json::to_string(&p.progress_token).ok());
        if let Some(token) = token.filter(|t| self.flight.progress_on(t, gen)) {
            self.on_progress(&token);
            return true;
        }
        self.dropped.progress += 1;
        let count = self.dropped.progress;
        if worth_logging(count) {
            let token = value
                .get("params")
                .and_then(|p| p.get("progressToken"))
                .map_or_else(|| "(none)".to_owned(), Value::to_string);
            self.log.warn(format_args!(
                "dropped the device's progress for token {token}: the bridge gave this device no call in flight with it ({count} dropped so far)"
            ));
        }
        false
    }

    /// The device answered request `p` with `value`: true when the answer claims a task of
    /// the device's own (`"resultType":"task"`); the host then gets an error instead.
    pub(super) fn refused_task_claim(&mut self, p: &Pending, value: &Value) -> bool {
        let claims = value
            .get("result")
            .and_then(|r| r.get("resultType"))
            .and_then(Value::as_str)
            == Some("task");
        if !claims {
            return false;
        }
        self.dropped.task_statuses += 1;
        let count = self.dropped.task_statuses;
        if worth_logging(count) {
            self.log.warn(format_args!(
                "refused the device's answer to {} `{}`: it claims a task of its own, and tasks come only from the bridge's task table ({count} dropped so far)",
                p.id.raw, p.method
            ));
        }
        let text = format!(
            "The device answered `{}` with a task of its own (resultType \"task\"); the bridge serves tasks itself and passes no device's",
            p.method
        );
        self.emit(error_response(Some(&p.id.raw), INTERNAL_ERROR, &text));
        true
    }

    /// A request the device sent on its own: answered `-32601` by the bridge, never passed to
    /// the host.
    pub(super) fn refuse_device_request(&mut self, id: &Id, name: &str) {
        self.dropped.requests += 1;
        let count = self.dropped.requests;
        if worth_logging(count) {
            self.log.warn(format_args!(
                "answered the device's own request {name} (id {}) with -32601: a device's requests never reach the host ({count} so far)",
                id.raw
            ));
        }
        let text = format!(
            "Method not found: the embedded-mcp bridge does not pass a device's own requests ({name}) to the host"
        );
        self.write_device(error_response(Some(&id.raw), METHOD_NOT_FOUND, &text), None);
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::super::Router;
    use crate::bridge::machine::LinkEvent;
    use crate::bridge::sim::{config, Sim};
    use crate::bridge::OnInvalid;
    use crate::log::Logger;

    /// The log, as written.
    #[derive(Clone, Default)]
    struct Log(Arc<Mutex<Vec<u8>>>);

    impl Write for Log {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Log {
        fn lines_with(&self, needle: &str) -> usize {
            let text = String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned();
            text.lines().filter(|l| l.contains(needle)).count()
        }
    }

    /// A router whose link 1 is up, its log captured.
    fn connected() -> (Sim<Router>, Log) {
        let log = Log::default();
        let logger = Logger::to_writer(1, "sim", Box::new(log.clone()));
        // Results are forwarded unchecked (these tests give the router no tool list).
        let mut cfg = config();
        cfg.on_invalid = OnInvalid::Pass;
        let mut sim = Sim::new(|now| Router::new(cfg, logger, false, now));
        sim.link(0, LinkEvent::Opened { gen: 1 });
        (sim, log)
    }

    fn call(id: u32, token: u32) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"slow","arguments":{{}},"_meta":{{"progressToken":{token}}}}}}}"#
        )
    }

    fn progress(token: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1,"message":"INJECTED"}}}}"#
        )
    }

    #[test]
    fn a_device_task_status_never_reaches_the_host() {
        let (mut sim, log) = connected();
        let forged = r#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"forged-1","status":"completed","result":{"content":[]}}}"#;
        sim.device_line(0, 1, forged);
        sim.device_line(
            0,
            1,
            r#"{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"forged-2","status":"failed"}}"#,
        );
        assert!(sim.host_out().is_empty());
        assert_eq!(
            log.lines_with(r#"dropped the device's notifications/tasks for task "forged-1": task statuses come only from the bridge's task table (1 dropped so far)"#),
            1
        );
        assert_eq!(log.lines_with("notifications/tasks/status"), 1);
        // Other notifications pass as they came.
        let list_changed = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
        sim.device_line(0, 1, list_changed);
        assert_eq!(sim.host_out(), [list_changed]);
    }

    #[test]
    fn an_answer_claiming_a_task_of_the_devices_own_becomes_an_error() {
        let (mut sim, log) = connected();
        sim.host_line(&call(7, 3));
        sim.device_line(
            0,
            1,
            r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"task","taskId":"forged-1","status":"completed"}}"#,
        );
        assert_eq!(
            sim.host_out(),
            [
                r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"The device answered `tools/call` with a task of its own (resultType \"task\"); the bridge serves tasks itself and passes no device's"}}"#
            ]
        );
        assert_eq!(log.lines_with("it claims a task of its own"), 1);
    }

    #[test]
    fn progress_passes_only_for_a_call_of_this_device_still_in_flight() {
        let (mut sim, log) = connected();
        sim.host_line(&call(7, 3));
        sim.device_out();
        sim.device_line(0, 1, &progress("3"));
        assert_eq!(sim.host_out(), [progress("3")]);
        for token in ["4", "\"3\"", "null"] {
            sim.device_line(0, 1, &progress(token));
        }
        sim.device_line(
            0,
            1,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#,
        );
        assert!(sim.host_out().is_empty(), "another token, or none");
        sim.device_line(0, 1, r#"{"jsonrpc":"2.0","id":7,"result":{"content":[]}}"#);
        assert_eq!(sim.host_out().len(), 1);
        sim.device_line(0, 1, &progress("3"));
        assert!(sim.host_out().is_empty(), "the call is answered");
        assert_eq!(
            log.lines_with("dropped the device's progress"),
            3,
            "at 1, 2 and 4"
        );
    }

    #[test]
    fn a_queued_call_and_a_closed_link_give_the_device_no_token() {
        let (mut sim, _) = connected();
        sim.host_line(&call(7, 3));
        sim.device_out();
        sim.link(
            0,
            LinkEvent::Closed {
                gen: 1,
                why: "reset".into(),
            },
        );
        sim.host_out();
        // Link 2 is not up yet: the call waits in the queue, the device does not have it.
        sim.host_line(&call(8, 5));
        sim.advance(Duration::from_millis(100));
        sim.device_line(0, 2, &progress("5"));
        sim.device_line(0, 1, &progress("3"));
        assert!(sim.host_out().is_empty());
    }

    #[test]
    fn a_flood_of_foreign_progress_is_dropped_and_logged_sparingly() {
        let (mut sim, log) = connected();
        sim.host_line(&call(7, 3));
        sim.device_out();
        for n in 0..10_000 {
            sim.device_line(0, 1, &progress(&(100 + n).to_string()));
        }
        assert!(sim.host_out().is_empty());
        // Logged at 1, 2, 4, ..., 8192: 14 lines for 10,000 drops.
        assert_eq!(log.lines_with("dropped the device's progress"), 14);
        // The call itself is still served.
        let answer = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[]}}"#;
        sim.device_line(0, 1, answer);
        assert_eq!(sim.host_out(), [answer]);
    }

    #[test]
    fn a_device_request_is_answered_32601_and_never_reaches_the_host() {
        let (mut sim, log) = connected();
        for (id, name) in [
            ("\"s1\"", "sampling/createMessage"),
            ("2", "elicitation/create"),
            ("\"r\"", "roots/list"),
            ("4", "ping"),
        ] {
            sim.device_line(
                0,
                1,
                &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{name}","params":{{}}}}"#),
            );
            assert_eq!(
                sim.device_out(),
                [format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32601,"message":"Method not found: the embedded-mcp bridge does not pass a device's own requests ({name}) to the host"}}}}"#
                )]
            );
        }
        assert!(sim.host_out().is_empty());
        assert_eq!(
            log.lines_with(
                "answered the device's own request sampling/createMessage (id \"s1\") with -32601"
            ),
            1
        );
    }
}
