//! Command-line front end of `embedded-mcp`.
//!
//! Exit codes follow one rule everywhere: 0 ok, 1 a negative verdict (invalid instance, tool
//! error), 2 usage, input or transport error.

use std::ffi::OsString;

pub mod device_cmds;
pub mod schema;

/// Runs the CLI with `args` (without the program name) and returns the process exit code.
pub fn main(args: Vec<OsString>) -> i32 {
    let args: Vec<String> = args
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    match args.first().map(String::as_str) {
        Some("--version") | Some("-V") => {
            println!("embedded-mcp {}", env!("CARGO_PKG_VERSION"));
            0
        }
        Some("help") | Some("--help") | Some("-h") | None => {
            print_usage();
            if args.is_empty() {
                2
            } else {
                0
            }
        }
        Some("schema") => schema::schema_main(args.get(1..).unwrap_or_default()),
        Some("bridge") => device_cmds::bridge_main(args.get(1..).unwrap_or_default()),
        Some("tools") => device_cmds::tools_main(args.get(1..).unwrap_or_default()),
        Some("call") => device_cmds::call_main(args.get(1..).unwrap_or_default()),
        Some(other) => {
            eprintln!("embedded-mcp: unknown command `{other}`");
            print_usage();
            2
        }
    }
}

fn print_usage() {
    eprintln!("usage: embedded-mcp <command> [options]\n\ncommands:\n  schema check|compile|validate   the output-schema dialect tools\n  tools                           list a device's tools\n  call                            call one tool on a device\n  bridge                          MCP stdio server forwarding to a device");
}
