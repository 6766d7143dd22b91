//! `Mcp-Param-*` headers of the calls a remote link sends (2026-07-28): a tool's `inputSchema`
//! may mark a property, reached through `properties` only, with `"x-mcp-header": "Name"`; every
//! call of that tool then carries the argument's value again as `Mcp-Param-Name`, and a far side
//! that checks them refuses a call without it. The link learns the marks from the `tools/list`
//! answers that pass through it (the router's own listing of the device).

use std::collections::HashMap;

use serde_json::Value;

/// `Mcp-Name` and `Mcp-Param-*` values: as they are when printable ASCII without a space at
/// either end, else `=?base64?…?=` of their UTF-8 (2026-07-28's rule; so is a value shaped like
/// that sentinel).
pub(super) fn header_value(text: &str) -> String {
    let sentinel = text.starts_with("=?") && text.ends_with("?=");
    let plain = !text.is_empty()
        && text.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !sentinel;
    if plain {
        text.to_owned()
    } else {
        use base64::Engine;
        let encoded = base64::engine::general_purpose::STANDARD.encode(text);
        format!("=?base64?{encoded}?=")
    }
}

/// One marked argument: where it is in `arguments`, and its header's name.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Mark {
    path: Vec<String>,
    header: String,
}

/// The marks of each tool listed so far.
#[derive(Debug, Default)]
pub(super) struct Marks(HashMap<String, Vec<Mark>>);

impl Marks {
    /// Learns the marks of the tools a `tools/list` answer (one JSON-RPC line) lists.
    pub(super) fn learn(&mut self, answer: &[u8]) {
        let Ok(value) = serde_json::from_slice::<Value>(answer) else {
            return;
        };
        let Some(tools) = value["result"]["tools"].as_array() else {
            return;
        };
        for tool in tools {
            let Some(name) = tool["name"].as_str() else {
                continue;
            };
            let mut marks = Vec::new();
            walk(&tool["inputSchema"], &mut Vec::new(), &mut marks);
            if marks.is_empty() {
                self.0.remove(name);
            } else {
                self.0.insert(name.to_owned(), marks);
            }
        }
    }

    /// The `Mcp-Param-*` headers of a call of `tool` with `arguments` (a value that is absent,
    /// `null` or of another type than the mark allows has none).
    pub(super) fn headers(&self, tool: &str, arguments: Option<&Value>) -> Vec<(String, String)> {
        let Some(marks) = self.0.get(tool) else {
            return Vec::new();
        };
        marks
            .iter()
            .filter_map(|mark| {
                let value = mark.path.iter().try_fold(arguments?, |v, key| v.get(key))?;
                let text = match value {
                    Value::String(s) => header_value(s),
                    Value::Bool(b) => b.to_string(),
                    Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
                    _ => return None,
                };
                Some((format!("mcp-param-{}", mark.header), text))
            })
            .collect()
    }
}

/// Collects the marks under `schema`'s `properties`, recursively through `properties` only.
fn walk(schema: &Value, path: &mut Vec<String>, out: &mut Vec<Mark>) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (key, property) in properties {
        path.push(key.clone());
        if let Some(header) = property.get("x-mcp-header").and_then(Value::as_str) {
            let token = !header.is_empty()
                && header
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
            if token {
                out.push(Mark {
                    path: path.clone(),
                    header: header.to_owned(),
                });
            }
        }
        walk(property, path, out);
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn marked_arguments_become_headers() {
        let mut marks = Marks::default();
        marks.learn(
            br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"route","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"shards":{"type":"integer","x-mcp-header":"Shards"},"deep":{"type":"object","properties":{"on":{"type":"boolean","x-mcp-header":"On"}}},"note":{"type":"string"}}}},{"name":"echo","inputSchema":{"type":"object"}}]}}"#,
        );
        let args = json!({"region": "eu wést", "shards": 3, "deep": {"on": true}, "note": "x"});
        let mut headers = marks.headers("route", Some(&args));
        headers.sort();
        assert_eq!(
            headers,
            vec![
                ("mcp-param-On".to_owned(), "true".to_owned()),
                (
                    "mcp-param-Region".to_owned(),
                    "=?base64?ZXUgd8Opc3Q=?=".to_owned()
                ),
                ("mcp-param-Shards".to_owned(), "3".to_owned()),
            ]
        );
        let partial = marks.headers("route", Some(&json!({"region": null, "shards": 1.5})));
        assert!(partial.is_empty(), "{partial:?}");
        assert!(marks.headers("echo", Some(&args)).is_empty());
        assert!(marks.headers("unknown", Some(&args)).is_empty());
    }
}
