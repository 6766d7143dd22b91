#!/usr/bin/env bash
# Real MCP clients through `embedded-mcp bridge`: the official Python SDK (2.x, in the project's
# .venv), the MCP Inspector CLI (0.15.0, the newest that runs on Node 20) and the TypeScript SDK
# 2.x client (@modelcontextprotocol/client 2.4.0), both in tests/clients/node. The installs are
# cached and idempotent.
#
# Servers behind the bridge:
#   - the scripted fake device (tests/clients/fake_device.rs): every tool, both eras, results that
#     break their schema (the bridge turns them into isError results the SDK accepts), and a
#     control run without the bridge where the SDK's own validation must reject them;
#   - examples/host-sensors (an MCP stdio server) through `bridge --command`;
#   - the QEMU firmware examples/qemu-sensors through `bridge --qemu`.
# A server that does not exist yet is reported as SKIP with the reason (never a silent pass);
# EMBEDDED_MCP_CLIENTS_STRICT=1 turns skips into failures.
#
# Prints one PASS/FAIL/SKIP line per check and last `N passed, M failed, K skipped`; exits 1 if
# anything failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# QEMU sockets of this run go under $logs, so the leftover check below sees only our QEMUs
# (other test runs may have QEMUs of their own).
export TMPDIR=$logs

passed=0
failed=0
skipped=0
strict=${EMBEDDED_MCP_CLIENTS_STRICT:-0}

pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }
skip() {
    if [ "$strict" = 1 ]; then fail "$1 (strict: $2)"; else skipped=$((skipped + 1)); echo "SKIP $1: $2"; fi
}

# Runs a check: name, then the command. Output is kept and shown when the check fails.
run_check() {
    local name=$1 log
    shift
    log="$logs/$(echo "$name" | tr -c 'A-Za-z0-9' '_').log"
    # Every check is bounded: a hang fails the check instead of the CI run.
    if timeout 300 bash -c '"$@"' _ "$@" >"$log" 2>&1; then
        pass "$name"
    else
        fail "$name (exit $?)"
        sed 's/^/    | /' "$log" | tail -40
    fi
}

# ---- builds and installs -----------------------------------------------------------------------
echo "== building embedded-mcp and the fake device" >&2
cargo build -q -p embedded-mcp-std --bin embedded-mcp || { echo "0 passed, 1 failed"; exit 1; }
cargo build -q -p embedded-mcp-tests --bin bridge-fake-device || { echo "0 passed, 1 failed"; exit 1; }
bridge="$root/target/debug/embedded-mcp"
fake="$root/target/debug/bridge-fake-device"

python="$root/.venv/bin/python"
if ! "$python" -c 'import mcp, importlib.metadata as m; assert m.version("mcp").startswith("2.")' 2>/dev/null; then
    echo "== creating .venv with the MCP Python SDK (pip install 'mcp>=2,<3')" >&2
    python3 -m venv "$root/.venv" && "$root/.venv/bin/pip" install -q 'mcp>=2,<3' >&2
fi
node_dir="$root/tests/clients/node"
inspector="$node_dir/node_modules/.bin/mcp-inspector"
if [ ! -x "$inspector" ] || [ ! -f "$node_dir/node_modules/@modelcontextprotocol/client/package.json" ]; then
    # package.json pins the Inspector 0.15.0 (the newest that runs on Node 20) and the
    # TypeScript SDK 2.x client 2.4.0 (Node >= 20); package-lock.json pins the rest.
    echo "== installing @modelcontextprotocol/inspector@0.15.0 and @modelcontextprotocol/client@2.4.0 into tests/clients/node" >&2
    npm install --prefix "$node_dir" --no-audit --no-fund --loglevel=error >&2
fi
mcp_version=$("$python" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null || echo "missing")
inspector_version=$(node -p "require('$node_dir/node_modules/@modelcontextprotocol/inspector/package.json').version" 2>/dev/null || echo "missing")
echo "== clients: Python SDK mcp $mcp_version, MCP Inspector $inspector_version (node $(node --version 2>/dev/null))" >&2

client() { "$python" "$root/tests/clients/python_client.py" "$@"; }

# Runs the Inspector CLI (the command after the expression) and checks the JSON it printed: the
# python expression over `r` must be true.
inspect_json() {
    local expr=$1 out
    shift
    out=$("$@") || { echo "$out"; return 1; }
    echo "$out"
    printf '%s' "$out" | "$python" -c 'import json, sys; r = json.load(sys.stdin); sys.exit(0 if eval(sys.argv[1]) else 1)' "$expr"
}
inspect_check() {
    local name=$1
    shift
    run_check "$name" inspect_json "$@"
}
export python root node_dir
export -f client inspect_json

# ---- the fake device through the bridge ---------------------------------------------------------
fake_expect=(--skip hang --skip crash --expect-error bad_temp --expect-error wrong_type
    --expect-error no_structured --expect-error tool_error --expect-tools 12)
run_check "python sdk, legacy handshake, bridge -> fake device" \
    client --era legacy "${fake_expect[@]}" -- "$bridge" bridge --command "$fake"
