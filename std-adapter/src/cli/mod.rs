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
pub mod schema;

use device_cmds::args::{BridgeArgs, CallArgs, ToolsArgs};
use device_cmds::UsageError;

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
    /// Print shell completions (bash, zsh, fish, elvish, powershell) on stdout
    Completions(completions::CompletionsArgs),
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
        Command::Tools(args) => ("tools", device_cmds::tools_main(args)),
        Command::Call(args) => ("call", device_cmds::call_main(args)),
        Command::Bridge(args) => ("bridge", device_cmds::bridge_main(args)),
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
