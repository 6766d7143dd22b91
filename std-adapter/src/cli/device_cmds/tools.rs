//! `embedded-mcp tools`: the device's tools as a table.

use serde_json::Value;

use super::args::ToolsArgs;
use super::connect::{connect, transport_error};
use super::exit_code::OK;
use super::hub_link;
use super::summary::{one_line, summarize};
use super::usage_error::UsageError;
use crate::device::Endpoint;
use crate::full::ToolChecker;

/// `embedded-mcp tools ...`: prints the device's tools as a table; returns the exit code.
pub fn tools_main(args: &ToolsArgs) -> Result<i32, UsageError> {
    let Some(endpoint) = args.device.endpoint() else {
        hub_link::check_names(&args.device.link.devices)?;
        return Ok(tools_of_devices(args));
    };
    Ok(tools_of_device(args, &endpoint))
}

/// Lists one device's tools.
fn tools_of_device(args: &ToolsArgs, endpoint: &Endpoint) -> i32 {
    let mut client = match connect("tools", endpoint, &args.device, &args.client) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let tools = match client.list_tools() {
        Ok(t) => t,
        Err(e) => return transport_error("tools", &e),
    };
    if args.client.json {
        println!("{}", Value::Array(tools));
        return OK;
    }
    print!(
        "{}",
        render_tools(&client.server, &client.protocol_version, &tools)
    );
    let mut checker = ToolChecker::new();
    for (tool, error) in checker.register_tools(&Value::Array(tools)) {
        eprintln!("warning: tool `{tool}`: {error}");
    }
    client.close();
    OK
}

/// `tools --device NAME=LINK ...`: each device's tools as `NAME.tool`, one table per device
/// (`--json`: one array). Exit 2 if any device could not be listed.
fn tools_of_devices(args: &ToolsArgs) -> i32 {
    let mut all = Vec::new();
    let mut code = OK;
    for device in &args.device.link.devices {
        let mut client = match connect("tools", &device.endpoint, &args.device, &args.client) {
            Ok(c) => c,
            Err(failed) => {
                code = failed;
                continue;
            }
        };
        let tools = match client.list_tools() {
            Ok(t) => t,
            Err(e) => {
                code = transport_error("tools", &e);
                continue;
            }
        };
        let named: Vec<Value> = tools
            .into_iter()
            .map(|mut t| {
                let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
                let name = format!("{}.{name}", device.name);
                if let Some(object) = t.as_object_mut() {
                    object.insert("name".into(), Value::String(name));
                }
                t
            })
            .collect();
        if !args.client.json {
            print!(
                "{}",
                render_tools(&client.server, &client.protocol_version, &named)
            );
        }
        all.extend(named);
        client.close();
    }
    if args.client.json {
        println!("{}", Value::Array(all));
    }
    code
}

/// The readable table of `tools`.
pub fn render_tools(server: &Value, protocol: &str, tools: &[Value]) -> String {
    let mut out = String::new();
    let info = server.get("serverInfo").or_else(|| {
        server
            .get("_meta")
            .and_then(|m| m.get(embedded_mcp::protocol::SERVER_INFO_KEY))
    });
    let name = info
        .and_then(|i| i.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("device");
    let version = info
        .and_then(|i| i.get("version"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let count = tools.len();
    out.push_str(&format!(
        "{name} {version}, protocol {protocol}: {count} tool{}\n\n",
        if count == 1 { "" } else { "s" }
    ));
    let header = [
        "NAME",
        "TITLE",
        "READ-ONLY",
        "DESTRUCTIVE",
        "IDEMPOTENT",
        "OPEN-WORLD",
    ];
    let mut rows: Vec<[String; 6]> = Vec::new();
    for tool in tools {
        let annotations = tool.get("annotations");
        let hint = |key: &str, default: bool| -> (bool, bool) {
            match annotations
                .and_then(|a| a.get(key))
                .and_then(Value::as_bool)
            {
                Some(v) => (v, true),
                None => (default, false),
            }
        };
        let show = |(value, declared): (bool, bool), moot: bool| {
            let mut s = String::from(if value { "yes" } else { "no" });
            if !declared {
                s.push('*');
            }
            if moot {
                s = format!("({s})");
            }
            s
        };
        let read_only = hint("readOnlyHint", false);
        rows.push([
            tool.get("name")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string(),
            display_title(tool).unwrap_or("-").to_string(),
            show(read_only, false),
            show(hint("destructiveHint", true), read_only.0),
            show(hint("idempotentHint", false), read_only.0),
            show(hint("openWorldHint", true), false),
        ]);
    }
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row.iter()) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let mut l = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths.iter()).enumerate() {
            if i + 1 == cells.len() {
                l.push_str(cell);
            } else {
                l.push_str(&format!("{cell:<w$}  "));
            }
        }
        l.trim_end().to_string() + "\n"
    };
    out.push_str(&line(&header.map(String::from)));
    for row in &rows {
        out.push_str(&line(row));
    }
    out.push_str(
        "\n* not declared by the tool: the spec's default is shown (read-only no, destructive yes, \
         idempotent no, open-world yes)\n( ) destructive and idempotent mean something only when the tool is not read-only\n\
         hints are the device's claims, not guarantees\n",
    );
    for tool in tools {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
        out.push_str(&format!("\n{name}\n"));
        if let Some(d) = tool.get("description").and_then(Value::as_str) {
            out.push_str(&format!("  {}\n", one_line(d, 100)));
        }
        let input = tool
            .get("inputSchema")
            .map_or_else(|| "(missing)".into(), summarize);
        out.push_str(&format!("  input:  {input}\n"));
        let output = tool
            .get("outputSchema")
            .map_or_else(|| "none declared".into(), summarize);
        out.push_str(&format!("  output: {output}\n"));
    }
    out
}

/// Display name per the spec: `title`, then `annotations.title`.
fn display_title(tool: &Value) -> Option<&str> {
    tool.get("title")
        .and_then(Value::as_str)
        .or_else(|| tool.get("annotations")?.get("title")?.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn table_shows_defaults_and_moot_hints() {
        let tools = vec![
            json!({"name": "read_temp", "title": "Read temperature", "inputSchema": {"type": "object"},
                   "annotations": {"readOnlyHint": true, "openWorldHint": false}}),
            json!({"name": "set_led", "inputSchema": {"type": "object", "properties": {"on": {"type": "boolean"}}, "required": ["on"]},
                   "annotations": {"title": "LED", "destructiveHint": false}}),
        ];
        let text = render_tools(
            &json!({"serverInfo": {"name": "dev", "version": "1.0"}}),
            "2025-11-25",
            &tools,
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "dev 1.0, protocol 2025-11-25: 2 tools");
        assert_eq!(
            lines[2],
            "NAME       TITLE             READ-ONLY  DESTRUCTIVE  IDEMPOTENT  OPEN-WORLD"
        );
        assert_eq!(
            lines[3],
            "read_temp  Read temperature  yes        (yes*)       (no*)       no"
        );
        assert_eq!(
            lines[4],
            "set_led    LED               no*        no           no*         yes*"
        );
        assert!(text.contains("  input:  {on: boolean}\n  output: none declared\n"));
    }
}
