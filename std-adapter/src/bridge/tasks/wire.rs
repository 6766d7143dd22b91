//! The extension's messages as bytes (fields in the order the extension's specification lists
//! them; a stored result or error spliced in exactly as the device wrote it), and the wall
//! time of a task's timestamps, read from a clock pinned once (no machine reads the clock).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::table::{Status, Task};
use super::EXTENSION;
use crate::bridge::message::{push_json_string, MISSING_CLIENT_CAPABILITY};

/// Wall time for the machine's `Instant`s: one pairing of the two clocks, made where time is
/// read (the shell, or a test).
#[derive(Debug, Clone, Copy)]
pub struct WallClock {
    at: Instant,
    wall: SystemTime,
}

impl WallClock {
    /// `at` was `wall`.
    pub fn new(at: Instant, wall: SystemTime) -> Self {
        Self { at, wall }
    }

    /// The wall time of `t`.
    pub fn wall(&self, t: Instant) -> SystemTime {
        match t.checked_duration_since(self.at) {
            Some(after) => self.wall + after,
            None => self.wall - self.at.duration_since(t),
        }
    }
}

/// `t` as ISO 8601 in UTC with milliseconds: `2026-07-28T10:30:00.000Z`.
pub fn iso8601(t: SystemTime) -> String {
    let since = t.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    let secs = since.as_secs();
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rest = secs % 86_400;
    // Days to a civil date (proleptic Gregorian), after H. Hinnant's `civil_from_days`.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

/// What every task message says besides the task: the clock, `ttlMs`, `pollIntervalMs`.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// Wall time of the timestamps.
    pub clock: WallClock,
    /// `ttlMs`.
    pub ttl: Duration,
    /// `pollIntervalMs`.
    pub poll_interval: Duration,
}

impl Shape {
    /// Appends the `Task` members: `taskId`, `status`, `statusMessage` (when there is one),
    /// `createdAt`, `lastUpdatedAt`, `ttlMs`, `pollIntervalMs`.
    fn push_task(&self, out: &mut Vec<u8>, task: &Task) {
        out.extend_from_slice(b"\"taskId\":");
        push_json_string(out, &task.id);
        out.extend_from_slice(b",\"status\":");
        push_json_string(out, task.status.as_str());
        if let Some(message) = &task.status_message {
            out.extend_from_slice(b",\"statusMessage\":");
            push_json_string(out, message);
        }
        out.extend_from_slice(b",\"createdAt\":");
        push_json_string(out, &iso8601(self.clock.wall(task.created)));
        out.extend_from_slice(b",\"lastUpdatedAt\":");
        push_json_string(out, &iso8601(self.clock.wall(task.updated)));
        out.extend_from_slice(b",\"ttlMs\":");
        out.extend_from_slice(self.ttl.as_millis().to_string().as_bytes());
        out.extend_from_slice(b",\"pollIntervalMs\":");
        out.extend_from_slice(self.poll_interval.as_millis().to_string().as_bytes());
    }

    /// Appends what the task's status carries: `inputRequests`, `result` or `error`.
    fn push_details(out: &mut Vec<u8>, task: &Task) {
        match task.status {
            Status::InputRequired => {
                out.extend_from_slice(b",\"inputRequests\":");
                let requests = serde_json::to_vec(&task.input_requests).unwrap_or_default();
                out.extend_from_slice(&requests);
            }
            Status::Completed | Status::Failed => {
                if let Some(outcome) = &task.outcome {
                    let name: &[u8] = if task.status == Status::Completed {
                        b",\"result\":"
                    } else {
                        b",\"error\":"
                    };
                    out.extend_from_slice(name);
                    out.extend_from_slice(outcome);
                }
            }
            Status::Working | Status::Cancelled => {}
        }
    }

