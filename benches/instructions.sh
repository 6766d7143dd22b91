#!/usr/bin/env bash
# Instructions per `tools/call` of the QEMU firmware's `read_temperature` tool, split into
# phases, counted by valgrind (cachegrind, no cache simulation: it counts every instruction
# executed, the same on every run). Prints a markdown table.
#
#   benches/instructions.sh            # host: phases, ryu and the core's compact-float formatter
#   benches/instructions.sh --qemu     # device: whole calls, Thumb-2 instructions under QEMU
#   OPTS=z benches/instructions.sh --qemu   # the same for opt-level "z" only
#
# --qemu builds examples/size-one-tool with its `icount` feature for thumbv7m-none-eabi (the
# same tool and request; opt-level z, s and 3; ryu and compact-float) and boots it under
# `qemu-system-arm -icount shift=0`, where SysTick counts executed instructions (calibrated by
# a loop of known length, see examples/size-one-tool/src/icount.rs).
#
# For each phase, `call_phases PHASE N ERA` runs N times after the same set-up; the count per
# call is (instructions with N = 1000 - instructions with N = 0) / 1000. The binary is
# benches/src/bin/call_phases.rs (release profile). The counts are x86-64 instructions of the
# host build of the same engine code; a Cortex-M executes a comparable number of Thumb-2
# instructions (see benches/RESULTS.md for the comparison with a count under QEMU).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v valgrind >/dev/null || {
    echo "instructions: valgrind not found (apt-get install valgrind)" >&2
    exit 1
}
N=${N:-1000}

if [ "${1:-}" = "--qemu" ]; then
    command -v qemu-system-arm >/dev/null || {
        echo "instructions: qemu-system-arm not found" >&2
        exit 1
    }
    cd "$root/examples/size-one-tool"
    echo "| opt-level | float formatting | 2026-07-28 request | legacy request |"
    echo "|---|---|---|---|"
    for opt in ${OPTS:-z s 3}; do
        for variant in ryu compact-float; do
            features="icount"
            [ "$variant" = compact-float ] && features="icount,compact-float"
            CARGO_PROFILE_RELEASE_OPT_LEVEL=$opt cargo build --quiet --release \
                --target thumbv7m-none-eabi --features "$features"
            report=$(timeout 20 qemu-system-arm -cpu cortex-m3 -machine lm3s6965evb \
                -display none -monitor none -serial stdio -icount shift=0 -semihosting \
                -kernel target/thumbv7m-none-eabi/release/size-one-tool </dev/null 2>/dev/null |
                head -n 2 || true)
            new=$(echo "$report" | sed -n 's/^icount 2026 \([0-9]*\).*/\1/p')
            legacy=$(echo "$report" | sed -n 's/^icount legacy \([0-9]*\).*/\1/p')
            echo "| $opt | $variant | ${new:-?} | ${legacy:-?} |"
        done
    done
    exit 0
fi
PHASES="parse validate_input handler encode validate_output"

count() { # binary phase iterations era
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        "$1" "$2" "$3" "$4" 2>&1 | sed -n 's/.*I *refs: *//p' | tr -d ','
}

per_call() { # binary phase era
    local base full
    base=$(count "$1" "$2" 0 "$3")
    full=$(count "$1" "$2" "$N" "$3")
    echo $(((full - base) / N))
}

echo "| float formatting | era | parse | validate input | handler | encode | validate output | sum of phases | whole call (\`handle_line\`) |"
echo "|---|---|---|---|---|---|---|---|---|"
for variant in ryu compact-float; do
    features=""
    [ "$variant" = compact-float ] && features="--features embedded-mcp/compact-float"
    # A separate target folder per variant: each keeps its binary, nothing else is rebuilt.
    target_dir="$root/target/instructions-$variant"
    # shellcheck disable=SC2086
    CARGO_TARGET_DIR=$target_dir cargo build --quiet --release -p embedded-mcp-benches \
        --bin call_phases $features
    bin="$target_dir/release/call_phases"
    for era in 2026 legacy; do
        row="| $variant | $era"
        sum=0
        for phase in $PHASES; do
            n=$(per_call "$bin" "$phase" "$era")
            sum=$((sum + n))
            row="$row | $n"
        done
        total=$(per_call "$bin" total "$era")
        echo "$row | $sum | $total |"
    done
done
