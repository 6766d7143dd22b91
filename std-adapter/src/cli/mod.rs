//! Command-line front end of `embedded-mcp`.
//!
//! Exit codes follow one rule everywhere: 0 ok, 1 a negative verdict (invalid instance, tool
//! error), 2 usage, input or transport error.

use std::ffi::OsString;

pub mod device_cmds;
pub mod schema;
pub mod usage;

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
        Some("help") | Some("--help") | Some("-h") => {
            println!("{}", usage::top_level());
            0
        }
        None => {
            print_usage();
            2
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

/// The usage on stderr (after a usage error).
fn print_usage() {
    eprintln!("{}", usage::top_level());
}
