#!/usr/bin/env bash
# The main job: the QEMU firmware serves its sensors as MCP tools over its UART, reached through
# the host bridge. Installs what it needs (Rust target, QEMU), builds the firmware and the
# `embedded-mcp` command, then lists the tools, calls each one, and runs a short MCP session
# through `embedded-mcp bridge` exactly as an MCP host would. QEMU is stopped by the command that
# started it.
#
# Usage: scripts/demo.sh [-v]
#   By default only the commands and their answers are shown (plus the CLI's own notes); the
#   set-up, build, QEMU and firmware diagnostics go to target/demo.log. -v shows everything.
set -euo pipefail
cd "$(dirname "$0")/.."

verbose=0
case "${1:-}" in
    -v | --verbose) verbose=1 ;;
    "") ;;
    *) echo "usage: scripts/demo.sh [-v]" >&2; exit 2 ;;
esac

mkdir -p target
log=target/demo.log
: >"$log"
# quietly CMD...: in quiet mode, CMD's stderr goes to the log, except the CLI's own
# "note:"/"warning:"/"error:" lines, which are part of the answer a user reads (shown first, as
# the CLI prints them before it calls). CMD's exit code is kept.
quietly() {
    if ((verbose)); then
        "$@"
        return
    fi
    local err out rc=0
    err=$(mktemp)
    out=$("$@" 2>"$err") || rc=$?
    cat "$err" >>"$log"
    grep -E '^(note|warning|error):' "$err" >&2 || true
    rm -f "$err"
    [ -z "$out" ] || printf '%s\n' "$out"
    return "$rc"
}

if ((verbose)); then
    bash scripts/setup.sh
    echo "==> building the firmware (examples/qemu-sensors, thumbv7m-none-eabi) and the host CLI" >&2
else
    echo "building the firmware and the host CLI (details: $log) ..." >&2
    bash scripts/setup.sh >>"$log" 2>&1 || { cat "$log" >&2; exit 1; }
fi
# The firmware in its own target folder (or the one scripts/test.sh shares among the firmware
# crates; scripts/firmware.sh); the CLI as a debug build: it compiles in about half the time of
# a release build and answers these few calls as quickly (the device and QEMU set the pace).
source scripts/firmware.sh
build() {
    fw=$(firmware_elf examples/qemu-sensors thumbv7m-none-eabi) &&
        cargo build -q -p embedded-mcp-std --bin embedded-mcp
}
if ((verbose)); then build; else build >>"$log" 2>&1 || { cat "$log" >&2; exit 1; }; fi

mcp=target/debug/embedded-mcp

run() {
    printf '\n$ embedded-mcp %s\n' "$*"
    quietly "$mcp" "$@"
}

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
} | quietly "$mcp" bridge --qemu "$fw"
