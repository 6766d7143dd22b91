//! Typed views of the messages the bridge reads, parsed once from the [`serde_json::Value`] that
//! [`super::parse`] made. They only read: what the bridge forwards unchanged keeps the exact
//! bytes that arrived, and fields the bridge does not know stay in `rest` (or are not read).

use serde::Deserialize;
use serde_json::{Map, Value};

/// The `result` of `initialize` (legacy revisions), as far as the bridge reads it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The revision the server agreed to.
    pub protocol_version: Option<String>,
}

/// One entry of a `tools/list` result.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ToolEntry {
    /// The tool's name.
    pub name: String,
    /// Its input schema.
    pub input_schema: Option<Value>,
    /// Its output schema, if it has one.
    pub output_schema: Option<Value>,
    /// Every other member (title, icons, annotations, ...).
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// The `result` of `tools/list`: the tools as they came (each read as a [`ToolEntry`] where it
/// is needed), and the cursor of the next page.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ListPage {
    /// The tools of this page.
    pub tools: Vec<Value>,
    /// The next page's cursor (a string; `null`, absent or anything else ends the listing).
    pub next_cursor: Option<Value>,
}

impl ListPage {
    /// The next page's cursor, if there is one.
    pub fn cursor(&self) -> Option<&str> {
        self.next_cursor.as_ref().and_then(Value::as_str)
    }
}

/// The `result` of `tools/call`, as far as the bridge reads it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CallResult {
    /// The structured output, checked against the tool's output schema.
    pub structured_content: Option<Value>,
    /// True for a tool error.
    #[serde(default)]
    pub is_error: bool,
    /// 2026-07-28: `"complete"` and friends.
    pub result_type: Option<String>,
}

/// The `params` of `notifications/progress`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    /// The token of the request the progress belongs to (a string or a number).
    pub progress_token: Value,
    /// Work done so far.
    pub progress: f64,
    /// Work in all, when known.
    pub total: Option<f64>,
    /// A message for people.
    pub message: Option<String>,
}

/// The `params` of `notifications/message` (a log message).
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct LogMessage {
    /// Its severity (`debug` … `emergency`).
    pub level: String,
    /// Who logged it.
    pub logger: Option<String>,
    /// What was logged.
    pub data: Value,
}

/// The `params` of `notifications/cancelled`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Cancelled {
    /// The id of the request given up.
    pub request_id: Value,
    /// Why.
    pub reason: Option<String>,
}

/// The `params` of `notifications/tools/list_changed` (none needed; `_meta` may be there).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub struct ListChanged {
    /// Metadata, if any.
    #[serde(rename = "_meta")]
    pub meta: Option<Value>,
}

/// Reads `value` as a `T`; `None` when it is not one.
pub fn read<T: for<'de> Deserialize<'de>>(value: Option<&Value>) -> Option<T> {
    T::deserialize(value?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_read_as_their_types() {
        let p: Progress = read(Some(
            &json!({"progressToken": 7, "progress": 2, "total": 15}),
        ))
        .unwrap();
        assert_eq!(p.progress_token, json!(7));
        assert_eq!(p.total, Some(15.0));
        assert!(read::<Progress>(Some(&json!({"progress": 2}))).is_none());
        let c: Cancelled = read(Some(&json!({"requestId": "a", "reason": "timeout"}))).unwrap();
        assert_eq!(c.request_id, json!("a"));
        let page: ListPage =
            read(Some(&json!({"tools": [{"name": "t"}], "nextCursor": null}))).unwrap();
        assert_eq!(page.cursor(), None);
        let tool: ToolEntry = serde_json::from_value(page.tools[0].clone()).unwrap();
        assert_eq!(tool.name, "t");
        let init: InitializeResult = read(Some(
            &json!({"protocolVersion": "2025-11-25", "capabilities": {}}),
        ))
        .unwrap();
        assert_eq!(init.protocol_version.as_deref(), Some("2025-11-25"));
        let call: CallResult = read(Some(&json!({"content": [], "isError": true}))).unwrap();
        assert!(call.is_error && call.structured_content.is_none());
        let log: LogMessage = read(Some(&json!({"level": "info", "data": "x"}))).unwrap();
        assert_eq!(log.level, "info");
        assert_eq!(
            read::<ListChanged>(Some(&json!({}))),
            Some(ListChanged::default())
        );
    }
}
