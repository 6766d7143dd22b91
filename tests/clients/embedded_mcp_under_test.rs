//! `embedded-mcp-under-test`: the `embedded-mcp` command built inside the tests package, so that
//! integration tests get its path from Cargo (`CARGO_BIN_EXE_embedded-mcp-under-test`) without
//! building another package. Same entry point as `std-adapter/src/main.rs`.

fn main() {
    std::process::exit(embedded_mcp_std::cli::main(
        std::env::args_os().skip(1).collect(),
    ));
}
