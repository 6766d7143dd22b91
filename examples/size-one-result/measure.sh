#!/bin/sh
# Builds the three firmwares (three times: ryu's default tables, ryu's `small` tables, the core's
# table-free `compact-float` formatter) and prints their sizes with llvm-size. Flash use is
# text + data.
set -eu
cd "$(dirname "$0")"
SIZE="$(rustc --print sysroot)/lib/rustlib/x86_64-unknown-linux-gnu/bin/llvm-size"
for features in "" "small-float-tables" "compact-float"; do
    cargo build --release --quiet ${features:+--features "$features"}
    echo "features: ${features:-default}"
    for bin in baseline result-ints result-f32; do
        "$SIZE" "target/thumbv7m-none-eabi/release/$bin" | tail -n 1
    done
done