run_check "python sdk, 2026-07-28 (server/discover), bridge -> fake device" \
    client --era modern --skip ask_host "${fake_expect[@]}" -- "$bridge" bridge --command "$fake"
run_check "python sdk without the bridge rejects the invalid results itself (control)" \
    client --era legacy --skip hang --skip crash --expect-sdk-reject bad_temp --expect-sdk-reject wrong_type \
    --expect-sdk-reject no_structured --expect-error tool_error --expect-tools 12 -- "$fake"
inspect_check "inspector cli tools/list, bridge -> fake device: one page of 12" \
    'r["tools"][0]["name"] == "read_temp" and len(r["tools"]) == 12 and "nextCursor" not in r' \
    "$inspector" --cli "$bridge" bridge --command "$fake" --method tools/list
inspect_check "inspector cli tools/list, bridge --pages device -> fake device: the device's pages" \
    'r["tools"][0]["name"] == "read_temp" and r["nextCursor"] == "page-4"' \
    "$inspector" --cli "$bridge" bridge --command "$fake" --pages device --method tools/list
inspect_check "inspector cli tools/call read_temp, bridge -> fake device" \
    'r["structuredContent"] == {"celsius": 21.5, "sensor": "t0"} and not r.get("isError")' \
    "$inspector" --cli "$bridge" bridge --command "$fake" --method tools/call --tool-name read_temp
inspect_check "inspector cli tools/call bad_temp is withheld as isError, bridge -> fake device" \
    'r["isError"] is True and "broke rule `maximum`" in r["content"][0]["text"]' \
    "$inspector" --cli "$bridge" bridge --command "$fake" --method tools/call --tool-name bad_temp

# ---- examples/host-sensors through `bridge --command` --------------------------------------------
# The executable a cargo build produced, from its JSON messages.
built_executable() {
    "$python" -c '
import json, sys
exe = [m["executable"] for m in map(json.loads, sys.stdin) if m.get("reason") == "compiler-artifact" and m.get("executable")]
print(exe[-1] if exe else "")'
}

host_manifest="$root/examples/host-sensors/Cargo.toml"
if [ ! -f "$host_manifest" ]; then
    skip "host-sensors through the bridge" "examples/host-sensors does not exist yet"
else
    host_bin=$(cargo build -q --manifest-path "$host_manifest" --message-format=json 2>"$logs/host-build.log" | built_executable)
    if [ -z "$host_bin" ]; then
        fail "building examples/host-sensors"
        tail -20 "$logs/host-build.log" | sed 's/^/    | /'
    else
        run_check "python sdk, legacy handshake, bridge -> host-sensors" \
            client --era legacy -- "$bridge" bridge --command "$host_bin"
        run_check "python sdk, 2026-07-28, bridge -> host-sensors" \
            client --era modern -- "$bridge" bridge --command "$host_bin"
        inspect_check "inspector cli tools/list, bridge -> host-sensors" 'len(r["tools"]) > 0' \
            "$inspector" --cli "$bridge" bridge --command "$host_bin" --method tools/list
        first_tool=$("$inspector" --cli "$bridge" bridge --command "$host_bin" --method tools/list 2>/dev/null |
            "$python" -c 'import json,sys; print(json.load(sys.stdin)["tools"][0]["name"])' 2>/dev/null)
        inspect_check "inspector cli tools/call $first_tool, bridge -> host-sensors" 'not r.get("isError")' \
            "$inspector" --cli "$bridge" bridge --command "$host_bin" --method tools/call --tool-name "$first_tool"
    fi
fi

# ---- the QEMU firmware through `bridge --qemu` ----------------------------------------------------
fw_dir="$root/examples/qemu-sensors"
if [ ! -f "$fw_dir/Cargo.toml" ]; then
    skip "qemu firmware through the bridge" "examples/qemu-sensors does not exist"
elif grep -q 'echo::echo_task' "$fw_dir/src/main.rs" 2>/dev/null; then
    skip "qemu firmware through the bridge" "examples/qemu-sensors is still the line-echo firmware, it does not serve MCP yet"
elif ! command -v qemu-system-arm >/dev/null; then
    fail "qemu firmware through the bridge: qemu-system-arm is not installed (scripts/setup.sh installs it)"
