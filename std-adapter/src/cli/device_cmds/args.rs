//! The options of `bridge`, `tools` and `call`, declared for clap (derive): where the device is
//! ([`Link`], [`DeviceArgs`]), the client's options ([`ClientArgs`]) and the bridge's
//! ([`BridgeArgs`], [`HttpArgs`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{ArgAction, Args};
use serde_json::Value;

use super::hub_link;
use crate::bridge::http::HttpConfig;
use crate::bridge::tasks::{NamedTool, TaskTools};
use crate::bridge::{HubDevice, OnInvalid, Pages};
use crate::device::client::DEFAULT_PROTOCOL;
use crate::device::{
    log::Verbosity, split_command_line, Endpoint, Machine, QemuConfig, QemuWiring, DEFAULT_BAUD,
};

/// Help heading of the device's options.
const DEVICE: &str = "Device (exactly one; --device may repeat)";
/// Help heading of the HTTP front's options.
const HTTP_FRONT: &str = "HTTP front (instead of stdio)";

/// The device options `--machine`, `--qemu-serial` and `--qemu-bin` cannot go with (a `requires
/// = "qemu"` would be met by any other device of the group).
const NOT_QEMU: [&str; 5] = ["serial", "unix", "tcp", "command", "devices"];

/// Notes after the device commands' help.
const NOTES: &str = "\
LINK is serial:PATH[@BAUD], tcp:HOST:PORT, unix:PATH, qemu:FIRMWARE.elf or, for bridge, a gateway
http(s)://HOST:PORT/PATH[#token-file=PATH&ca-file=PATH]; NAME (letters, digits, _ and -) names
the device: its tools are NAME.tool.
Logs go to stderr (RUST_LOG, when set, filters them instead of -v); stdout carries only MCP.
Exit codes: 0 ok, 1 tool error or invalid result, 2 usage or transport error.";

/// Where the device is: exactly one of these (`--device` may be repeated: a hub).
#[derive(Args, Debug, Clone)]
#[group(id = "DEVICE", required = true, multiple = false)]
#[command(next_help_heading = DEVICE)]
pub struct Link {
    /// A serial port (8N1)
    #[arg(long, value_name = "PATH")]
    pub serial: Option<PathBuf>,
    /// A unix stream socket
    #[arg(long, value_name = "PATH")]
    pub unix: Option<PathBuf>,
    /// A TCP connection
    #[arg(long, value_name = "HOST:PORT")]
    pub tcp: Option<String>,
    /// Run the firmware under QEMU (stopped when we exit)
    #[arg(long, value_name = "FIRMWARE.elf")]
    pub qemu: Option<PathBuf>,
    /// A child process speaking MCP on stdin/stdout
    #[arg(long, value_name = "\"PROGRAM ARGS\"", value_parser = command_line)]
    pub command: Option<CommandLine>,
    /// A device of a hub; its tools are NAME.tool (LINK below)
    #[arg(long = "device", value_name = "NAME=LINK", value_parser = hub_link::parse_device)]
    pub devices: Vec<HubDevice>,
}

/// `--command`'s program and arguments, split as a shell would split simple words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine(pub Vec<String>);

fn command_line(text: &str) -> Result<CommandLine, String> {
    split_command_line(text)
        .map(CommandLine)
        .map_err(|e| e.to_string())
}

