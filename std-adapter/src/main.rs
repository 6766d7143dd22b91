//! The `embedded-mcp` command: schema tools, tool listing and calls, and the host bridge.

fn main() {
    std::process::exit(embedded_mcp_std::cli::main(
        std::env::args_os().skip(1).collect(),
    ));
}
