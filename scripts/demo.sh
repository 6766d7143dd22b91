#!/usr/bin/env bash
# The main job: the QEMU firmware serves its sensors as MCP tools over its UART, reached through
# the host bridge. Installs what it needs (Rust target, QEMU), builds the firmware and the
# `embedded-mcp` command, then lists the tools, calls each one, and runs a short MCP session
# through `embedded-mcp bridge` exactly as an MCP host would. QEMU is stopped by the command that
# started it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

bash scripts/setup.sh
echo "==> building the firmware (examples/qemu-sensors, thumbv7m-none-eabi) and the host CLI" >&2
(cd examples/qemu-sensors && cargo build -q --release)
cargo build -q --release -p embedded-mcp-std
fw="$root/examples/qemu-sensors/target/thumbv7m-none-eabi/release/qemu-sensors"
mcp="$root/target/release/embedded-mcp"

run() { printf '\n$ embedded-mcp %s\n' "$*"; "$mcp" "$@"; }

run tools --qemu "$fw"
run call --qemu "$fw" read_temperature sensor=0
run call --qemu "$fw" --protocol 2026-07-28 read_acceleration
run call --qemu "$fw" set_led led=green brightness=40
run call --qemu "$fw" device_info
set +e
run call --qemu "$fw" set_led led=green brightness=400
echo "(exit code $?: the device's compiled validator refused brightness=400)"
set -e

echo
echo "\$ (an MCP host's session) | embedded-mcp bridge --qemu $fw"
{
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}'
    printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_temperature","arguments":{"sensor":1}}}'
    printf '%s\n' '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_acceleration","arguments":{}}}'
} | "$mcp" bridge --qemu "$fw"