/// The device ([`Link`]) and how to reach it; shared by the three commands.
#[derive(Args, Debug, Clone)]
pub struct DeviceArgs {
    /// Where the device is.
    #[command(flatten)]
    pub link: Link,
    /// The serial port's baud rate [default: 115200]
    #[arg(long, value_name = "N", conflicts_with_all = ["unix", "tcp", "qemu", "command", "devices"], help_heading = None)]
    pub baud: Option<u32>,
    /// lm3s6965evb (default), mps2-an386 or microbit (for ARMv6-M ELFs)
    #[arg(long, value_name = "BOARD", hide_possible_values = true, conflicts_with_all = NOT_QEMU, value_parser = machine(), help_heading = None)]
    pub machine: Option<Machine>,
    /// How QEMU's UART is wired to us
    #[arg(long = "qemu-serial", value_name = "socket|stdio", hide_possible_values = true, conflicts_with_all = NOT_QEMU, value_parser = wiring(), help_heading = None)]
    pub qemu_serial: Option<QemuWiring>,
    /// QEMU [default: $EMBEDDED_MCP_QEMU or qemu-system-arm]
    #[arg(long = "qemu-bin", value_name = "PROGRAM", conflicts_with_all = NOT_QEMU, help_heading = None)]
    pub qemu_bin: Option<String>,
    /// Wait for each answer at most N ms
    #[arg(long = "timeout-ms", value_name = "N", default_value_t = 10_000, help_heading = None)]
    pub timeout_ms: u64,
    /// Logs on stderr: -v connection events, -vv every message
    #[arg(short, long, action = ArgAction::Count, help_heading = None)]
    pub verbose: u8,
}

fn machine() -> impl TypedValueParser<Value = Machine> {
    PossibleValuesParser::new(["lm3s6965evb", "mps2-an386", "microbit"])
        .try_map(|name| Machine::parse(&name).ok_or("not a board"))
}

fn wiring() -> impl TypedValueParser<Value = QemuWiring> {
    PossibleValuesParser::new(["socket", "stdio"]).try_map(|name| match name.as_str() {
        "socket" => Ok(QemuWiring::Socket),
        "stdio" => Ok(QemuWiring::Stdio),
        _ => Err("not a wiring"),
    })
}

impl DeviceArgs {
    /// The single device, or `None` for a hub (`--device`).
    pub fn endpoint(&self) -> Option<Endpoint> {
        let link = &self.link;
        if let Some(path) = &link.serial {
            return Some(Endpoint::Serial {
                path: path.clone(),
                baud: self.baud.unwrap_or(DEFAULT_BAUD),
            });
        }
        if let Some(path) = &link.unix {
            return Some(Endpoint::Unix(path.clone()));
        }
        if let Some(address) = &link.tcp {
            return Some(Endpoint::Tcp(address.clone()));
        }
        if let Some(CommandLine(argv)) = &link.command {
            return Some(Endpoint::Command(argv.clone()));
        }
        let firmware = link.qemu.as_ref()?;
        let mut qemu = QemuConfig::new(firmware);
        if let Some(machine) = self.machine {
            qemu.machine = machine;
        }
        if let Some(wiring) = self.qemu_serial {
            qemu.wiring = wiring;
        }
        if let Some(program) = &self.qemu_bin {
            qemu.program = program.clone();
        }
        Some(Endpoint::Qemu(qemu))
    }

    /// `--timeout-ms`.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    /// `-v` counted.
    pub fn verbosity(&self) -> Verbosity {
        self.verbose
    }
}

/// The options of the client commands (`tools`, `call`).
#[derive(Args, Debug, Clone)]
pub struct ClientArgs {
    /// Protocol revision to ask for
    #[arg(long, value_name = "VERSION", default_value = DEFAULT_PROTOCOL, help_heading = None)]
    pub protocol: String,
    /// Print the raw JSON, for scripts
    #[arg(long, help_heading = None)]
    pub json: bool,
}

/// `embedded-mcp tools`: list a device's tools.
#[derive(Args, Debug, Clone)]
#[command(override_usage = "embedded-mcp tools DEVICE [OPTIONS]", after_help = NOTES)]
pub struct ToolsArgs {
    /// The device.
    #[command(flatten)]
    pub device: DeviceArgs,
    /// The client's options.
    #[command(flatten)]
    pub client: ClientArgs,
}

