//! `Mcp-Param-*` headers (2026-07-28). A tool's `inputSchema` may mark a property with
//! `"x-mcp-header": "Name"`; a client then sends the argument's value again as the header
//! `Mcp-Param-Name` of every call of that tool, so that proxies can route on it without reading
//! the body. The server checks each marked argument against its header: a value without its
//! header, a header without its value, or the two differing is a 400 with -32020.
//!
//! The front learns the marks from the device's own `tools/list` (every page, at the 2026
//! revision), keeps them until the device says its list changed (or 30 s pass), and lists again
//! when a call names a tool it has not seen (at most once a second).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::Mutex;

use super::clock::now;
use super::handshake::{answer, own};
use super::header_text;
use super::multiplex::Multiplex;
use super::request::Request;
use crate::wire::meta::{
    CLIENT_CAPABILITIES as META_CLIENT_CAPABILITIES, PROTOCOL_VERSION as META_PROTOCOL_VERSION,
};
use crate::wire::MAX_PAGES;

/// The prefix of the headers, lower-case (header names are compared case-insensitively).
const PREFIX: &str = "mcp-param-";

/// How long a learnt listing is used without asking the device again.
const FRESH_FOR: Duration = Duration::from_secs(30);

/// The shortest time between two listings caused by calls of unknown tools.
const UNKNOWN_TOOL_RETRY: Duration = Duration::from_secs(1);

/// One marked argument of a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ParamHeader {
    /// The name as declared (`Region`), for messages.
    name: String,
    /// The header's name, lower-case (`mcp-param-region`).
    header: String,
    /// The property names from `arguments` down to the value.
    path: Vec<String>,
}

/// The marked arguments of a tool's `inputSchema`, or why its marks break the rules (clients
/// drop such a tool, so its calls are not checked). A mark counts on a property reached through
/// `properties` members only, whose `type` is `string`, `integer` or `boolean`; its name is a
/// non-empty RFC 9110 token, unique regardless of case.
pub(super) fn declared(input_schema: &Value) -> Result<Vec<ParamHeader>, String> {
    let mut out = Vec::new();
    walk(input_schema, &mut Vec::new(), &mut out)?;
    Ok(out)
}

fn walk(schema: &Value, path: &mut Vec<String>, out: &mut Vec<ParamHeader>) -> Result<(), String> {
    if let Some(mark) = schema.get("x-mcp-header") {
        let name = mark
            .as_str()
            .filter(|n| !n.is_empty() && n.bytes().all(is_token_byte))
            .ok_or_else(|| format!("x-mcp-header {mark} is not an HTTP token"))?;
        let typed = matches!(
            schema.get("type").and_then(Value::as_str),
            Some("string" | "integer" | "boolean")
        );
        if !typed || path.is_empty() {
            return Err(format!(
                "x-mcp-header {name:?} is not on a string, integer or boolean property"
            ));
        }
        let header = format!("{PREFIX}{}", name.to_ascii_lowercase());
        if out.iter().any(|p| p.header == header) {
            return Err(format!("x-mcp-header {name:?} is declared twice"));
        }
        out.push(ParamHeader {
            name: name.to_owned(),
            header,
            path: path.clone(),
        });
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (key, property) in properties {
            path.push(key.clone());
            let walked = walk(property, path, out);
            path.pop();
            walked?;
        }
    }
    Ok(())
}

/// RFC 9110 `tchar`.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Checks the headers of `request` against the `arguments` of a call of a tool with `marks`.
pub(super) fn check(
    request: &Request,
    marks: &[ParamHeader],
    arguments: Option<&Value>,
) -> Result<(), String> {
    for mark in marks {
        let value = arguments
            .and_then(|args| mark.path.iter().try_fold(args, |v, key| v.get(key)))
            .filter(|v| !v.is_null());
        let pointer: String = mark.path.iter().map(|k| format!("/{k}")).collect();
        let sent = header_text::decoded(request, &mark.header)
            .map_err(|why| format!("Mcp-Param-{} {}", mark.name, why.message()))?;
        match (value, sent) {
            (None, None) => {}
            (None, Some(_)) => {
                return Err(format!(
                    "Mcp-Param-{} is sent but the argument {pointer} is absent",
                    mark.name
                ))
            }
            (Some(_), None) => {
                return Err(format!(
                    "Mcp-Param-{} is required: the argument {pointer} is set",
                    mark.name
                ))
            }
            (Some(value), Some(sent)) if !same(value, &sent) => {
                return Err(format!(
                    "Mcp-Param-{} differs from the argument {pointer}",
                    mark.name
                ))
            }
            (Some(_), Some(_)) => {}
        }
    }
    Ok(())
}

