#!/usr/bin/env bash
# Installs (or checks) everything the project needs on a fresh machine: Rust targets, llvm-tools,
# QEMU. Idempotent and quiet when everything is already there.
set -euo pipefail

TARGETS=(thumbv6m-none-eabi thumbv7m-none-eabi thumbv7em-none-eabihf riscv32imac-unknown-none-elf)
installed=$(rustup target list --installed)
missing=()
for t in "${TARGETS[@]}"; do
    grep -qx "$t" <<<"$installed" || missing+=("$t")
done
if ((${#missing[@]})); then
    rustup target add "${missing[@]}"
fi
components=$(rustup component list --installed)
for c in llvm-tools clippy rustfmt; do
    grep -q "^$c" <<<"$components" || rustup component add "$c"
done

if ! command -v qemu-system-arm >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        echo "setup: installing qemu-system-arm" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-arm >/dev/null
    else
        echo "setup: qemu-system-arm is missing; install it with: sudo apt-get install qemu-system-arm" >&2
        exit 1
    fi
fi
