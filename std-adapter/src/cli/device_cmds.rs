//! `embedded-mcp bridge|tools|call`: the commands that talk to a device.
//!
//! ```text
//! embedded-mcp bridge DEVICE [--timeout-ms N] [--on-invalid error|warn|pass]
//!                            [--reconnect-attempts N] [--startup-retry-ms N] [-v|-vv]
//! embedded-mcp tools  DEVICE [--protocol VERSION] [--timeout-ms N] [--json] [-v|-vv]
//! embedded-mcp call   DEVICE [--protocol VERSION] [--timeout-ms N] [--json] [-v|-vv]
//!                            TOOL [key=value ...]
//!
//! DEVICE: --serial PATH [--baud N] | --unix PATH | --tcp HOST:PORT
//!       | --qemu FIRMWARE.elf [--machine lm3s6965evb|mps2-an386] [--qemu-serial socket|stdio]
//!                             [--qemu-bin PROGRAM]
//!       | --command "PROGRAM ARGS"   (a child process speaking MCP on stdio; for tests)
//! ```
//!
//! Exit codes: 0 ok, 1 tool error or invalid result, 2 usage or transport error.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::bridge::{self, BridgeConfig, OnInvalid};
use crate::device::client::{Client, ClientError, ClientOptions, DEFAULT_PROTOCOL};
use crate::device::{
    child, split_command_line, Endpoint, Logger, Machine, QemuConfig, QemuWiring, DEFAULT_BAUD,
};
use crate::full::ToolChecker;

/// Usage text of the device commands.
pub const USAGE: &str = "\
usage: embedded-mcp bridge DEVICE [--timeout-ms N] [--on-invalid error|warn|pass]
                          [--reconnect-attempts N] [--startup-retry-ms N] [-v|-vv]
       embedded-mcp tools  DEVICE [--protocol VERSION] [--timeout-ms N] [--json] [-v|-vv]
       embedded-mcp call   DEVICE [--protocol VERSION] [--timeout-ms N] [--json] [-v|-vv]
                          TOOL [key=value ...]

DEVICE is one of:
  --serial PATH [--baud N]      a serial port (default 115200 baud, 8N1)
  --unix PATH                   a unix stream socket
  --tcp HOST:PORT               a TCP connection
  --qemu FIRMWARE.elf           run the firmware under QEMU (stopped when we exit)
      [--machine lm3s6965evb|mps2-an386] [--qemu-serial socket|stdio] [--qemu-bin PROGRAM]
  --command \"PROGRAM ARGS\"      a child process speaking MCP on stdin/stdout

