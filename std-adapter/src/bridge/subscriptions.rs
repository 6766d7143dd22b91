//! 2026-07-28 listen streams (`subscriptions/listen`), without I/O: what a client asked for, the
//! bytes the server sends on a stream, and the open streams with where each one goes.
//!
//! A stream opens with `notifications/subscriptions/acknowledged`, naming the notifications the
//! bridge agreed to (only `toolsListChanged`: it has no prompts or resources), and then carries
//! `notifications/tools/list_changed` if it asked for them, each tagged with
//! `_meta["io.modelcontextprotocol/subscriptionId"]` = the listen request's id. The client ends
//! it (`notifications/cancelled` on stdio, closing the SSE stream on HTTP); the bridge never
//! answers the listen request, and ends a stream itself only when it stops, with
//! `notifications/cancelled` carrying the listen request's id (stdio; on HTTP the connection
//! closes). The hub keeps one [`Subscriptions`] for its stdio host, the HTTP
//! front one for its clients' SSE streams.

use serde_json::Value;

use super::message::{meta, method, push_json_string, Id};

/// The notifications a listen request opts in to that the bridge can send.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Filter {
    /// `toolsListChanged: true` was asked for.
    pub tools_list_changed: bool,
    /// `taskIds` (the tasks extension): `notifications/tasks` for these tasks; `None` when
    /// the request has no `taskIds`.
    pub task_ids: Option<Vec<String>>,
}

impl Filter {
    /// The filter of a listen request's `params`; `None` when `params.notifications` is not an
    /// object (the revision requires it), or its `taskIds` is not an array of strings.
    pub fn read(params: Option<&Value>) -> Option<Self> {
        let asked = params?.get("notifications")?.as_object()?;
        let task_ids = match asked.get("taskIds") {
            None => None,
            Some(ids) => Some(
                ids.as_array()?
                    .iter()
                    .map(|id| id.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()?,
            ),
        };
        Some(Self {
            tools_list_changed: asked.get("toolsListChanged") == Some(&Value::Bool(true)),
            task_ids,
        })
    }

    /// Whether this stream asked for the status of task `task_id`.
    pub fn wants_task(&self, task_id: &str) -> bool {
        self.task_ids
            .as_ref()
            .is_some_and(|ids| ids.iter().any(|id| id == task_id))
    }
}

/// Appends `"_meta":{"io.modelcontextprotocol/subscriptionId":<id>}`.
fn push_tag(out: &mut Vec<u8>, id_raw: &str) {
    out.extend_from_slice(b"\"_meta\":{");
    push_json_string(out, meta::SUBSCRIPTION_ID);
    out.push(b':');
    out.extend_from_slice(id_raw.as_bytes());
    out.push(b'}');
}

/// `notifications/subscriptions/acknowledged` for the listen request `id_raw` (exact id text).
pub fn acknowledged(id_raw: &str, filter: &Filter) -> Vec<u8> {
    let mut out = b"{\"jsonrpc\":\"2.0\",\"method\":".to_vec();
    push_json_string(&mut out, method::SUBSCRIPTIONS_ACKNOWLEDGED);
    out.extend_from_slice(b",\"params\":{\"notifications\":{");
    if filter.tools_list_changed {
        out.extend_from_slice(b"\"toolsListChanged\":true");
    }
    if let Some(ids) = &filter.task_ids {
        if filter.tools_list_changed {
            out.push(b',');
        }
        push_task_ids(&mut out, ids);
    }
    out.extend_from_slice(b"},");
    push_tag(&mut out, id_raw);
    out.extend_from_slice(b"}}");
    out
}

/// Appends `"taskIds":[...]`.
pub fn push_task_ids(out: &mut Vec<u8>, ids: &[String]) {
    out.extend_from_slice(b"\"taskIds\":[");
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_json_string(out, id);
    }
    out.push(b']');
}

