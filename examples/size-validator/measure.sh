#!/bin/sh
# Regenerates program.bin with the host CLI, builds the firmwares (without, then with the core's
# `pattern` feature) and prints their sizes with llvm-size (flash use is text + data), then runs
# the stack probe under QEMU, without and with `pattern` (its regular-expression cases need it).
set -eu
cd "$(dirname "$0")"
(cd ../.. && cargo run --quiet -p embedded-mcp-std --bin embedded-mcp -- \
    schema compile examples/size-validator/schema.json -o examples/size-validator/program.bin)
SIZE="$(rustc --print sysroot)/lib/rustlib/x86_64-unknown-linux-gnu/bin/llvm-size"
cargo build --release --quiet
for bin in baseline compile-validate load-validate; do
    "$SIZE" "target/thumbv7m-none-eabi/release/$bin" | tail -n 1
done
echo "with --features pattern:"
cargo build --release --quiet --features pattern
for bin in compile-validate load-validate; do
    "$SIZE" "target/thumbv7m-none-eabi/release/$bin" | tail -n 1
done
echo "stack probe, default features:"
cargo run --release --quiet --bin stack-probe
echo "stack probe, --features pattern:"
cargo run --release --quiet --features pattern --bin stack-probe