call: values are JSON when they parse as JSON (42, true, [1], {\"a\":1}, \"quoted\"), else strings.
bridge: an MCP stdio server; stdout carries only MCP messages, logs go to stderr.
Exit codes: 0 ok, 1 tool error or invalid result, 2 usage or transport error.";

/// Exit code: success.
const OK: i32 = 0;
/// Exit code: the tool reported an error, or its result broke its schema.
const NEGATIVE: i32 = 1;
/// Exit code: usage, input or transport error.
const FAILURE: i32 = 2;

/// Options shared by the three commands.
#[derive(Debug)]
struct Options {
    endpoint: Option<Endpoint>,
    timeout: Duration,
    verbosity: u8,
    json: bool,
    protocol: String,
    on_invalid: OnInvalid,
    reconnect_attempts: Option<u32>,
    startup_retry: Option<Duration>,
    positional: Vec<String>,
}

/// Parses `args`; `Err` is a usage message.
fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        endpoint: None,
        timeout: Duration::from_secs(10),
        verbosity: 0,
        json: false,
        protocol: DEFAULT_PROTOCOL.into(),
        on_invalid: OnInvalid::Error,
        reconnect_attempts: None,
        startup_retry: None,
        positional: Vec::new(),
    };
    let mut baud: Option<u32> = None;
    let mut machine: Option<Machine> = None;
    let mut wiring: Option<QemuWiring> = None;
    let mut qemu_bin: Option<String> = None;
    let mut endpoints = 0;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => it
                    .next()
                    .cloned()
                    .ok_or_else(|| format!("{name} needs a value")),
            }
        };
        match flag {
            "--serial" => {
                endpoints += 1;
                o.endpoint = Some(Endpoint::Serial {
                    path: PathBuf::from(value(flag)?),
                    baud: DEFAULT_BAUD,
                });
            }
            "--baud" => baud = Some(number(flag, &value(flag)?)?),
            "--unix" => {
                endpoints += 1;
                o.endpoint = Some(Endpoint::Unix(PathBuf::from(value(flag)?)));
            }
            "--tcp" => {
                endpoints += 1;
                o.endpoint = Some(Endpoint::Tcp(value(flag)?));
            }
            "--qemu" => {
                endpoints += 1;
                o.endpoint = Some(Endpoint::Qemu(QemuConfig::new(value(flag)?)));
            }
            "--machine" => {
                let v = value(flag)?;
                machine = Some(
                    Machine::parse(&v)
                        .ok_or_else(|| format!("--machine {v}: use lm3s6965evb or mps2-an386"))?,
                );
            }
            "--qemu-serial" => {
                wiring = Some(match value(flag)?.as_str() {
                    "socket" => QemuWiring::Socket,
                    "stdio" => QemuWiring::Stdio,
                    other => return Err(format!("--qemu-serial {other}: use socket or stdio")),
                });
            }
            "--qemu-bin" => qemu_bin = Some(value(flag)?),
            "--command" => {
                endpoints += 1;
                let line = value(flag)?;
                o.endpoint = Some(Endpoint::Command(
                    split_command_line(&line).map_err(|e| e.to_string())?,
                ));
            }
            "--timeout-ms" => o.timeout = Duration::from_millis(number(flag, &value(flag)?)?),
            "--on-invalid" => {
                let v = value(flag)?;
                o.on_invalid = OnInvalid::parse(&v)
                    .ok_or_else(|| format!("--on-invalid {v}: use error, warn or pass"))?;
            }
            "--reconnect-attempts" => o.reconnect_attempts = Some(number(flag, &value(flag)?)?),
            "--startup-retry-ms" => {
                o.startup_retry = Some(Duration::from_millis(number(flag, &value(flag)?)?));
            }
            "--protocol" => o.protocol = value(flag)?,
            "--json" => o.json = true,
            "-v" | "--verbose" => o.verbosity = o.verbosity.saturating_add(1),
            "-vv" => o.verbosity = o.verbosity.saturating_add(2),
            "--" => o.positional.extend(it.by_ref().cloned()),
            f if f.starts_with('-') && f.len() > 1 && o.positional.is_empty() => {
                return Err(format!("unknown option {f}"));
            }
            _ => o.positional.push(arg.clone()),
        }
    }
    if endpoints > 1 {
        return Err("give exactly one of --serial, --unix, --tcp, --qemu, --command".into());
    }
    match &mut o.endpoint {
        Some(Endpoint::Serial { baud: b, .. }) => *b = baud.unwrap_or(DEFAULT_BAUD),
        Some(Endpoint::Qemu(q)) => {
            if let Some(m) = machine {
                q.machine = m;
            }
            if let Some(w) = wiring {
                q.wiring = w;
            }
            if let Some(bin) = qemu_bin {
                q.program = bin;
            }
        }
        _ => {
            if baud.is_some() {
                return Err("--baud goes with --serial".into());
            }
            if machine.is_some() || wiring.is_some() || qemu_bin.is_some() {
                return Err("--machine, --qemu-serial and --qemu-bin go with --qemu".into());
            }
        }
    }
    Ok(o)
}

fn number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("{flag} {text}: not a valid number"))
}

fn usage_error(command: &str, message: &str) -> i32 {
    eprintln!("embedded-mcp {command}: {message}\n\n{USAGE}");
    FAILURE
}

fn endpoint(command: &str, o: &Options) -> Result<Endpoint, i32> {
    o.endpoint.clone().ok_or_else(|| {
        usage_error(
            command,
            "say where the device is (--serial, --unix, --tcp, --qemu or --command)",
        )
    })
}

/// `embedded-mcp bridge ...`: runs the MCP stdio server until stdin closes.
pub fn bridge_main(args: &[String]) -> i32 {
    let o = match parse(args) {
        Ok(o) => o,
        Err(e) => return usage_error("bridge", &e),
    };
    if let Some(extra) = o.positional.first() {
        return usage_error("bridge", &format!("unexpected argument {extra:?}"));
    }
    let endpoint = match endpoint("bridge", &o) {
        Ok(e) => e,
        Err(code) => return code,
    };
    let log = Logger::stderr(o.verbosity, "embedded-mcp bridge");
    if let Err(e) = child::stop_children_on_signals() {
        log.warn(format_args!("cannot install signal handlers: {e}"));
    }
    let mut config = BridgeConfig::new(endpoint);
    config.timeout = o.timeout;
    config.on_invalid = o.on_invalid;
    if let Some(n) = o.reconnect_attempts {
        config.reconnect.attempts = n;
    }
    if let Some(d) = o.startup_retry {
        config.startup_retry = d;
    }
    let outcome = bridge::run(config, std::io::stdin(), std::io::stdout(), log.clone());
    child::kill_all_children();
    match outcome {
        Ok(()) => OK,
        Err(e) => {
            log.warn(format_args!("{e}"));
            FAILURE
        }
    }
}