/// A notification `line` the bridge wrote untagged (`{...,"params":{...}}`, `params` not empty)
/// tagged for the stream of listen request `id_raw`: `_meta` is added as the last member of
/// `params`.
pub fn tagged(line: &[u8], id_raw: &str) -> Vec<u8> {
    let body = line.strip_suffix(b"}}").unwrap_or(line);
    let mut out = Vec::with_capacity(line.len() + 64);
    out.extend_from_slice(body);
    out.push(b',');
    push_tag(&mut out, id_raw);
    out.extend_from_slice(b"}}");
    out
}

/// `notifications/tools/list_changed` on the stream of listen request `id_raw`.
pub fn list_changed(id_raw: &str) -> Vec<u8> {
    let mut out = b"{\"jsonrpc\":\"2.0\",\"method\":".to_vec();
    push_json_string(&mut out, method::TOOLS_LIST_CHANGED);
    out.extend_from_slice(b",\"params\":{");
    push_tag(&mut out, id_raw);
    out.extend_from_slice(b"}}");
    out
}

/// One open stream.
struct Stream<S> {
    id: Id,
    filter: Filter,
    sink: S,
}

/// The open listen streams, each with its sink `S` (where its lines go: nothing on stdio, a
/// channel to an SSE stream on HTTP).
pub struct Subscriptions<S> {
    streams: Vec<Stream<S>>,
}

impl<S> Default for Subscriptions<S> {
    fn default() -> Self {
        Self {
            streams: Vec::new(),
        }
    }
}

impl<S> Subscriptions<S> {
    /// Opens the stream of listen request `id` and returns its acknowledgement, the stream's
    /// first line. Ids need not be unique (HTTP clients choose theirs independently); a caller
    /// whose ids must be closes the open one first.
    pub fn open(&mut self, id: Id, filter: Filter, sink: S) -> Vec<u8> {
        let ack = acknowledged(&id.raw, &filter);
        self.streams.push(Stream { id, filter, sink });
        ack
    }

    /// Ends the stream of the listen request whose canonical id is `key`; false if none is open.
    pub fn close(&mut self, key: &str) -> bool {
        let before = self.streams.len();
        self.streams.retain(|s| s.id.key != key);
        self.streams.len() != before
    }

    /// The tool list changed: `deliver` gets each stream that asked for it, with its tagged
    /// `notifications/tools/list_changed`; a stream whose `deliver` returns false is gone (its
    /// reader left) and is forgotten.
    pub fn tools_list_changed(&mut self, mut deliver: impl FnMut(&S, Vec<u8>) -> bool) {
        self.streams
            .retain(|s| !s.filter.tools_list_changed || deliver(&s.sink, list_changed(&s.id.raw)));
    }

    /// Task `task_id` changed: `deliver` gets each stream that asked for it with `line` (an
    /// untagged `notifications/tasks`) tagged for it; a stream whose `deliver` returns false
    /// is forgotten.
    pub fn task_status(
        &mut self,
        task_id: &str,
        line: &[u8],
        mut deliver: impl FnMut(&S, Vec<u8>) -> bool,
    ) {
        self.streams
            .retain(|s| !s.filter.wants_task(task_id) || deliver(&s.sink, tagged(line, &s.id.raw)));
    }

    /// Ends every stream; returns their listen requests' ids (to tell the client with
    /// `notifications/cancelled`, the only way a server ends a listen stream).
    pub fn close_all(&mut self) -> Vec<Id> {
        self.streams.drain(..).map(|s| s.id).collect()
    }

    /// Keeps the streams whose sink `keep` says is still read.
    pub fn retain(&mut self, mut keep: impl FnMut(&S) -> bool) {
        self.streams.retain(|s| keep(&s.sink));
    }

    /// How many streams are open.
    pub fn len(&self) -> usize {
        self.streams.len()
    }

