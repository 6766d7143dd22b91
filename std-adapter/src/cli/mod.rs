//! Command-line front end of `embedded-mcp`, on clap (derive): [`Cli`] is the whole command
//! line; `--help`, every subcommand's help, usage errors and suggestions for mistyped options
//! come from it.
//!
//! Exit codes follow one rule everywhere: 0 ok, 1 a negative verdict (invalid instance, tool
//! error), 2 usage, input or transport error (clap's usage errors exit 2 as well).

use std::ffi::OsString;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};

pub mod completions;
pub mod device_cmds;
pub mod new;
pub mod schema;

use device_cmds::args::{BridgeArgs, CallArgs, ToolsArgs};
use device_cmds::{CodegenArgs, UsageError};

/// The program's name, as its help and completions spell it.
pub const PROGRAM: &str = "embedded-mcp";

/// `embedded-mcp`: the command line.
#[derive(Parser, Debug)]
#[command(
    name = PROGRAM,
    version,
    about = "List, call and bridge the MCP tools of a microcontroller",
    after_help = "Exit codes: 0 ok, 1 tool error or invalid result, 2 usage, input or transport error."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// The schema dialect tools
    #[command(subcommand)]
    Schema(schema::SchemaCommand),
    /// List a device's tools
    Tools(ToolsArgs),
    /// Call one tool on a device
    Call(CallArgs),
    /// MCP stdio server (or HTTP, with --http) forwarding to a device
    Bridge(BridgeArgs),
    /// Typed TypeScript, Python or Rust functions for a device's tools
    Codegen(CodegenArgs),
    /// Print shell completions (bash, zsh, fish, elvish, powershell) on stdout
    Completions(completions::CompletionsArgs),
    /// Write a new firmware crate that serves two example tools and builds as written
    New(new::NewArgs),
}

/// Runs the CLI with `args` (without the program name) and returns the process exit code.
pub fn main(args: Vec<OsString>) -> i32 {
    let line = std::iter::once(OsString::from(PROGRAM)).chain(args);
    let cli = match Cli::try_parse_from(line) {
        Ok(cli) => cli,
        // `--help` and `--version` too: clap prints them on stdout and says exit 0.
        Err(e) => return report(&e),
    };
    let (name, outcome) = match &cli.command {
        Command::Schema(command) => return schema::schema_main(command.clone()),
        Command::Completions(args) => {
            return completions::print(args.shell, &mut Cli::command(), &mut std::io::stdout())
        }
        Command::New(args) => return new::new_main(args),
        Command::Tools(args) => ("tools", device_cmds::tools_main(args)),
        Command::Call(args) => ("call", device_cmds::call_main(args)),
        Command::Bridge(args) => ("bridge", device_cmds::bridge_main(args)),
        Command::Codegen(args) => ("codegen", device_cmds::codegen_main(args)),
    };
    outcome.unwrap_or_else(|e| refuse(name, &e))
}

/// Prints a command line the device command `name` refused, as clap prints its own usage
/// errors (with that command's usage); returns the exit code, 2.
fn refuse(name: &str, error: &UsageError) -> i32 {
    let mut cli = Cli::command();
    cli.build();
    let e = match cli.find_subcommand_mut(name) {
        Some(command) => command.error(ErrorKind::ValueValidation, error),
        None => cli.error(ErrorKind::ValueValidation, error),
    };
    report(&e)
}

