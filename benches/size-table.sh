#!/usr/bin/env bash
# Prints the flash/RAM table of benches/SIZES.md as markdown.
#
#   benches/size-table.sh                       # everything (about 70 release builds, ~15 min)
#   TARGETS="thumbv7m-none-eabi" OPTS="z" benches/size-table.sh   # a subset
#
# Sizes are those of the linked ELF files, from `llvm-size -B` (rustup component llvm-tools):
# flash = text + data (code, read-only data, vector table, and the initial values of .data),
# RAM = data + bss (statics; the stack comes on top and is not in these figures).
#
# - examples/size-one-tool: one tool with an object result, the engine over a blocking UART, a
#   runtime of a few hundred bytes and no other crate. Built for each target and opt-level,
#   with and without the engine's validator (core feature `validator`), and with no float in
#   the result or an `f32` formatted by ryu (default tables), ryu's `small` tables, or the
#   core's `compact-float` formatter.
# - examples/qemu-sensors: the QEMU firmware (four tools; thumbv7m only, it is board specific),
#   built in its own target folder's `size-table/` sub-folder so that the tests' build is left
#   alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
SIZE="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-size"
if [ ! -x "$SIZE" ]; then
    echo "size-table: llvm-size not found (rustup component add llvm-tools)" >&2
    exit 1
fi
TARGETS=${TARGETS:-thumbv6m-none-eabi thumbv7m-none-eabi thumbv7em-none-eabihf riscv32imac-unknown-none-elf}
OPTS=${OPTS:-s z}

# Prints "flash ram" of an ELF file.
measure() {
    "$SIZE" -B "$1" | awk 'NR == 2 { printf "%d %d\n", $1 + $2, $2 + $3 }'
}

# Formats a number with thousands separators.
thousands() {
    echo "$1" | sed -e ':a' -e 's/\B[0-9]\{3\}\>/,&/' -e 'ta'
}

# Builds the one-tool firmware; prints "flash ram".
one_tool() {
    local target=$1 opt=$2 features=$3
    (
        cd "$root/examples/size-one-tool"
        CARGO_PROFILE_RELEASE_OPT_LEVEL=$opt cargo build --release --quiet \
            --target "$target" --no-default-features ${features:+--features "$features"} >&2
        measure "target/$target/release/size-one-tool"
    )
}

# Builds the QEMU firmware in target/size-table; prints "flash ram".
qemu_sensors() {
    local opt=$1 features=$2
    (
        cd "$root/examples/qemu-sensors"
        CARGO_TARGET_DIR=target/size-table CARGO_PROFILE_RELEASE_OPT_LEVEL=$opt \
            cargo build --release --quiet --target thumbv7m-none-eabi \
            --no-default-features ${features:+--features "$features"} >&2
        measure "target/size-table/thumbv7m-none-eabi/release/qemu-sensors"
    )
}

cell() {
    local flash ram
    read -r flash ram <<<"$1"
    printf "%s / %s" "$(thousands "$flash")" "$(thousands "$ram")"
}

echo "Flash / RAM in bytes (flash = text + data, RAM = data + bss, stack not included)."
echo
echo "**size-one-tool** (one tool, object result, blocking UART; LTO, one codegen unit, panic = abort)"
echo
echo "| target | opt-level | validator | no floats | f32, ryu | f32, ryu small tables | f32, compact-float |"
echo "|---|---|---|---|---|---|---|"
for target in $TARGETS; do
    for opt in $OPTS; do
        for validator in yes no; do
            base=""
            [ "$validator" = yes ] && base="validator"
            row="| $target | $opt | $validator"
            for floats in "" "floats" "floats small-float-tables" "floats compact-float"; do
                features=$(echo "$base $floats" | xargs | tr ' ' ',')
                row="$row | $(cell "$(one_tool "$target" "$opt" "$features")")"
            done
            echo "$row |"
        done
    done
done
echo
case " $TARGETS " in
*" thumbv7m-none-eabi "*)
    echo "**qemu-sensors** (four tools, thumbv7m-none-eabi, validator always on)"
    echo
    echo "| opt-level | float formatting | flash / RAM |"
    echo "|---|---|---|"
    for opt in $OPTS; do
        for floats in "compact-float" "small-float-tables" ""; do
            name=${floats:-ryu}
            echo "| $opt | $name | $(cell "$(qemu_sensors "$opt" "$floats")") |"
        done
    done
    ;;
esac
