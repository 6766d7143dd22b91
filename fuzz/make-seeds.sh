#!/usr/bin/env bash
# Regenerates the checked-in seed corpus, fuzz/corpus/<target>/seed-*, from the official MCP
# example messages (tests/vectors/mcp-schema/2026-07-28/examples) and the JSON-Schema-Test-Suite
# (tests/vectors/json-schema-test-suite/tests/draft2020-12), both vendored in the repository. Deterministic: the same inputs give the
# same files. Every seed is under 4 KB. Program seeds are compiled with the project's own
# `embedded-mcp schema compile` (built on demand).
#
# Inputs that once made a target fail are kept in fuzz/regressions/<target>/ and copied in as
# seed-regression-* (each also has a test in tests/tests/hostile_regressions.rs).
#
# Usage: bash fuzz/make-seeds.sh
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd .. && pwd)
vectors=$root/tests/vectors

# Programs must be in the format of the current core: build the CLI (a no-op when fresh).
(cd "$root" && cargo build -q -p embedded-mcp-std --bin embedded-mcp)
cli="$root/target/debug/embedded-mcp"

rm -f corpus/*/seed-*
python3 - "$vectors" "$cli" <<'PY'
import json, os, subprocess, sys, tempfile, hashlib

vectors, cli = sys.argv[1], sys.argv[2]
examples = os.path.join(vectors, "mcp-schema", "2026-07-28", "examples")
suite = os.path.join(vectors, "json-schema-test-suite", "tests", "draft2020-12")
MAX = 4096
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
counts = {}

def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)

def put(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) >= MAX:
        return
    d = os.path.join("corpus", target)
    os.makedirs(d, exist_ok=True)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80]
    path = os.path.join(d, "seed-" + safe)
    if os.path.exists(path):
        path += "-" + hashlib.sha1(data).hexdigest()[:8]
    with open(path, "wb") as f:
        f.write(data)
    counts[target] = counts.get(target, 0) + 1

def prefix(i):
    # Two bytes that pick the read sizes of the stream targets.
    return bytes([(i * 37) & 0xFF, (i * 11 + 3) & 0xFF])

# --- official MCP examples -------------------------------------------------------------
messages, results = [], []
for group in sorted(os.listdir(examples)):
    for f in sorted(os.listdir(os.path.join(examples, group))):
        with open(os.path.join(examples, group, f), encoding="utf-8") as h:
            v = json.load(h)
        name = f"{group}-{f[:-5]}"
        if isinstance(v, dict) and v.get("jsonrpc") == "2.0":
            messages.append((name, v))
            if group.endswith("ResultResponse") and isinstance(v.get("result"), dict) \
                    and "content" in v["result"]:
                results.append((name, v["result"]))
        if group == "CallToolResult":
            results.append((name, v))
        if group in ("TextContent", "ImageContent", "AudioContent", "ResourceLink",
                     "EmbeddedResource"):
            results.append((name, {"content": [v], "isError": False}))

for i, (name, v) in enumerate(messages):
    put("engine", name, prefix(i) + (compact(v) + "\n").encode())
for name, v in results:
    put("result_decoder", name, compact(v))
    put("result_decoder", name + "-pretty", json.dumps(v, indent=1, ensure_ascii=True))

# --- the fuzzed server's own tools (fuzz/src/device.rs) -----------------------------------
def req(i, method, params=None, meta=True):
    p = dict(params or {})
    if meta:
        p["_meta"] = META
    m = {"jsonrpc": "2.0", "id": i, "method": method}
    if p:
        m["params"] = p
    return compact(m)

calls = {
    "echo": [{"x": [1, {"y": "z"}]}, {}],
    "add": [{"a": 2, "b": 40}, {"a": 1}, {"a": 1, "b": 2000000}, {"a": 1.5, "b": 1}],
    "sort": [{"values": [3, 1.5, -2]}, {"values": [1, 1]}, {"values": "x"}],
    "label": [{"name": "abc", "kind": "a", "either": "xy", "one": 7},
              {"name": "Bad!"}, {"name": "ok", "kind": 1}],
    "fail": [{}], "bad_output": [{}], "big": [{}],
    "nested": [{"tree": {"next": {"next": {"v": 1}}}}, {"tree": {"v": "x"}}],
    "missing": [{}],
}
n = 0
for tool, argsets in calls.items():
    for args in argsets:
        n += 1
        put("engine", f"call-{tool}-{n}-2026",
            prefix(n) + (req(n, "tools/call", {"name": tool, "arguments": args}) + "\n").encode())
        put("engine", f"call-{tool}-{n}-legacy", prefix(n + 100) + (
            req(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "c", "version": "1"}}, meta=False) + "\n"
            + req(f"s{n}", "tools/call", {"name": tool, "arguments": args}, meta=False)
            + "\n").encode())
conversation = "\n".join([
    req(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "c", "version": "1"}}, meta=False),
    compact({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    req(2, "ping", meta=False),
    req(3, "tools/list", meta=False),
    req(4, "tools/list", {"cursor": "000000000000"}, meta=False),
    req(5, "server/discover"),
    req(6, "tools/list"),
]) + "\n"
put("engine", "conversation", prefix(7) + conversation.encode())
hostile = [
    ("deep", "[" * 40 + "]" * 40),
    ("overlong-with-id", '{"id":7,"jsonrpc":"2.0","method":"ping","params":{"x":"' + "a" * 300 + '"}}'),
    ("bad-id", '{"jsonrpc":"2.0","id":1.5,"method":"ping"}'),
    ("null-id", '{"jsonrpc":"2.0","id":null,"method":"ping"}'),
    ("params-array", '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}'),
    ("dup-keys", '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping","method":"x"}'),
    ("surrogate", '{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}'),
    ("big-number", '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}'),
    ("cr-only", '{"jsonrpc":"2.0","id":1,"method":"ping"}\r{"jsonrpc":"2.0","id":2,"method":"ping"}\r'),
    ("nul", '{"jsonrpc":"2.0","id":1,"method":"pi\x00ng"}'),
]
for i, (name, line) in enumerate(hostile):
    put("engine", "hostile-" + name, prefix(200 + i) + (line + "\n").encode())

# --- line framing --------------------------------------------------------------------------
for i, (name, v) in enumerate(messages[:24]):
    line = compact(v).encode()
    framings = [b"\n", b"\r\n", b"\n\n", b" \t\r\n"]
    stream = b"\xef\xbb\xbf" + line + framings[i % 4] + line[: len(line) // 2] + b"\xff\xfe\n" \
        + line + b"\n" + b"x" * (i * 7 % 600) + b"\n" + line
    put("line_reader", name, prefix(i) + stream)

# --- JSON Schema suite ---------------------------------------------------------------------
groups = []
for f in sorted(os.listdir(suite)):
    if not f.endswith(".json"):
        continue
    with open(os.path.join(suite, f), encoding="utf-8") as h:
        for j, group in enumerate(json.load(h)):
            groups.append((f"{f[:-5]}-{j}", group))
# About 120 seeds each: every third distinct schema, at different offsets for the two targets.
seen = set()
for name, group in groups:
    schema = compact(group["schema"])
    if schema in seen:
        continue
    seen.add(schema)
    if len(seen) % 3 == 0:
        put("schema_compiler_text", name, schema)
    tests = group.get("tests", [])
    if tests and len(seen) % 3 == 1:
        t = tests[len(seen) % len(tests)]
        put("validator", name, schema.encode() + b"\x00" + compact(t["data"]).encode())

# --- generated schemas --------------------------------------------------------------------
# The structure-aware schema_compiler target decodes any bytes into a schema tree (see
# src/schema_gen.rs), so its seeds are pseudo-random bytes (SHA-256 in counter mode, the same on
# every machine) of 32 to about 3 KB: large trees from the first run on, which libFuzzer then
# mutates.
for i in range(40):
    size = 32 + (i * i * 37) % 3000
    stream = b"".join(hashlib.sha256(f"schema_compiler-{i}-{j}".encode()).digest()
                      for j in range(size // 32 + 1))
    put("schema_compiler", f"random-{i:02}", stream[:size])

# Programs: every suite schema the core compiles, with one of its instances.
programs = 0
with tempfile.TemporaryDirectory() as tmp:
    for name, group in groups:
        if programs >= 40:
            break
        s = os.path.join(tmp, "s.json")
        p = os.path.join(tmp, "p.bin")
        with open(s, "w", encoding="utf-8") as h:
            h.write(compact(group["schema"]))
        r = subprocess.run([cli, "schema", "compile", s, "-o", p], capture_output=True)
        if r.returncode != 0:
            continue
        with open(p, "rb") as h:
            prog = h.read()
        tests = group.get("tests") or [{"data": None}]
        data = compact(tests[0]["data"]).encode()
        put("program_loader", name, len(prog).to_bytes(2, "little") + prog + data)
        programs += 1

# Inputs that once failed (fuzz/regressions/<target>/<name>) stay in the corpus as seeds.
if os.path.isdir("regressions"):
    for target in sorted(os.listdir("regressions")):
        for f in sorted(os.listdir(os.path.join("regressions", target))):
            with open(os.path.join("regressions", target, f), "rb") as h:
                put(target, "regression-" + f, h.read())

for t in sorted(counts):
    print(f"{t}: {counts[t]} seeds")
print(f"total: {sum(counts.values())} seeds")
PY