/// Prints clap's message (help and version on stdout, errors on stderr); returns its exit code.
fn report(e: &clap::Error) -> i32 {
    // Nothing more can be said when stdout or stderr is gone.
    let _ = e.print();
    e.exit_code()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `embedded-mcp SUBCOMMAND --help`, as clap renders it.
    fn help_of(subcommand: &str) -> String {
        let mut cli = Cli::command();
        cli.build();
        match cli.find_subcommand_mut(subcommand) {
            Some(command) => command.render_help().to_string(),
            None => panic!("no subcommand {subcommand}"),
        }
    }

    /// The synopsis in `BRIDGE.md` is clap's help of `bridge` and of `call`, verbatim.
    #[test]
    fn bridge_md_shows_the_help_of_bridge_and_call() {
        let doc = include_str!("../../BRIDGE.md");
        for subcommand in ["bridge", "call"] {
            let block = format!(
                "```text\n$ embedded-mcp {subcommand} --help\n{}```",
                help_of(subcommand)
            );
            assert!(
                doc.contains(&block),
                "BRIDGE.md must contain the help of {subcommand} verbatim:\n{block}"
            );
        }
    }

    /// clap's own consistency checks (ids, groups, conflicts) on the whole command line.
    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    fn parse(line: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once(PROGRAM).chain(line.iter().copied()))
    }

    #[test]
    fn every_device_option_keeps_its_spelling_and_meaning() {
        use crate::bridge::{OnInvalid, Pages};
        use crate::device::{Endpoint, Machine, QemuWiring};
        let Ok(Cli {
            command: Command::Call(call),
        }) = parse(&[
            "call",
            "--serial",
            "/dev/ttyACM0",
            "--baud=9600",
            "-vv",
            "--timeout-ms",
            "300",
            "--protocol",
            "2026-07-28",
            "--json",
            "read",
            "a=1",
            "b=x",
        ])
        else {
            panic!("call refused")
        };
        assert_eq!(
            call.device.endpoint(),
            Some(Endpoint::Serial {
                path: "/dev/ttyACM0".into(),
                baud: 9600
            })
        );
        assert_eq!(call.device.verbosity(), 2);
        assert_eq!(call.device.timeout().as_millis(), 300);
        assert_eq!(call.client.protocol, "2026-07-28");
        assert!(call.client.json);
        assert_eq!(call.tool, "read");
        assert_eq!(call.arguments.len(), 2);
        let Ok(Cli {
            command: Command::Tools(tools),
        }) = parse(&[
            "tools",
            "--qemu",
            "fw.elf",
            "--machine",
            "mps2-an386",
            "--qemu-serial=stdio",
            "--qemu-bin",
            "qemu-x",
            "--verbose",
        ])
        else {
            panic!("tools refused")
        };
        let Some(Endpoint::Qemu(q)) = tools.device.endpoint() else {
            panic!("not qemu")
        };
        assert_eq!(
            (
                q.machine,
                q.wiring,
                q.program.as_str(),
                tools.device.verbosity()
            ),
            (Machine::Mps2An386, QemuWiring::Stdio, "qemu-x", 1)
        );
        assert_eq!(
            tools.client.protocol,
            crate::device::client::DEFAULT_PROTOCOL
        );
        let Ok(Cli {
            command: Command::Tools(tools),
        }) = parse(&["tools", "--qemu", "fw.elf", "--machine", "microbit"])
        else {
            panic!("--machine microbit refused")
        };
        let Some(Endpoint::Qemu(q)) = tools.device.endpoint() else {
            panic!("not qemu")
        };
        assert_eq!(q.machine, Machine::Microbit);
        let Ok(Cli {
            command: Command::Bridge(bridge),
        }) = parse(&[
            "bridge",
            "--command",
            "dev --flag 'a b'",
            "--on-invalid",
            "warn",
            "--reconnect-attempts",
            "3",
            "--startup-retry-ms",
            "50",
            "--max-call-ms",
            "90000",
            "--pages",
            "device",
            "--http",
            "8080",
            "--token-file",
            "t",
            "--allowed-origin",
            "o1",
            "--allowed-origin",
            "o2",
            "-v",
        ])
        else {
            panic!("bridge refused")
        };
        assert_eq!(
            bridge.device.endpoint(),
            Some(Endpoint::Command(vec![
                "dev".into(),
                "--flag".into(),
                "a b".into()
            ]))
        );
        assert_eq!(bridge.on_invalid, OnInvalid::Warn);
        assert_eq!(
            (
                bridge.reconnect_attempts,
                bridge.startup_retry_ms,
                bridge.pages
            ),
            (Some(3), Some(50), Pages::Device)
        );
        assert_eq!(
            bridge.http.http.map(|a| a.to_string()).as_deref(),
            Some("127.0.0.1:8080")
        );
        assert_eq!(bridge.http.allowed_origins, ["o1", "o2"]);
        assert!(!bridge.http.allow_unauthenticated);
        assert_eq!(bridge.device.timeout().as_millis(), 10_000);
        assert_eq!(bridge.max_call_ms, 90_000);
        let Ok(Cli {
            command: Command::Bridge(hub),
        }) = parse(&[
            "bridge",
            "--device",
            "m1=serial:/dev/ttyACM0@9600",
            "--device",
            "b=tcp:127.0.0.1:7000",
        ])
        else {
            panic!("hub refused")
        };
        assert_eq!(hub.device.endpoint(), None);
        assert_eq!(hub.device.link.devices.len(), 2);
        assert_eq!(hub.pages, Pages::One);
    }

    #[test]
    fn refusals_are_clap_usage_errors() {
        for line in [
            &["bridge"][..],
            &["bridge", "--unix", "a", "--tcp", "b:1"],
            &["bridge", "--unix", "a", "--baud", "9"],
            &["bridge", "--unix", "a", "--machine", "mps2-an386"],
            &["bridge", "--unix"],
            &["bridge", "--unix", "a", "--bogus"],
            &["bridge", "--unix", "a", "--on-invalid", "maybe"],
            &["bridge", "--unix", "a", "--token-file", "t"],
            &["bridge", "--unix", "a", "--allow-unauthenticated"],
            &["bridge", "--unix", "a", "--device", "x=unix:/x"],
            &["bridge", "--device", "a.b=unix:/x"],
            &["bridge", "--unix", "a", "--http", "nope"],
            &["tools", "--unix", "a", "extra"],
            &["tools", "--unix", "a", "--on-invalid", "warn"],
            &["call", "--unix", "a"],
            &["call", "--unix", "a", "echo", "novalue"],
            &["call", "--unix", "a", "echo", "=1"],
            &["call", "--command", "'unclosed", "echo"],
            &[
                "schema", "validate", "s.json", "i.json", "--engine", "other",
            ],
            &["completions", "tcsh"],
        ] {
            let e = parse(line)
                .err()
                .unwrap_or_else(|| panic!("{line:?} accepted"));
            assert_eq!(e.exit_code(), 2, "{line:?}");
        }
        let e = parse(&["bridge", "--unix", "a", "--timout-ms", "5"]).err();
        let text = e.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            text.contains("tip: a similar argument exists: '--timeout-ms'"),
            "{text}"
        );
    }
}
