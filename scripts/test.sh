#!/usr/bin/env bash
# Runs every check and test of the project. On a fresh machine it first installs what it needs
# (scripts/setup.sh: Rust targets, llvm-tools, QEMU; the client tests make their own venv and
# npm folder). This is the command README.md names and .ci/run calls.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# Every vector the tests read is vendored under tests/vectors (see its README); nothing here
# reads a folder beside the checkout.

step() { printf '\n==> %s\n' "$*" >&2; }

step "setup"
bash scripts/setup.sh

step "format"
cargo fmt --all --check
for fw in examples/qemu-sensors examples/m4f-smoke; do
    (cd "$fw" && cargo fmt --check)
done

step "clippy (warnings denied; the core also denies unwrap/expect/panic/indexing outside tests)"
cargo clippy --workspace --all-targets -- -D warnings

step "clippy of the firmware crates (outside the workspace: other targets)"
for fw in examples/qemu-sensors examples/m4f-smoke; do
    (cd "$fw" && cargo clippy -q -- -D warnings)
done

step "docs (warnings denied)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p embedded-mcp -p embedded-mcp-std

step "no_std builds of the core"
for target in thumbv6m-none-eabi thumbv7em-none-eabihf riscv32imac-unknown-none-elf; do
    cargo build -q -p embedded-mcp --target "$target"
    cargo build -q -p embedded-mcp --target "$target" --features defmt
    cargo build -q -p embedded-mcp --target "$target" --no-default-features
    cargo build -q -p embedded-mcp --target "$target" --features defmt,pattern,compact-float
done

step "core unit tests without the default features (no validator)"
cargo test -q -p embedded-mcp --no-default-features --lib

step "tests (unit, integration, official vectors, QEMU sessions)"
cargo test --workspace --exclude embedded-mcp-benches

step "firmware size against the recorded baseline (fails past +5 %)"
bash benches/size-check.sh

if [ -f tests/clients/run.sh ]; then
    step "real MCP clients through the bridge"
    bash tests/clients/run.sh
fi

step "fuzz: each of the 7 targets 45 s from the checked-in seeds (cargo-fuzz, nightly)"
# Not `grep -q`: with pipefail, grep leaving early could fail the pipeline on SIGPIPE.
if ! rustup toolchain list | grep nightly >/dev/null; then
    rustup toolchain install nightly --profile minimal
fi
# FUZZ_KEEP_CORPUS=0: fuzz/corpus/ is only read; what the runs find goes to a temporary folder,
# so the checkout keeps just the seeds (a crash's reproducer goes to fuzz/artifacts/<target>/).
# Its last line, "fuzz: N passed, M failed", is the closing line of this script.
FUZZ_KEEP_CORPUS=0 bash fuzz/run.sh 45
