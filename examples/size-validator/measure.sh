#!/bin/sh
# Regenerates program.bin with the host CLI, builds the firmwares and prints their sizes with
# llvm-size (flash use is text + data), then runs the stack probe under QEMU.
set -eu
cd "$(dirname "$0")"
(cd ../.. && cargo run --quiet -p embedded-mcp-std --bin embedded-mcp -- \
    schema compile examples/size-validator/schema.json -o examples/size-validator/program.bin)
SIZE="$(rustc --print sysroot)/lib/rustlib/x86_64-unknown-linux-gnu/bin/llvm-size"
cargo build --release --quiet
for bin in baseline compile-validate load-validate; do
    "$SIZE" "target/thumbv7m-none-eabi/release/$bin" | tail -n 1
done
cargo run --release --quiet --bin stack-probe