    /// The response to a `tools/call` that became `task` (`CreateTaskResult`).
    pub fn created(&self, raw_id: &str, task: &Task) -> Vec<u8> {
        let mut out = response_head(raw_id);
        out.extend_from_slice(b"{\"resultType\":\"task\",");
        self.push_task(&mut out, task);
        out.extend_from_slice(b"}}");
        out
    }

    /// The response to `tasks/get` (`GetTaskResult`: the task with its details).
    pub fn detailed(&self, raw_id: &str, task: &Task) -> Vec<u8> {
        let mut out = response_head(raw_id);
        out.extend_from_slice(b"{\"resultType\":\"complete\",");
        self.push_task(&mut out, task);
        Self::push_details(&mut out, task);
        out.extend_from_slice(b"}}");
        out
    }
}

impl Shape {
    /// `notifications/tasks` for `task`, untagged (`params`: the task with its details, as
    /// `tasks/get` returns it, without `resultType`).
    pub fn status(&self, task: &Task) -> Vec<u8> {
        let mut out =
            b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tasks\",\"params\":{".to_vec();
        self.push_task(&mut out, task);
        Self::push_details(&mut out, task);
        out.extend_from_slice(b"}}");
        out
    }
}

fn response_head(raw_id: &str) -> Vec<u8> {
    let mut out = b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec();
    out.extend_from_slice(raw_id.as_bytes());
    out.extend_from_slice(b",\"result\":");
    out
}

/// The empty acknowledgement of `tasks/update` and `tasks/cancel`.
pub fn ack(raw_id: &str) -> Vec<u8> {
    let mut out = response_head(raw_id);
    out.extend_from_slice(b"{\"resultType\":\"complete\"}}");
    out
}

/// `-32021` naming the extension in `data.requiredCapabilities`.
pub fn missing_capability(raw_id: &str, what: &str) -> Vec<u8> {
    let mut out = b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec();
    out.extend_from_slice(raw_id.as_bytes());
    out.extend_from_slice(b",\"error\":{\"code\":");
    out.extend_from_slice(MISSING_CLIENT_CAPABILITY.to_string().as_bytes());
    out.extend_from_slice(b",\"message\":");
    push_json_string(
        &mut out,
        &format!("Missing required client capability: {what}"),
    );
    out.extend_from_slice(b",\"data\":{\"requiredCapabilities\":{\"extensions\":{");
    push_json_string(&mut out, EXTENSION);
    out.extend_from_slice(b":{}}}}}}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso8601_in_utc_with_milliseconds() {
        let at = |secs: u64, ms: u64| UNIX_EPOCH + Duration::from_millis(secs * 1000 + ms);
        assert_eq!(iso8601(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(at(951_782_400, 5)), "2000-02-29T00:00:00.005Z");
        assert_eq!(iso8601(at(1_785_234_600, 250)), "2026-07-28T10:30:00.250Z");
        assert_eq!(iso8601(at(4_102_444_799, 999)), "2099-12-31T23:59:59.999Z");
    }

    #[test]
    fn the_wall_clock_follows_instants_both_ways() {
        let t0 = Instant::now() + Duration::from_secs(10);
        let clock = WallClock::new(t0, UNIX_EPOCH + Duration::from_secs(100));
        let later = clock.wall(t0 + Duration::from_millis(1500));
        assert_eq!(later, UNIX_EPOCH + Duration::from_millis(101_500));
        let earlier = clock.wall(t0 - Duration::from_secs(2));
        assert_eq!(earlier, UNIX_EPOCH + Duration::from_secs(98));
    }

    #[test]
    fn missing_capability_names_the_extension() {
        assert_eq!(
            String::from_utf8(missing_capability(
                "7",
                "tasks/get needs the tasks extension"
            ))
            .unwrap(),
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32021,"message":"Missing required client capability: tasks/get needs the tasks extension","data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}"#
        );
        assert_eq!(
            String::from_utf8(ack("\"a\"")).unwrap(),
            r#"{"jsonrpc":"2.0","id":"a","result":{"resultType":"complete"}}"#
        );
    }
}