/// True when the header text `sent` says `value`: strings exactly, booleans as `true`/`false`,
/// integers numerically (`7` and `7.0` in the body are both `7`).
fn same(value: &Value, sent: &str) -> bool {
    match value {
        Value::String(s) => s == sent,
        Value::Bool(b) => sent == if *b { "true" } else { "false" },
        Value::Number(n) => match sent.parse::<i128>() {
            Ok(header) => {
                n.as_i64().map(i128::from) == Some(header)
                    || n.as_u64().map(i128::from) == Some(header)
                    || n.as_f64()
                        .is_some_and(|f| f.fract() == 0.0 && f == header as f64)
            }
            Err(_) => false,
        },
        _ => false,
    }
}

/// The marks of every tool the device lists, learnt on demand.
pub(super) struct ToolHeaders {
    cache: Mutex<Cache>,
}

#[derive(Default)]
struct Cache {
    tools: HashMap<String, Result<Vec<ParamHeader>, String>>,
    /// When the listing was learnt, and the multiplexer's list generation then.
    learnt: Option<(Instant, u64)>,
}

impl ToolHeaders {
    pub(super) fn new() -> Self {
        Self {
            cache: Mutex::new(Cache::default()),
        }
    }

    /// Checks the `Mcp-Param-*` headers of a 2026-07-28 `tools/call` with `params`, listing
    /// the device's tools first when needed (`wait` bounds each page). A tool the device does
    /// not list, or whose marks break the rules, is not checked (the device answers the call).
    pub(super) async fn check(
        &self,
        mux: &Multiplex,
        wait: Duration,
        request: &Request,
        params: Option<&Value>,
    ) -> Result<(), String> {
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return Ok(());
        };
        let mut cache = self.cache.lock().await;
        let generation = mux.list_generation();
        let known = cache.tools.contains_key(name);
        if is_stale(cache.learnt, now(), generation, known) {
            if let Some(tools) = list(mux, wait).await {
                *cache = Cache {
                    tools,
                    learnt: Some((now(), generation)),
                };
            }
        }
        match cache.tools.get(name) {
            Some(Ok(marks)) => check(request, marks, params.and_then(|p| p.get("arguments"))),
            Some(Err(_)) | None => Ok(()),
        }
    }
}

/// True at `now` when a listing learnt at `learnt` (its time and the multiplexer's list
/// generation then) must be renewed before checking a call of a tool (`known`: the listing has
/// it), the list generation being `generation` now: never learnt, the device said its list
/// changed, [`FRESH_FOR`] passed, or the tool is unknown and [`UNKNOWN_TOOL_RETRY`] passed.
fn is_stale(learnt: Option<(Instant, u64)>, now: Instant, generation: u64, known: bool) -> bool {
    let Some((at, seen)) = learnt else {
        return true;
    };
    let age = now.saturating_duration_since(at);
    seen != generation || age > FRESH_FOR || (!known && age > UNKNOWN_TOOL_RETRY)
}