/// `embedded-mcp call`: call one tool on a device.
#[derive(Args, Debug, Clone)]
#[command(
    override_usage = "embedded-mcp call DEVICE [OPTIONS] TOOL [key=value]...",
    after_help = NOTES
)]
pub struct CallArgs {
    /// The device.
    #[command(flatten)]
    pub device: DeviceArgs,
    /// The client's options.
    #[command(flatten)]
    pub client: ClientArgs,
    /// Approve what the device asks a person first (else `call` asks on the terminal)
    #[arg(long, help_heading = None)]
    pub yes: bool,
    /// The tool to call (with --device: NAME.tool)
    #[arg(value_name = "TOOL", help_heading = None)]
    pub tool: String,
    /// The tool's arguments (values: JSON, else strings)
    #[arg(value_name = "key=value", value_parser = argument, help_heading = None)]
    pub arguments: Vec<(String, Value)>,
}

/// Parses one `key=value` argument of `call`: the value is JSON when it parses as JSON, else a
/// string.
pub fn argument(pair: &str) -> Result<(String, Value), String> {
    let (key, text) = pair
        .split_once('=')
        .ok_or_else(|| format!("argument {pair:?} is not key=value"))?;
    if key.is_empty() {
        return Err(format!("argument {pair:?} has an empty key"));
    }
    let value = serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()));
    Ok((key.to_owned(), value))
}

/// `embedded-mcp bridge`: the MCP server in front of a device.
#[derive(Args, Debug, Clone)]
#[command(override_usage = "embedded-mcp bridge DEVICE [OPTIONS]", after_help = NOTES)]
pub struct BridgeArgs {
    /// The device.
    #[command(flatten)]
    pub device: DeviceArgs,
    /// A result that breaks its outputSchema
    #[arg(
        long = "on-invalid",
        value_name = "error|warn|pass",
        hide_possible_values = true,
        default_value = "error",
        value_parser = on_invalid(),
        help_heading = None
    )]
    pub on_invalid: OnInvalid,
    /// Reconnections of a lost device before a pause
    #[arg(long = "reconnect-attempts", value_name = "N", help_heading = None)]
    pub reconnect_attempts: Option<u32>,
    /// How long to retry the first connection, in milliseconds
    #[arg(long = "startup-retry-ms", value_name = "N", help_heading = None)]
    pub startup_retry_ms: Option<u64>,
    /// Hard cap on a call, progress or not, in ms
    #[arg(long = "max-call-ms", value_name = "N", default_value_t = 60_000, help_heading = None)]
    pub max_call_ms: u64,
    /// How long a person may take to answer a device's question
    #[arg(long = "input-timeout-ms", value_name = "N", default_value_t = 120_000, help_heading = None)]
    pub input_timeout_ms: u64,
    /// tools/list: one page, or the device's pages
    #[arg(long, value_name = "one|device", hide_possible_values = true, default_value = "one", value_parser = pages(), help_heading = None)]
    pub pages: Pages,
    /// Tools run as tasks (NAME[=OPT[+OPT]],... OPT: required, ask-first) beyond firmware marks
    #[arg(long = "task-tools", value_name = "all|LIST", value_parser = task_tools, help_heading = None)]
    pub task_tools: Option<TaskTools>,
    /// How long a task and its result are kept, in ms
    #[arg(long = "task-ttl-ms", value_name = "N", default_value_t = 3_600_000, value_parser = clap::value_parser!(u64).range(1..), help_heading = None)]
    pub task_ttl_ms: u64,
    /// Most tasks held at once, finished ones included
    #[arg(long = "max-tasks", value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..), help_heading = None)]
    pub max_tasks: u64,
    /// The HTTP front.
    #[command(flatten)]
    pub http: HttpArgs,
}

fn on_invalid() -> impl TypedValueParser<Value = OnInvalid> {
    PossibleValuesParser::new(["error", "warn", "pass"])
        .try_map(|text| OnInvalid::parse(&text).ok_or("not a choice"))
}