fn connect(command: &str, o: &Options) -> Result<Client, i32> {
    let endpoint = endpoint(command, o)?;
    let log = Logger::stderr(o.verbosity, &format!("embedded-mcp {command}"));
    // Ctrl-C or a kill must not leave QEMU or a --command child behind.
    if let Err(e) = child::stop_children_on_signals() {
        log.warn(format_args!("cannot install signal handlers: {e}"));
    }
    let options = ClientOptions {
        timeout: o.timeout,
        protocol: o.protocol.clone(),
        ..ClientOptions::default()
    };
    Client::connect(&endpoint, options, log).map_err(|e| {
        eprintln!("embedded-mcp {command}: {endpoint}: {e}");
        FAILURE
    })
}

fn transport_error(command: &str, e: &ClientError) -> i32 {
    eprintln!("embedded-mcp {command}: {e}");
    FAILURE
}

/// `embedded-mcp tools ...`: prints the device's tools as a table.
pub fn tools_main(args: &[String]) -> i32 {
    let o = match parse(args) {
        Ok(o) => o,
        Err(e) => return usage_error("tools", &e),
    };
    if let Some(extra) = o.positional.first() {
        return usage_error("tools", &format!("unexpected argument {extra:?}"));
    }
    let mut client = match connect("tools", &o) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let tools = match client.list_tools() {
        Ok(t) => t,
        Err(e) => return transport_error("tools", &e),
    };
    if o.json {
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

/// The readable table of `tools`.
pub fn render_tools(server: &Value, protocol: &str, tools: &[Value]) -> String {
    let mut out = String::new();
    let info = server.get("serverInfo").or_else(|| {
        server
            .get("_meta")
            .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"))
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

fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut + "…"
}

/// A one-line summary of a JSON Schema: `{a: number, b?: "x"|"y"}`, `[string]`, `integer 0..100`.
pub fn summarize(schema: &Value) -> String {
    one_line(&summary(schema, 0), 160)
}

fn summary(schema: &Value, depth: usize) -> String {
    let object = match schema {
        Value::Bool(true) => return "any".into(),
        Value::Bool(false) => return "nothing".into(),
        Value::Object(o) => o,
        _ => return "?".into(),
    };
    if depth > 3 {
        return "…".into();
    }
    if let Some(values) = object.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("|");
    }
    if let Some(value) = object.get("const") {
        return value.to_string();
    }
    if let Some(r) = object.get("$ref").and_then(Value::as_str) {
        return format!("<{r}>");
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = object.get(key).and_then(Value::as_array) {
            return options
                .iter()
                .map(|s| summary(s, depth + 1))
                .collect::<Vec<_>>()
                .join(" | ");
        }
    }
    let types: Vec<&str> = match object.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ if object.contains_key("properties") => vec!["object"],
        _ => Vec::new(),
    };
    if types.is_empty() {
        return "any".into();
    }
    types
        .iter()
        .map(|t| match *t {
            "object" => summarize_object(object, depth),
            "array" => match object.get("items") {
                Some(items) => format!("[{}]", summary(items, depth + 1)),
                None => "[any]".into(),
            },
            "number" | "integer" => {
                let min = object
                    .get("minimum")
                    .or_else(|| object.get("exclusiveMinimum"));
                let max = object
                    .get("maximum")
                    .or_else(|| object.get("exclusiveMaximum"));
                match (min, max) {
                    (None, None) => (*t).to_string(),
                    (min, max) => format!(
                        "{t} {}..{}",
                        min.map(Value::to_string).unwrap_or_default(),
                        max.map(Value::to_string).unwrap_or_default()
                    ),
                }
            }
            "string" => match object.get("format").and_then(Value::as_str) {
                Some(f) => format!("string({f})"),
                None => "string".into(),
            },
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join("|")
}

fn summarize_object(object: &serde_json::Map<String, Value>, depth: usize) -> String {
    let Some(properties) = object.get("properties").and_then(Value::as_object) else {
        return "{}".into();
    };
    let required: Vec<&str> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields: Vec<String> = properties
        .iter()
        .map(|(k, v)| {
            let optional = if required.contains(&k.as_str()) {
                ""
            } else {
                "?"
            };
            format!("{k}{optional}: {}", summary(v, depth + 1))
        })
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// Parses `key=value` arguments: the value is JSON when it parses as JSON, else a string.
pub fn parse_arguments(pairs: &[String]) -> Result<Value, String> {
    let mut arguments = serde_json::Map::new();
    for pair in pairs {
        let (key, text) = pair
            .split_once('=')
            .ok_or_else(|| format!("argument {pair:?} is not key=value"))?;
        if key.is_empty() {
            return Err(format!("argument {pair:?} has an empty key"));
        }
        let value = serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()));
        arguments.insert(key.to_string(), value);
    }
    Ok(Value::Object(arguments))
}

/// `embedded-mcp call ...`: calls one tool and prints both channels and the verdict.
pub fn call_main(args: &[String]) -> i32 {
    let o = match parse(args) {
        Ok(o) => o,
        Err(e) => return usage_error("call", &e),
    };
    let Some((tool, pairs)) = o.positional.split_first() else {
        return usage_error(
            "call",
            "which tool? (embedded-mcp call DEVICE TOOL key=value ...)",
        );
    };
    let arguments = match parse_arguments(pairs) {
        Ok(a) => a,
        Err(e) => return usage_error("call", &e),
    };
    let mut client = match connect("call", &o) {
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
        .any(|t| t.get("name").and_then(Value::as_str) == Some(tool.as_str()));
    if listed {
        if let Err(f) = checker.check_arguments(tool, &arguments) {
            eprintln!(
                "note: the arguments do not match the tool's inputSchema ({f}); calling anyway"
            );
        }
    }
    let response = match client.call_tool(tool, arguments) {
        Ok(r) => r,
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
            crate::bridge::catalog::rules_revision(&protocol),
            tool,
            &result,
        ) {
            Ok(())
                if tools
                    .iter()
                    .find(|t| t.get("name").and_then(Value::as_str) == Some(tool.as_str()))
                    .and_then(|t| t.get("outputSchema"))
                    .is_some() =>
            {
                Verdict::Valid
            }
            Ok(()) => Verdict::NoSchema,
            Err(f) => Verdict::Invalid(f.to_string()),
        }
    };
    if o.json {
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
    use serde_json::json;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options() {
        let o = parse(&strings(&[
            "--serial",
            "/dev/ttyACM0",
            "--baud=9600",
            "-vv",
            "read",
            "a=1",
        ]))
        .unwrap();
        assert_eq!(
            o.endpoint,
            Some(Endpoint::Serial {
                path: "/dev/ttyACM0".into(),
                baud: 9600
            })
        );
        assert_eq!((o.verbosity, o.positional.len()), (2, 2));
        let o = parse(&strings(&[
            "--qemu",
            "fw.elf",
            "--machine",
            "mps2-an386",
            "--qemu-serial=stdio",
        ]))
        .unwrap();
        let Some(Endpoint::Qemu(q)) = o.endpoint else {
            panic!()
        };
        assert_eq!(
            (q.machine, q.wiring),
            (Machine::Mps2An386, QemuWiring::Stdio)
        );
        assert!(parse(&strings(&["--unix", "a", "--tcp", "b:1"])).is_err());
        assert!(parse(&strings(&["--unix", "a", "--baud", "9"])).is_err());
        assert!(parse(&strings(&["--unix"])).is_err());
        assert!(parse(&strings(&["--bogus"])).is_err());
        assert!(parse(&strings(&["--on-invalid", "maybe"])).is_err());
    }

    #[test]
    fn arguments_are_json_when_they_parse() {
        assert_eq!(
            parse_arguments(&strings(&[
                "n=42",
                "b=true",
                "s=hello",
                "q=\"7\"",
                "o={\"a\":[1]}",
                "e="
            ]))
            .unwrap(),
            json!({"n": 42, "b": true, "s": "hello", "q": "7", "o": {"a": [1]}, "e": ""})
        );
        assert!(parse_arguments(&strings(&["novalue"])).is_err());
        assert!(parse_arguments(&strings(&["=1"])).is_err());
    }

    #[test]
    fn schema_summaries() {
        let s = json!({"type": "object", "properties": {
            "celsius": {"type": "number", "minimum": -40, "maximum": 125},
            "unit": {"enum": ["C", "F"]},
            "tags": {"type": "array", "items": {"type": "string"}}
        }, "required": ["celsius"]});
        assert_eq!(
            summarize(&s),
            r#"{celsius: number -40..125, tags?: [string], unit?: "C"|"F"}"#
        );
        assert_eq!(
            summarize(&json!({"type": ["integer", "null"]})),
            "integer|null"
        );
        assert_eq!(summarize(&json!(true)), "any");
    }

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
