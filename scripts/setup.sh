#!/usr/bin/env bash
# Installs (or checks) everything the project needs on a fresh machine: Rust targets, llvm-tools,
# QEMU for Arm and RISC-V. Idempotent and quiet when everything is already there.
set -euo pipefail

TARGETS=(thumbv6m-none-eabi thumbv7m-none-eabi thumbv7em-none-eabihf riscv32imac-unknown-none-elf
    riscv32imc-unknown-none-elf)
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

# QEMU programs and the Debian packages that have them.
declare -A QEMU_PACKAGES=([qemu-system-arm]=qemu-system-arm [qemu-system-riscv32]=qemu-system-misc)
packages=()
for program in "${!QEMU_PACKAGES[@]}"; do
    command -v "$program" >/dev/null 2>&1 || packages+=("${QEMU_PACKAGES[$program]}")
done
if ((${#packages[@]})); then
    if [ "$(id -u)" = 0 ]; then
        echo "setup: installing ${packages[*]}" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
    else
        echo "setup: missing ${packages[*]}; install with: sudo apt-get install ${packages[*]}" >&2
        exit 1
    fi
fi

# nginx (the replicas test, tests/tests/gateway_nginx.rs), without starting its service.
bash "$(dirname "$0")/install-nginx.sh"
