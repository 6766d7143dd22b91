//! `Mcp-Param-*` headers (2026-07-28). A tool's `inputSchema` may mark a property with
//! `"x-mcp-header": "Name"`; a client then sends the argument's value again as the header
//! `Mcp-Param-Name` of every call of that tool, so that proxies can route on it without reading
//! the body. The server checks each marked argument against its header: a value without its
//! header, a header without its value, or the two differing is a 400 with -32020.
//!
//! The front lists nothing itself: it reads the marks from the devices' tool catalogs, which
//! the engine publishes each time they change (filled, emptied by `list_changed` or a
//! reconnect, renewed). A call of a tool the catalog does not know waits while a listing is
//! under way, then goes unchecked if the tool is still unknown (the device answers it).

use std::time::Duration;

use serde_json::Value;
use tokio::sync::watch;

use super::header_text;
use super::request::Request;
use crate::bridge::catalog::ToolsView;

/// The prefix of the headers, lower-case (header names are compared case-insensitively).
const PREFIX: &str = "mcp-param-";

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

fn walk<'a>(
    schema: &'a Value,
    path: &mut Vec<&'a str>,
    out: &mut Vec<ParamHeader>,
) -> Result<(), String> {
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
            path: path.iter().map(|&k| k.to_owned()).collect(),
        });
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (key, property) in properties {
            path.push(key);
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
        let pointer = || -> String { mark.path.iter().map(|k| format!("/{k}")).collect() };
        let sent = header_text::decoded(request, &mark.header)
            .map_err(|why| format!("Mcp-Param-{} {}", mark.name, why.message()))?;
        match (value, sent) {
            (None, None) => {}
            (None, Some(_)) => {
                return Err(format!(
                    "Mcp-Param-{} is sent but the argument {} is absent",
                    mark.name,
                    pointer()
                ))
            }
            (Some(_), None) => {
                return Err(format!(
                    "Mcp-Param-{} is required: the argument {} is set",
                    mark.name,
                    pointer()
                ))
            }
            (Some(value), Some(sent)) if !same(value, &sent) => {
                return Err(format!(
                    "Mcp-Param-{} differs from the argument {}",
                    mark.name,
                    pointer()
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

/// The marks of the tools, read from the catalogs the engine publishes.
pub(super) struct ToolHeaders {
    tools: watch::Receiver<ToolsView>,
}

/// What the catalogs say of a called tool's marks.
#[derive(Debug, PartialEq, Eq)]
enum Lookup {
    /// The tool is listed, with these marks (or marks that break the rules: not checked).
    Listed(Result<Vec<ParamHeader>, String>),
    /// The tool is not listed and no listing is under way: not checked.
    Unlisted,
    /// The tool is not listed yet, and a listing is under way (or due): wait for it.
    Wait,
}

/// The marks of the tool called `name` in `view`.
fn lookup(view: &ToolsView, name: &str) -> Lookup {
    match view.tool(name) {
        Some(tool) => Lookup::Listed(tool.get("inputSchema").map_or(Ok(Vec::new()), declared)),
        None if view.settled() => Lookup::Unlisted,
        None => Lookup::Wait,
    }
}

impl ToolHeaders {
    /// Marks read from the catalogs published into `tools`.
    pub(super) fn fed_by(tools: watch::Receiver<ToolsView>) -> Self {
        Self { tools }
    }

    /// Checks the `Mcp-Param-*` headers of a 2026-07-28 `tools/call` with `params`, waiting at
    /// most `wait` for a listing under way. A tool the device does not list, or whose marks
    /// break the rules, is not checked (the device answers the call).
    pub(super) async fn check(
        &self,
        wait: Duration,
        request: &Request,
        params: Option<&Value>,
    ) -> Result<(), String> {
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return Ok(());
        };
        // The usual case, the tool listed: no wait, no timer (the catalog's lock is held for
        // the lookup alone).
        let found = lookup(&self.tools.borrow(), name);
        match found {
            Lookup::Listed(Ok(marks)) => {
                check(request, &marks, params.and_then(|p| p.get("arguments")))
            }
            Lookup::Listed(Err(_)) | Lookup::Unlisted => Ok(()),
            Lookup::Wait => self.check_when_listed(wait, request, params, name).await,
        }
    }

    /// [`ToolHeaders::check`] of a tool not listed yet: once a listing under way lists it, or
    /// `wait` passes (then unchecked).
    async fn check_when_listed(
        &self,
        wait: Duration,
        request: &Request,
        params: Option<&Value>,
        name: &str,
    ) -> Result<(), String> {
        let mut tools = self.tools.clone();
        let marks = tokio::time::timeout(wait, async {
            loop {
                match lookup(&tools.borrow_and_update(), name) {
                    Lookup::Listed(marks) => return Some(marks),
                    Lookup::Unlisted => return None,
                    Lookup::Wait => {}
                }
                if tools.changed().await.is_err() {
                    return None; // the engine stopped
                }
            }
        })
        .await;
        match marks {
            Ok(Some(Ok(marks))) => check(request, &marks, params.and_then(|p| p.get("arguments"))),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
    fn marks_come_from_the_published_catalog_and_unknown_tools_wait_for_a_listing() {
        use crate::bridge::catalog::{Catalog, Fill};
        let mut catalog = Catalog::default();
        let view = |c: &Catalog| ToolsView::single(c.tools());
        assert_eq!(lookup(&view(&catalog), "route"), Lookup::Wait);
        catalog.set_fill(Fill::Listing);
        assert_eq!(lookup(&view(&catalog), "route"), Lookup::Wait);
        let tools = json!([{"name": "route", "inputSchema": schema()},
                           {"name": "bad", "inputSchema": {"properties": {"a": {"x-mcp-header": "A"}}}}]);
        catalog.learn_page(&tools, true, true);
        let Lookup::Listed(Ok(marks)) = lookup(&view(&catalog), "route") else {
            panic!("route is listed");
        };
        assert_eq!(marks, declared(&schema()).unwrap());
        assert!(matches!(
            lookup(&view(&catalog), "bad"),
            Lookup::Listed(Err(_))
        ));
        assert_eq!(lookup(&view(&catalog), "other"), Lookup::Unlisted);
        catalog.reset();
        catalog.set_fill(Fill::Failed);
        assert_eq!(lookup(&view(&catalog), "route"), Lookup::Unlisted);
    }

    /// A call of a tool not listed yet waits for the listing under way, then is checked: the
    /// front never lists the device itself.
    #[tokio::test]
    async fn a_call_waits_for_the_listing_under_way() {
        use crate::bridge::catalog::{Catalog, Fill};
        let (publish, tools) = watch::channel(ToolsView::default());
        let headers = ToolHeaders::fed_by(tools);
        let mut catalog = Catalog::default();
        catalog.set_fill(Fill::Listing);
        publish.send_replace(ToolsView::single(catalog.tools()));
        let params = json!({"name": "route", "arguments": {"region": "eu-west"}});
        let wrong = request(&[("mcp-param-region", "eu-east")]);
        let listed = async {
            tokio::task::yield_now().await;
            let tools = json!([{"name": "route", "inputSchema": schema()}]);
            catalog.learn_page(&tools, true, true);
            publish.send_replace(ToolsView::single(catalog.tools()));
        };
        let wait = Duration::from_secs(60);
        let (checked, ()) = tokio::join!(headers.check(wait, &wrong, Some(&params)), listed);
        assert_eq!(
            checked,
            Err("Mcp-Param-Region differs from the argument /region".to_owned())
        );
        // The engine stopped with nothing listed: unchecked at once.
        drop(publish);
        let mut catalog = Catalog::default();
        catalog.set_fill(Fill::Listing);
        let (_, tools) = watch::channel(ToolsView::single(catalog.tools()));
        let orphan = ToolHeaders::fed_by(tools);
        assert_eq!(orphan.check(wait, &wrong, Some(&params)).await, Ok(()));
    }
}
