#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# package-lock.json with the Node that runs it) against `embedded-mcp bridge --http` in front of
# the conformance firmware (examples/qemu-conformance) under QEMU: once with
# `--requirements 2025-11-25`, once with `--requirements 2026-07-28`, each checked against
# expected-failures.yaml (what a tools-only device does not offer, with reasons).
#
# Installs into tests/conformance/node_modules (npm ci, cached), builds the bridge and the
# firmware, starts the bridge on a free loopback port, and always stops the bridge and QEMU.
# Prints per revision the scored scenarios that pass and fail, and last
# `conformance: N passed, M failed` (N: scored scenarios passing in both runs together, M: scored
# scenarios failing against the baseline, i.e. not listed in expected-failures.yaml, plus listed
# entries that now pass). Exits 1 if M > 0. CONFORMANCE_RESULTS=DIR keeps each check's JSON.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
work=$(mktemp -d)
bridge_pid=
children=

stop_bridge() {
    if [ -n "$bridge_pid" ]; then
        # The bridge's children (QEMU), by id, then the bridge with SIGKILL: a bridge stopped by
        # SIGTERM kills QEMU itself, but its router may reconnect (start another QEMU) before it
        # exits; a killed bridge starts nothing more.
        children="$children $(pgrep -P "$bridge_pid" 2>/dev/null | tr '\n' ' ')"
        kill -9 "$bridge_pid" 2>/dev/null
        wait "$bridge_pid" 2>/dev/null
        bridge_pid=
    fi
    for pid in $children; do
        kill -9 "$pid" 2>/dev/null
    done
    children=
}
trap 'stop_bridge; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

fail_setup() { echo "conformance: $1" >&2; echo "conformance: 0 passed, 1 failed"; exit 1; }

# ---- installs and builds ------------------------------------------------------------------------
node_bin="$here/node_modules/.bin"
# `conformance` starts with `#!/usr/bin/env node`: the pinned Node comes first on PATH.
export PATH="$node_bin:$PATH"
if [ "$("$node_bin/conformance" --version 2>/dev/null)" != "0.2.0-alpha.12" ] \
    || [ "$("$node_bin/node" --version 2>/dev/null)" != "v22.23.5" ]; then
    echo "== npm ci in tests/conformance (the suite and Node 22, as package-lock.json pins them)" >&2
    npm ci --prefix "$here" --no-audit --no-fund --loglevel=error >&2 || fail_setup "npm ci failed"
fi
echo "== building embedded-mcp and examples/qemu-conformance" >&2
cargo build -q -p embedded-mcp-std --bin embedded-mcp || fail_setup "building embedded-mcp failed"
# Its own target folder, or the firmware folder scripts/test.sh shares (scripts/firmware.sh).
source "$root/scripts/firmware.sh"
fw=$(firmware_elf "$root/examples/qemu-conformance" thumbv7m-none-eabi) \
    || fail_setup "building the firmware failed"

# ---- the bridge on a free loopback port (port 0: the OS picks one; the bridge logs it) ----------
# The tasks scenarios' fixtures run as tasks (see examples/qemu-conformance/src/tasks.rs): the
# firmware marks them itself in `tools/list` (`execution.taskSupport`; `failing_job` and
# `test_tool_with_task` required, as the scenarios register them), and `test_tool_with_task`
# also `_meta` `embedded-mcp/askFirst` (tasks-mrtr-composition: its first call, without
# inputResponses, is an ordinary call whose input_required goes back synchronously, and only the
# retry with the answers becomes a task); `greet` stays an ordinary call. So the bridge needs no
# `--task-tools` (which remains for firmware that does not mark its tools).
"$root/target/debug/embedded-mcp" bridge --http 127.0.0.1:0 --qemu "$fw" \
    2>"$work/bridge.log" &
bridge_pid=$!
url=
for _ in $(seq 100); do
    url=$(grep -o 'listening: http://127\.0\.0\.1:[0-9]*/mcp' "$work/bridge.log" | head -1 | cut -d' ' -f2)
    [ -n "$url" ] && break
    kill -0 "$bridge_pid" 2>/dev/null || break
    sleep 0.1
done
[ -n "$url" ] || { cat "$work/bridge.log" >&2; fail_setup "the bridge did not start"; }
echo "== bridge at $url" >&2

# ---- the two runs -------------------------------------------------------------------------------
passed=0
failed=0
expected=0
for rev in 2025-11-25 2026-07-28; do
    out="$work/$rev.txt"
    results=${CONFORMANCE_RESULTS:+$CONFORMANCE_RESULTS/$rev}
    start=$(date +%s)
    timeout 240 conformance server --url "$url" --requirements "$rev" \
        --expected-failures "$here/expected-failures.yaml" ${results:+-o "$results"} >"$out" 2>&1
    code=$?
    seconds=$(( $(date +%s) - start ))
    # Without colours; the summary has one `✓|✗ scenario: …` line per scenario run.
    sed -i 's/\x1b\[[0-9;]*m//g' "$out"
    # The scenarios the revision runs but never scores (extensions, pending ones): the
    # `not_scored` entries of leg `server` in the pinned suite's requirements file.
    not_scored=$(awk '/^not_scored:/ { on = 1; next }
        on && /- scenario:/ { name = $3 }
        on && /leg: server/ { print name }' \
        "$here/node_modules/@modelcontextprotocol/conformance/requirements/$rev.yaml")
    summary=$(sed -n '/^=== SUMMARY ===/,/^Total:/p' "$out" | grep -E '^[✓✗] ')
    scored_ok=0
    scored_bad=0
    not_scored_ok=0
    not_scored_bad=0
    while read -r mark name _; do
        name=${name%:}
        [ -z "$name" ] && continue
        if echo "$not_scored" | grep -qx -- "$name"; then
            if [ "$mark" = "✓" ]; then
                not_scored_ok=$((not_scored_ok + 1))
            else
                not_scored_bad=$((not_scored_bad + 1))
            fi
            continue
        fi
        if [ "$mark" = "✓" ]; then scored_ok=$((scored_ok + 1)); else scored_bad=$((scored_bad + 1)); fi
    done <<<"$summary"
    # Entries the baseline evaluation rejected: unexpected failures and stale (now passing) ones.
    unexpected=$(sed -n '/^Unexpected failures (not in baseline)/,/^$/p;/^Stale baseline entries/,/^$/p' "$out" \
        | grep -cE '^  [✓✗] ' || true)
    if [ "$code" != 0 ] && [ "$unexpected" = 0 ]; then
        unexpected=1 # a crash, a timeout or a usage error
    fi
    echo "conformance $rev: $scored_ok scored scenarios passed, $scored_bad failed ($((scored_bad - unexpected)) of them listed in expected-failures.yaml); not scored: $not_scored_ok passed, $not_scored_bad failed; ${seconds}s, exit $code"
    if [ "$code" != 0 ]; then
        sed -n '/^Unexpected failures/,$p;/^Stale baseline/,$p' "$out"
        grep -E 'FAILURE|WARNING' "$out" | cut -c1-300 | head -40
        [ -n "$(sed -n '/^=== SUMMARY ===/p' "$out")" ] || tail -30 "$out"
    fi
    passed=$((passed + scored_ok))
    failed=$((failed + unexpected))
    expected=$((expected + scored_bad - unexpected))
done
stop_bridge
echo "conformance: expected failures (listed in tests/conformance/expected-failures.yaml): $expected"
echo "conformance: $passed passed, $failed failed"
[ "$failed" = 0 ]
