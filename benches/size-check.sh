#!/usr/bin/env bash
# Fails when the QEMU firmware (examples/qemu-sensors, release build for thumbv7m-none-eabi, the
# build the QEMU tests use) grows more than 5 % past the flash or RAM recorded in
# benches/size-baseline.txt, or when the one-tool firmware without the validator
# (examples/size-one-tool --no-default-features, thumbv7m-none-eabi) grows more than 5 % past
# its recorded flash (a firmware without the feature `validator` must link no evaluator), or
# when the micro:bit firmware (examples/microbit --features qemu, thumbv6m-none-eabi, the build
# its QEMU tests use) grows more than 5 % past its recorded flash or RAM, or
# when that one-tool firmware has a `.data` section at all: its statics (`LineReader::new`,
# `SchemaStorage::new`, ...) must be all zero bits, so they land in `.bss` and take no flash.
#
#   benches/size-check.sh            # check (builds the firmware if it is not built yet)
#   benches/size-check.sh --update   # record the current sizes as the new baseline
#
# Cheap in CI: `cargo build --release` in the firmware folder is a no-op when the QEMU tests
# have already built it; the check itself is one llvm-size call. Flash = text + data, RAM =
# data + bss (llvm-size -B), as in benches/SIZES.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
baseline="$root/benches/size-baseline.txt"
SIZE="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-size"
if [ ! -x "$SIZE" ]; then
    echo "size-check: llvm-size not found (rustup component add llvm-tools)" >&2
    exit 1
fi

# build_elf CRATE TARGET [cargo args...]: builds examples/CRATE for TARGET as the QEMU tests do
# (scripts/firmware.sh) and prints the ELF's path.
source "$root/scripts/firmware.sh"
build_elf() {
    local crate=$1
    shift
    firmware_elf "$root/examples/$crate" "$@"
}
elf=$(build_elf qemu-sensors thumbv7m-none-eabi)
read -r flash ram < <("$SIZE" -B "$elf" | awk 'NR == 2 { print $1 + $2, $2 + $3 }')
one_tool_elf=$(build_elf size-one-tool thumbv7m-none-eabi --no-default-features)
read -r one_tool one_tool_data < <("$SIZE" -B "$one_tool_elf" | awk 'NR == 2 { print $1 + $2, $2 }')
# The build tests/tests/qemu_microbit.rs runs (`build_firmware_with_features`).
microbit_elf=$(build_elf microbit thumbv6m-none-eabi --features qemu)
read -r microbit_flash microbit_ram < <("$SIZE" -B "$microbit_elf" | awk 'NR == 2 { print $1 + $2, $2 + $3 }')

if [ "${1:-}" = "--update" ]; then
    cat >"$baseline" <<EOF
# Recorded by benches/size-check.sh --update: examples/qemu-sensors, release build for
# thumbv7m-none-eabi (opt-level "z", its default features), llvm-size -B.
# flash = text + data, ram = data + bss (bytes). CI fails when any of them grows more than 5 %.
flash $flash
ram $ram
# examples/size-one-tool --no-default-features (no validator, no floats), thumbv7m-none-eabi:
one_tool $one_tool
# examples/microbit --features qemu, thumbv6m-none-eabi (nRF51822: 256 KiB flash, 16 KiB RAM):
microbit_flash $microbit_flash
microbit_ram $microbit_ram
EOF
    echo "size-check: baseline recorded: flash $flash, ram $ram, one-tool flash $one_tool, micro:bit flash $microbit_flash, ram $microbit_ram"
    exit 0
fi

base_flash=$(awk '$1 == "flash" { print $2 }' "$baseline")
base_ram=$(awk '$1 == "ram" { print $2 }' "$baseline")
base_one_tool=$(awk '$1 == "one_tool" { print $2 }' "$baseline")
base_microbit_flash=$(awk '$1 == "microbit_flash" { print $2 }' "$baseline")
base_microbit_ram=$(awk '$1 == "microbit_ram" { print $2 }' "$baseline")
status=0
if [ "$one_tool_data" -ne 0 ]; then
    echo "size-check: the one-tool firmware has $one_tool_data bytes of .data (expected 0): a static's const initializer is not all zero bits, so it is copied from flash; see llvm-size -A $one_tool_elf" >&2
    status=1
else
    echo "size-check: one-tool data 0 bytes (its statics are all zero bits, in .bss)"
fi
for what in flash ram one_tool microbit_flash microbit_ram; do
    now=${!what}
    base_name="base_$what"
    base=${!base_name}
    limit=$((base * 105 / 100))
    change=$(awk -v a="$now" -v b="$base" 'BEGIN { printf "%+.1f", (a - b) * 100 / b }')
    if [ "$now" -gt "$limit" ]; then
        echo "size-check: $what $now bytes is more than 5 % over the recorded $base ($change %, limit $limit)" >&2
        status=1
    else
        echo "size-check: $what $now bytes (recorded $base, $change %, limit $limit)"
    fi
done
exit $status