else
    rustup target add thumbv7m-none-eabi >/dev/null 2>&1 || true
    # Its own target folder, or the firmware folder scripts/test.sh shares (built there already).
    source "$root/scripts/firmware.sh"
    fw=$(firmware_elf "$fw_dir" thumbv7m-none-eabi 2>"$logs/fw-build.log") || fw=""
    if [ -z "$fw" ]; then
        fail "building the qemu firmware"
        tail -20 "$logs/fw-build.log" | sed 's/^/    | /'
    else
        run_check "python sdk, legacy handshake, bridge --qemu firmware" \
            client --era legacy -- "$bridge" bridge --qemu "$fw"
        run_check "python sdk, 2026-07-28, bridge --qemu firmware" \
            client --era modern -- "$bridge" bridge --qemu "$fw"
        # Async tools: sample_temperature (no arguments: 5 samples) reports progress and logs,
        # set_led logs its change; the legacy session asks with logging/setLevel, the 2026-07-28
        # one per request (warning: the info messages must not come).
        run_check "python sdk, legacy, progress_callback and logging_callback, bridge --qemu firmware" \
            client --era legacy --progress sample_temperature=5 --log-level info \
            --expect-log info:sample_temperature --expect-log warning:sample_temperature \
            --expect-log info:set_led -- "$bridge" bridge --qemu "$fw"
        run_check "python sdk, 2026-07-28, progress_callback and per-request log level, bridge --qemu firmware" \
            client --era modern --progress sample_temperature=5 --log-level warning \
            --expect-log warning:sample_temperature --expect-no-log info -- "$bridge" bridge --qemu "$fw"
        run_check "typescript sdk client, onprogress and log notifications, bridge --qemu firmware" \
            node "$node_dir/progress_client.mjs" sample_temperature 5 \
            info:sample_temperature,warning:sample_temperature -- "$bridge" bridge --qemu "$fw"
        # qemu-sensors lists its 6 tools in pages of 1,400 bytes (its first legacy page holds two);
        # hosts make one list_tools() call.
        # A person approves set_relay (accept, decline, cancel; device_info reads the relays back):
        # in 2026-07-28 the SDK drives input_required itself, as a legacy host the bridge's shim
        # asks it with elicitation/create.
        run_check "python sdk Client, elicitation_callback, 2026-07-28, set_relay, bridge --qemu firmware" \
            "$python" "$root/tests/clients/approval_client.py" --era modern -- "$bridge" bridge --qemu "$fw"
        run_check "python sdk Client, elicitation_callback, legacy (the bridge's shim), set_relay, bridge --qemu firmware" \
            "$python" "$root/tests/clients/approval_client.py" --era legacy -- "$bridge" bridge --qemu "$fw"
        run_check "typescript sdk 2.x client, elicitation handler, 2026-07-28 (autoFulfill), set_relay, bridge --qemu firmware" \
            node "$node_dir/approval_client.mjs" modern -- "$bridge" bridge --qemu "$fw"
        run_check "typescript sdk 2.x client, elicitation handler, legacy (the bridge's shim), set_relay, bridge --qemu firmware" \
            node "$node_dir/approval_client.mjs" legacy -- "$bridge" bridge --qemu "$fw"
        # Remote gateways and replicas behind nginx: the cargo test starts two gateways
        # (qemu-sensors, qemu-riscv), two replicas and nginx, and runs gateway_client.py through
        # nginx in both eras (a few seconds: the test is built by scripts/test.sh before).
        run_check "python sdk Client, streamable HTTP (2026-07-28 and legacy) through nginx, two replicas, two gateways" \
            env EMCP_PYTHON_SDK="$python" cargo test -q -p embedded-mcp-tests --test gateway_nginx
        run_check "python sdk, one list_tools() call sees all 6 tools, bridge --qemu firmware" \
            client --era legacy --single-page --expect-tools 6 -- "$bridge" bridge --qemu "$fw"
        run_check "python sdk, one list_tools() call sees the first page only with --pages device (control)" \
            client --era legacy --single-page --expect-next-cursor --expect-tools 2 -- \
            "$bridge" bridge --qemu "$fw" --pages device
        run_check "python sdk, 2026-07-28, one list_tools() call sees all 6 tools, bridge --qemu firmware" \
            client --era modern --single-page --expect-tools 6 -- "$bridge" bridge --qemu "$fw"
        run_check "python sdk, one list_tools() call sees both boards' 12 tools, hub of two qemu boards" \
            client --era legacy --single-page --expect-tools 12 -- "$bridge" bridge \
            --device "left=qemu:$fw" --device "right=qemu:$fw"
        run_check "python sdk, 2026-07-28, hub of two qemu boards" \
            client --era modern --single-page --expect-tools 12 -- "$bridge" bridge \
            --device "left=qemu:$fw" --device "right=qemu:$fw"
        inspect_check "inspector cli tools/list, bridge --qemu firmware" 'len(r["tools"]) > 0' \
            "$inspector" --cli "$bridge" bridge --qemu "$fw" --method tools/list
        first_tool=$("$inspector" --cli "$bridge" bridge --qemu "$fw" --method tools/list 2>/dev/null |
            "$python" -c 'import json,sys; print(json.load(sys.stdin)["tools"][0]["name"])' 2>/dev/null)
        inspect_check "inspector cli tools/call $first_tool, bridge --qemu firmware" 'not r.get("isError")' \
            "$inspector" --cli "$bridge" bridge --qemu "$fw" --method tools/call --tool-name "$first_tool"
    fi
fi

# Nothing may be left running.
leftover=$(pgrep -f "$fake|qemu-system-arm.*$logs/" || true)
if [ -n "$leftover" ]; then
    fail "processes left running after the clients: $leftover"
fi

echo "clients: mcp $mcp_version, inspector $inspector_version"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
