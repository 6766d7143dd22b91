//! Hosts of the older revisions, 2024-11-05 and 2025-03-26: the device's answers reshaped into
//! the revision the host negotiated (its version echoed, the fields it does not know removed,
//! structured output carried by a text block).

use serde_json::{Map, Value};

use crate::bridge::message::{meta, method};

/// A revision older than the bridge's device sessions, which the bridge answers in its own terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OldEra {
    /// 2024-11-05: no tool annotations, no audio.
    V2024_11_05,
    /// 2025-03-26: JSON-RPC batches, tool annotations and audio; still no `title`,
    /// `outputSchema`, `structuredContent` or `resource_link`.
    V2025_03_26,
}

impl OldEra {
    /// The old revision named `version`, if it is one.
    pub(super) fn parse(version: &str) -> Option<Self> {
        match version {
            "2024-11-05" => Some(Self::V2024_11_05),
            "2025-03-26" => Some(Self::V2025_03_26),
            _ => None,
        }
    }

    /// The revision's name.
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
        }
    }

    fn has_annotations(self) -> bool {
        self == Self::V2025_03_26
    }
}

/// Reshapes the `result` of a response to `method` for a host of `era`; true if it changed.
pub(super) fn downgrade_result(result: &mut Value, method: &str, era: OldEra) -> bool {
    let Some(result) = result.as_object_mut() else {
        return false;
    };
    let before = result.clone();
    match method {
        method::INITIALIZE => {
            result.insert("protocolVersion".into(), Value::from(era.as_str()));
            if let Some(info) = result.get_mut("serverInfo").and_then(Value::as_object_mut) {
                info.retain(|k, _| k == "name" || k == "version");
            }
            if let Some(caps) = result
                .get_mut("capabilities")
                .and_then(Value::as_object_mut)
            {
                if era == OldEra::V2024_11_05 {
                    caps.remove("completions");
                }
                caps.remove("tasks");
            }
        }
        method::TOOLS_LIST => {
            if let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) {
                for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
                    downgrade_tool(tool, era);
                }
            }
        }
        method::TOOLS_CALL => downgrade_call_result(result, era),
        _ => {}
    }
    *result != before
}

fn downgrade_tool(tool: &mut Map<String, Value>, era: OldEra) {
    tool.retain(|k, _| {
        matches!(k.as_str(), "name" | "description" | "inputSchema")
            || (k == "annotations" && era.has_annotations())
    });
    if let Some(notes) = tool.get_mut("annotations").and_then(Value::as_object_mut) {
        notes.retain(|k, _| {
            matches!(
                k.as_str(),
                "title" | "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint"
            )
        });
    }
}

fn downgrade_call_result(result: &mut Map<String, Value>, era: OldEra) {
    let structured = result.remove("structuredContent");
    let mut content = match result.remove("content") {
        Some(Value::Array(blocks)) => blocks,
        _ => Vec::new(),
    };
    content.retain_mut(|block| downgrade_block(block, era));
    if let Some(structured) = structured {
        let has_text = content
            .iter()
            .any(|b| b.get("type").and_then(Value::as_str) == Some("text"));
        if !has_text {
            let text = serde_json::to_string(&structured).unwrap_or_default();
            content.push(serde_json::json!({"type": "text", "text": text}));
        }
    }
    result.insert("content".into(), Value::Array(content));
    result.remove("resultType");
}

/// Keeps a content block the revision knows (trimmed to its fields); false drops it.
fn downgrade_block(block: &mut Value, era: OldEra) -> bool {
    let Some(object) = block.as_object_mut() else {
        return false;
    };
    let known = match object.get("type").and_then(Value::as_str) {
        Some("text" | "image" | "resource") => true,
        Some("audio") => era != OldEra::V2024_11_05,
        _ => false, // resource_link (2025-06-18) and anything newer
    };
    object.remove(meta::KEY);
    if let Some(notes) = object.get_mut("annotations").and_then(Value::as_object_mut) {
        notes.retain(|k, _| k == "audience" || k == "priority");
    }
    known
}

/// Reshapes a notification for a host of `era`; true if it changed (2024-11-05 progress has no
/// `message`).
pub(super) fn downgrade_notification(message: &mut Value, era: OldEra) -> bool {
    if era != OldEra::V2024_11_05
        || message.get("method").and_then(Value::as_str) != Some(method::PROGRESS)
    {
        return false;
    }
    message
        .get_mut("params")
        .and_then(Value::as_object_mut)
        .is_some_and(|p| p.remove("message").is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn call_results_lose_structured_content_but_keep_a_text_block() {
        let mut r = json!({"content": [{"type": "resource_link", "uri": "x:y", "name": "y"}],
            "structuredContent": {"a": 1}, "isError": false});
        assert!(downgrade_result(&mut r, "tools/call", OldEra::V2024_11_05));
        assert_eq!(
            r,
            json!({"content": [{"type": "text", "text": "{\"a\":1}"}], "isError": false})
        );
    }

    #[test]
    fn tools_keep_annotations_only_from_2025_03_26() {
        let tool = json!({"name": "t", "title": "T", "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object"}, "icons": [], "annotations": {"readOnlyHint": true}});
        let mut old = json!({"tools": [tool.clone()]});
        downgrade_result(&mut old, "tools/list", OldEra::V2024_11_05);
        assert_eq!(
            old,
            json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})
        );
        let mut mid = json!({"tools": [tool]});
        downgrade_result(&mut mid, "tools/list", OldEra::V2025_03_26);
        assert_eq!(
            mid,
            json!({"tools": [{"name": "t", "inputSchema": {"type": "object"},
                "annotations": {"readOnlyHint": true}}]})
        );
    }
}