fn task_tools(text: &str) -> Result<TaskTools, String> {
    if text == "all" {
        return Ok(TaskTools::All);
    }
    const SHAPE: &str = "a tool is NAME, NAME=required, NAME=ask-first or NAME=required+ask-first";
    let named = text.split(',').map(|item| {
        let (name, options) = match item.split_once('=') {
            Some((name, options)) => (name, options.split('+').collect()),
            None => (item, Vec::new()),
        };
        if name.is_empty() {
            return Err(format!("use all, or tools separated by commas ({SHAPE})"));
        }
        let (mut required, mut ask_first) = (false, false);
        for option in options {
            let flag = match option {
                "required" => &mut required,
                "ask-first" => &mut ask_first,
                _ => return Err(format!("{item:?}: {SHAPE}")),
            };
            if *flag {
                return Err(format!("{item:?}: {option} given twice"));
            }
            *flag = true;
        }
        Ok(NamedTool {
            name: name.to_owned(),
            required,
            ask_first,
        })
    });
    named.collect::<Result<_, _>>().map(TaskTools::Named)
}

fn pages() -> impl TypedValueParser<Value = Pages> {
    PossibleValuesParser::new(["one", "device"]).try_map(|text| match text.as_str() {
        "one" => Ok(Pages::One),
        "device" => Ok(Pages::Device),
        _ => Err("not a choice"),
    })
}

/// The HTTP front of `bridge`.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = HTTP_FRONT)]
pub struct HttpArgs {
    /// Serve MCP Streamable HTTP at http://ADDR:PORT/mcp
    #[arg(long, value_name = "ADDR:PORT", value_parser = bind, help_heading = HTTP_FRONT)]
    pub http: Option<SocketAddr>,
    /// Clients must send Authorization: Bearer TOKEN, the file's
    #[arg(long = "token-file", value_name = "PATH", requires = "http", help_heading = HTTP_FRONT)]
    pub token_file: Option<PathBuf>,
    /// A browser origin let in (repeatable)
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http", help_heading = HTTP_FRONT)]
    pub allowed_origins: Vec<String>,
    /// Listen beyond loopback without --token-file (warns)
    #[arg(long = "allow-unauthenticated", requires = "http", help_heading = HTTP_FRONT)]
    pub allow_unauthenticated: bool,
    /// A Host a proxy sends, let in (repeatable)
    #[arg(long = "allowed-host", value_name = "HOST:PORT", value_parser = allowed_host, requires = "http", help_heading = HTTP_FRONT)]
    pub allowed_hosts: Vec<String>,
}

/// `--allowed-host`: a `Host` header's value (`HOST:PORT`, or `HOST` for the default port).
fn allowed_host(text: &str) -> Result<String, String> {
    let ok = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-_:[]".contains(&b));
    ok.then(|| text.to_owned())
        .ok_or_else(|| "use HOST:PORT as the proxy sends it in Host (or HOST)".to_owned())
}

fn bind(text: &str) -> Result<SocketAddr, String> {
    HttpConfig::parse_bind(text).ok_or_else(|| "use PORT, ADDR:PORT or [V6ADDR]:PORT".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, required: bool, ask_first: bool) -> NamedTool {
        NamedTool {
            name: name.into(),
            required,
            ask_first,
        }
    }

    #[test]
    fn task_tools_take_required_and_ask_first_joined_by_plus() {
        assert_eq!(task_tools("all"), Ok(TaskTools::All));
        assert_eq!(
            task_tools("a,b=required,c=ask-first,d=required+ask-first,e=ask-first+required"),
            Ok(TaskTools::Named(vec![
                tool("a", false, false),
                tool("b", true, false),
                tool("c", false, true),
                tool("d", true, true),
                tool("e", true, true),
            ]))
        );
        let shape = "a tool is NAME, NAME=required, NAME=ask-first or NAME=required+ask-first";
        assert_eq!(task_tools("a=later"), Err(format!("\"a=later\": {shape}")));
        assert_eq!(task_tools("a="), Err(format!("\"a=\": {shape}")));
        assert_eq!(
            task_tools("a=required+required"),
            Err("\"a=required+required\": required given twice".to_owned())
        );
        assert_eq!(
            task_tools("a,,b"),
            Err(format!("use all, or tools separated by commas ({shape})"))
        );
    }
}
