//! `embedded-mcp call`: one tool call, with both channels and the verdict printed.

use serde_json::Value;

use super::approve::{self, Answerer, Asked};
use super::args::CallArgs;
use super::connect::{connect, transport_error};
use super::exit_code::{NEGATIVE, OK};
use super::hub_link;
use super::usage_error::UsageError;
use crate::device::Endpoint;
use crate::full::ToolChecker;

/// `embedded-mcp call ...`: calls one tool and prints both channels and the verdict; returns
/// the exit code.
pub fn call_main(args: &CallArgs) -> Result<i32, UsageError> {
    let (endpoint, tool) = match args.device.endpoint() {
        Some(endpoint) => (endpoint, args.tool.as_str()),
        // `--device NAME=LINK ... NAME.tool`: call `tool` on the device named NAME.
        None => {
            let devices = &args.device.link.devices;
            hub_link::check_names(devices)?;
            let (device, tool) = hub_link::split_tool(devices, &args.tool)?;
            (device.endpoint.clone(), tool)
        }
    };
    let arguments = Value::Object(args.arguments.iter().cloned().collect());
    Ok(call(args, &endpoint, tool, arguments))
}

/// Connects, lists, calls `tool` and prints; returns the exit code.
fn call(args: &CallArgs, endpoint: &Endpoint, tool: &str, arguments: Value) -> i32 {
    let mut client = match connect("call", endpoint, &args.device, &args.client) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let tools = match client.list_tools() {
        Ok(t) => t,
        Err(e) => return transport_error("call", &e),
    };
    let mut checker = ToolChecker::new();
    for (name, error) in checker.register_tools(&Value::Array(tools.clone())) {
        eprintln!("warning: tool `{name}`: {error}");
    }
    let listed = tools
        .iter()
        .any(|t| t.get("name").and_then(Value::as_str) == Some(tool));
    if listed {
        if let Err(f) = checker.check_arguments(tool, &arguments) {
            eprintln!(
                "note: the arguments do not match the tool's inputSchema ({f}); calling anyway"
            );
        }
    }
    // A tool may ask a person first: that takes a 2026-07-28 call declaring elicitation.
    let legacy = !client.is_modern();
    let asking = !legacy || approve::speaks_modern(&mut client);
    let answered = if asking {
        client.capabilities = approve::capabilities();
        approve::call_asking(
            &mut client,
            tool,
            &arguments,
            Answerer::new(args.yes),
            legacy,
        )
    } else {
        client.call_tool(tool, arguments).map(Asked::Answered)
    };
    let response = match answered {
        Ok(Asked::Answered(r)) => r,
        Ok(Asked::Stopped) => {
            client.close();
            return NEGATIVE;
        }
        Err(e) => return transport_error("call", &e),
    };
    let protocol = client.protocol_version.clone();
    client.close();
    let result = response.result().cloned().unwrap_or(Value::Null);
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let verdict = if is_error {
        Verdict::ToolError
    } else if !listed {
        Verdict::Unlisted
    } else {
        match checker.check_result(
            crate::bridge::catalog::rules_revision(&protocol).as_str(),
            tool,
            &result,
        ) {
            Ok(())
                if tools
                    .iter()
                    .find(|t| t.get("name").and_then(Value::as_str) == Some(tool))
                    .and_then(|t| t.get("outputSchema"))
                    .is_some() =>
            {
                Verdict::Valid
            }
            Ok(()) => Verdict::NoSchema,
            Err(f) => Verdict::Invalid(f.to_string()),
        }
    };
    if args.client.json {
        let raw = embedded_mcp::json::Value::parse_with(
            &response.line,
            embedded_mcp::json::Limits {
                max_depth: embedded_mcp::json::MAX_DEPTH_LIMIT,
            },
        )
        .ok()
        .and_then(|v| v.get("result"))
        .map(|v| v.raw().to_string())
        .unwrap_or_else(|| result.to_string());
        println!("{raw}");
        eprintln!("verdict: {}", verdict.text(tool));
    } else {
        print!("{}", render_result(&result));
        println!("verdict: {}", verdict.text(tool));
    }
    match verdict {
        Verdict::ToolError | Verdict::Invalid(_) => NEGATIVE,
        _ => OK,
    }
}

enum Verdict {
    Valid,
    NoSchema,
    Unlisted,
    ToolError,
    Invalid(String),
}

impl Verdict {
    fn text(&self, tool: &str) -> String {
        match self {
            Self::Valid => {
                format!("valid: structuredContent conforms to the outputSchema of `{tool}`")
            }
            Self::NoSchema => {
                format!("valid: `{tool}` declares no outputSchema (MCP result rules checked)")
            }
            Self::Unlisted => format!("not checked: `{tool}` is not in the device's tools/list"),
            Self::ToolError => "tool error (isError: true); not validated".into(),
            Self::Invalid(why) => format!("INVALID: {why}"),
        }
    }
}

/// The text channel (each content block) and the structured channel (pretty JSON).
pub fn render_result(result: &Value) -> String {
    let mut out = String::from("text:\n");
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if blocks.is_empty() {
        out.push_str("  (no content blocks)\n");
    }
    for block in &blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                for line in block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .lines()
                {
                    out.push_str(&format!("  {line}\n"));
                }
            }
            Some(kind) => {
                let mime = block.get("mimeType").and_then(Value::as_str).unwrap_or("");
                let uri = block.get("uri").and_then(Value::as_str).unwrap_or("");
                out.push_str(&format!("  [{kind} {mime}{uri}]\n"));
            }
            None => out.push_str(&format!("  [block without type: {block}]\n")),
        }
    }
    out.push_str("structured:\n");
    match result.get("structuredContent") {
        Some(value) => {
            let pretty = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
            for line in pretty.lines() {
                out.push_str(&format!("  {line}\n"));
            }
        }
        None => out.push_str("  (none)\n"),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::device_cmds::args::argument;
    use serde_json::json;

    #[test]
    fn arguments_are_json_when_they_parse() {
        let parsed: Vec<(String, Value)> = [
            "n=42",
            "b=true",
            "s=hello",
            "q=\"7\"",
            "o={\"a\":[1]}",
            "e=",
        ]
        .into_iter()
        .map(|pair| argument(pair).unwrap())
        .collect();
        assert_eq!(
            Value::Object(parsed.into_iter().collect()),
            json!({"n": 42, "b": true, "s": "hello", "q": "7", "o": {"a": [1]}, "e": ""})
        );
        assert_eq!(
            argument("novalue").unwrap_err(),
            "argument \"novalue\" is not key=value"
        );
        assert_eq!(
            argument("=1").unwrap_err(),
            "argument \"=1\" has an empty key"
        );
    }
}