/// Every page of the device's 2026-07-28 `tools/list`, as marks per tool (`None`: the device
/// did not answer in time, or with an error).
async fn list(
    mux: &Multiplex,
    wait: Duration,
) -> Option<HashMap<String, Result<Vec<ParamHeader>, String>>> {
    let mut tools = HashMap::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..MAX_PAGES {
        let mut params = json!({"_meta": {
            META_PROTOCOL_VERSION: "2026-07-28",
            META_CLIENT_CAPABILITIES: {}
        }});
        if let Some(cursor) = cursor.take() {
            params["cursor"] = cursor;
        }
        let request = json!({"jsonrpc": "2.0", "id": 0, "method": "tools/list", "params": params});
        let mut ticket = mux.forward(request.to_string().as_bytes(), own()).ok()?;
        let line = answer(mux, &mut ticket, wait).await?;
        let page: Value = serde_json::from_slice(&line).ok()?;
        let result = page.get("result")?;
        for tool in result.get("tools")?.as_array()? {
            if let Some(name) = tool.get("name").and_then(Value::as_str) {
                let marks = tool.get("inputSchema").map_or(Ok(Vec::new()), declared);
                tools.insert(name.to_owned(), marks);
            }
        }
        match result.get("nextCursor") {
            Some(next) if !next.is_null() => cursor = Some(next.clone()),
            _ => return Some(tools),
        }
    }
    Some(tools)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(headers: &[(&str, &str)]) -> Request {
        Request::post_for_test(headers)
    }

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "plain": {"type": "number"},
            "opts": {"type": "object", "properties": {
                "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}
            }}
        }})
    }

    #[test]
    fn marks_are_found_through_properties_only() {
        let marks = declared(&schema()).unwrap();
        let mut names: Vec<(&str, &str, Vec<&str>)> = marks
            .iter()
            .map(|m| {
                (
                    m.name.as_str(),
                    m.header.as_str(),
                    m.path.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                ("Count", "mcp-param-count", vec!["count"]),
                ("Dry-Run", "mcp-param-dry-run", vec!["opts", "dry"]),
                ("Region", "mcp-param-region", vec!["region"]),
            ]
        );
        // Under `items`: not reachable through properties, so not a mark.
        let items = json!({"type": "object", "properties": {"xs": {"type": "array",
            "items": {"type": "string", "x-mcp-header": "X"}}}});
        assert_eq!(declared(&items).unwrap(), []);
    }

    #[test]
    fn marks_that_break_the_rules_are_refused() {
        let bad = [
            json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": 5}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "Dup"},
                                  "b": {"type": "integer", "x-mcp-header": "dUP"}}}),
            json!({"type": "string", "x-mcp-header": "Top"}),
        ];
        for schema in bad {
            assert!(declared(&schema).is_err(), "{schema}");
        }
    }

    #[test]
    fn headers_must_say_what_the_arguments_say() {
        let marks = declared(&schema()).unwrap();
        let args = json!({"region": "eu-west", "count": 7, "opts": {"dry": true}});
        let good = [
            ("mcp-param-region", "eu-west"),
            ("mcp-param-count", "7"),
            ("mcp-param-dry-run", "true"),
        ];
        assert_eq!(check(&request(&good), &marks, Some(&args)), Ok(()));
        // Integers compare numerically; base64 values are decoded.
        let args_float = json!({"region": "été", "count": 7.0, "opts": {"dry": true}});
        let encoded = [
            ("mcp-param-region", "=?base64?w6l0w6k=?="),
            ("mcp-param-count", "7"),
            ("mcp-param-dry-run", "true"),
        ];
        assert_eq!(check(&request(&encoded), &marks, Some(&args_float)), Ok(()));
        // Absent or null arguments: no header.
        assert_eq!(
            check(&request(&[]), &marks, Some(&json!({"count": null}))),
            Ok(())
        );
        let cases: [(&[(&str, &str)], &str); 5] = [
            (
                &[("mcp-param-region", "eu-west"), ("mcp-param-count", "7")],
                "Mcp-Param-Dry-Run is required: the argument /opts/dry is set",
            ),
            (
                &[
                    ("mcp-param-region", "eu-east"),
                    ("mcp-param-count", "7"),
                    ("mcp-param-dry-run", "true"),
                ],
                "Mcp-Param-Region differs from the argument /region",
            ),
            (
                &[
                    ("mcp-param-region", "eu-west"),
                    ("mcp-param-count", "07x"),
                    ("mcp-param-dry-run", "true"),
                ],
                "Mcp-Param-Count differs from the argument /count",
            ),
            (
                &[
                    ("mcp-param-region", "eu-west"),
                    ("mcp-param-region", "eu-west"),
                    ("mcp-param-count", "7"),
                    ("mcp-param-dry-run", "true"),
                ],
                "Mcp-Param-Region is repeated",
            ),
            (
                &[
                    ("mcp-param-region", "=?base64?@@@@?="),
                    ("mcp-param-count", "7"),
                    ("mcp-param-dry-run", "true"),
                ],
                "Mcp-Param-Region is not valid base64 of UTF-8",
            ),
        ];
        for (headers, why) in cases {
            assert_eq!(
                check(&request(headers), &marks, Some(&args)),
                Err(why.to_owned())
            );
        }
        assert_eq!(
            check(
                &request(&[("mcp-param-count", "3")]),
                &marks,
                Some(&json!({}))
            ),
            Err("Mcp-Param-Count is sent but the argument /count is absent".to_owned())
        );
    }

    #[test]
    fn a_listing_is_renewed_on_a_list_change_after_a_while_or_for_an_unknown_tool() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        assert!(is_stale(None, t0, 0, false));
        let learnt = Some((t0, 3));
        assert!(!is_stale(learnt, t0 + s(30), 3, true));
        assert!(is_stale(learnt, t0 + s(31), 3, true));
        assert!(
            is_stale(learnt, t0 + s(1), 4, true),
            "the device said its list changed"
        );
        assert!(
            !is_stale(learnt, t0 + s(1), 3, false),
            "at most once a second"
        );
        assert!(is_stale(learnt, t0 + s(2), 3, false));
    }
}