    /// No stream is open.
    pub fn is_empty(&self) -> bool {
        self.streams.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::bridge::message::{parse, Class};

    fn id(text: &str) -> Id {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{text},"method":"subscriptions/listen"}}"#);
        match parse(line.as_bytes()).unwrap().class {
            Class::Request { id, .. } => id,
            _ => panic!("a request"),
        }
    }

    #[test]
    fn reads_the_filter_and_requires_notifications() {
        let on = json!({"notifications": {"toolsListChanged": true, "promptsListChanged": true}});
        assert_eq!(
            Filter::read(Some(&on)),
            Some(Filter {
                tools_list_changed: true,
                task_ids: None,
            })
        );
        let off = json!({"notifications": {"toolsListChanged": false}});
        assert_eq!(Filter::read(Some(&off)), Some(Filter::default()));
        assert_eq!(Filter::read(Some(&json!({"notifications": true}))), None);
        assert_eq!(Filter::read(Some(&json!({}))), None);
        assert_eq!(Filter::read(None), None);
        let tasks = json!({"notifications": {"taskIds": ["a", "b"]}});
        assert_eq!(
            Filter::read(Some(&tasks)).and_then(|f| f.task_ids),
            Some(vec!["a".to_owned(), "b".to_owned()])
        );
        let bad = json!({"notifications": {"taskIds": ["a", 7]}});
        assert_eq!(Filter::read(Some(&bad)), None);
        assert_eq!(
            Filter::read(Some(&json!({"notifications": {"taskIds": "a"}}))),
            None
        );
    }

    #[test]
    fn task_ids_are_acknowledged_and_only_their_streams_get_status_lines() {
        let both = Filter {
            tools_list_changed: true,
            task_ids: Some(vec!["t1".to_owned(), "t\"2".to_owned()]),
        };
        assert_eq!(
            String::from_utf8(acknowledged("5", &both)).unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true,"taskIds":["t1","t\"2"]},"_meta":{"io.modelcontextprotocol/subscriptionId":5}}}"#
        );
        let only = Filter {
            tools_list_changed: false,
            task_ids: Some(Vec::new()),
        };
        assert_eq!(
            String::from_utf8(acknowledged("5", &only)).unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"taskIds":[]},"_meta":{"io.modelcontextprotocol/subscriptionId":5}}}"#
        );
        let mut subs = Subscriptions::default();
        subs.open(id("1"), both, ());
        subs.open(id(r#""x""#), Filter::default(), ());
        let line = br#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"working"}}"#;
        let mut got = Vec::new();
        subs.task_status("t1", line, |(), l| {
            got.push(String::from_utf8(l).unwrap());
            true
        });
        subs.task_status("t3", line, |(), l| {
            got.push(String::from_utf8(l).unwrap());
            true
        });
        assert_eq!(
            got,
            [
                r#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"working","_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#
            ]
        );
    }

    #[test]
    fn lines_are_tagged_with_the_exact_listen_id() {
        let on = Filter {
            tools_list_changed: true,
            task_ids: None,
        };
        assert_eq!(
            String::from_utf8(acknowledged(r#""a\u0062""#, &on)).unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":"a\u0062"}}}"#
        );
        assert_eq!(
            String::from_utf8(acknowledged("7", &Filter::default())).unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}"#
        );
        assert_eq!(
            String::from_utf8(list_changed("7")).unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}"#
        );
    }

    #[test]
    fn only_streams_that_asked_get_list_changes_and_gone_ones_are_forgotten() {
        let on = Filter {
            tools_list_changed: true,
            task_ids: None,
        };
        let mut subs = Subscriptions::default();
        subs.open(id("1"), on.clone(), true);
        subs.open(id("2"), Filter::default(), true);
        subs.open(id("3"), on, false);
        let mut got = Vec::new();
        subs.tools_list_changed(|alive, line| {
            got.push(String::from_utf8(line).unwrap());
            *alive
        });
        assert_eq!(
            got,
            [list_changed("1"), list_changed("3")].map(|l| String::from_utf8(l).unwrap())
        );
        assert_eq!(subs.len(), 2, "stream 3's reader left");
        subs.retain(|alive| *alive);
        assert_eq!(subs.len(), 2);
        assert!(subs.close(r#"2"#));
        assert!(!subs.close("2"));
        assert_eq!(
            subs.close_all()
                .iter()
                .map(|id| id.raw.as_str())
                .collect::<Vec<_>>(),
            ["1"]
        );
        assert!(subs.is_empty());
    }
}
