"""A real MCP client (the official Python SDK, 2.x) against an MCP stdio server, usually
`embedded-mcp bridge ...`.

It connects, negotiates in the requested era (`legacy`: the initialize handshake;
`modern`: server/discover and the 2026-07-28 per-request envelope), lists every page of tools
(or, with `--single-page`, makes one `list_tools()` call as most hosts do and expects every tool
in it) and calls each tool with arguments made from its inputSchema. The SDK validates every
successful result against the tool's outputSchema itself (ClientSession.validate_tool_result);
a call passes when the SDK accepted it and its isError matches the expectation.

Prints one `PASS name` / `FAIL name: why` line per check and a last line `N passed, M failed`;
exits 1 when a check failed, 2 when the session could not start.

With `--progress TOOL=N` the call of TOOL passes `progress_callback` and must see N progress
reports, strictly increasing, the last equal to its total, all before the result. With
`--log-level LEVEL` the session asks for log messages (legacy: `logging/setLevel`; modern: the
SDK's per-request `log_level`), which `logging_callback` collects; `--expect-log LEVEL:LOGGER`
requires one such message, `--expect-no-log LEVEL` forbids any at that level.

usage: python_client.py --era legacy|modern [--skip TOOL]... [--expect-error TOOL]...
                        [--expect-sdk-reject TOOL]... [--arg TOOL:key=json]...
                        [--expect-tools N] [--single-page [--expect-next-cursor]]
                        [--progress TOOL=N]... [--log-level LEVEL]
                        [--expect-log LEVEL:LOGGER]... [--expect-no-log LEVEL]...
                        -- COMMAND [ARGS...]
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

results: list[tuple[bool, str]] = []


def check(ok: bool, name: str, why: str = "") -> None:
    results.append((ok, name))
    print(f"PASS {name}" if ok else f"FAIL {name}: {why}", flush=True)


def sample(schema: Any) -> Any:
    """A value that satisfies simple schemas: the first enum value, the minimum, a placeholder."""
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {key: sample(props.get(key, {})) for key in schema.get("required", [])}
    if kind == "array":
        return [sample(schema.get("items", {})) for _ in range(schema.get("minItems", 0))]
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        value = low + (1 if "exclusiveMinimum" in schema and "minimum" not in schema else 0)
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return False
    if kind == "string":
        return "x" * max(1, schema.get("minLength", 1))
    return None


async def run(args: argparse.Namespace) -> int:
    server = StdioServerParameters(command=args.command[0], args=args.command[1:])
    overrides: dict[str, dict[str, Any]] = {}
    for spec in args.arg:
        tool, _, pair = spec.partition(":")
        key, _, text = pair.partition("=")
        overrides.setdefault(tool, {})[key] = json.loads(text)
    progress_counts = {tool: int(n) for tool, _, n in (p.partition("=") for p in args.progress)}
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params)

    modern_level = args.log_level if args.era == "modern" else None
    async with stdio_client(server) as (read, write):
        async with ClientSession(
            read,
            write,
            read_timeout_seconds=args.timeout,
            logging_callback=on_log,
            log_level=modern_level,
        ) as session:
            try:
                if args.era == "modern":
                    found = await session.discover()
                    check(
                        session.protocol_version == "2026-07-28",
                        f"{args.era}: server/discover negotiates 2026-07-28",
                        f"got {session.protocol_version} from {found}",
                    )
                else:
                    init = await session.initialize()
                    check(
                        init.protocol_version in ("2025-06-18", "2025-11-25"),
                        f"{args.era}: initialize negotiates {init.protocol_version}",
                        f"unexpected {init.protocol_version}",
                    )
                if args.log_level and args.era == "legacy":
                    await session.set_logging_level(args.log_level)
            except Exception as e:  # noqa: BLE001 - report anything the SDK raises
                check(False, f"{args.era}: session start", repr(e))
                return 2
            tools = []
            cursor = None
            if args.single_page:
                page = await session.list_tools()
                tools.extend(page.tools)
                if args.expect_next_cursor:
                    check(
                        page.next_cursor is not None,
                        f"{args.era}: one list_tools() call returns the first page only",
                        f"no nextCursor after {len(page.tools)} tools",
                    )
                else:
                    check(
                        page.next_cursor is None,
                        f"{args.era}: one list_tools() call returns the whole list",
                        f"nextCursor {page.next_cursor!r} after {len(page.tools)} tools",
                    )
            for _ in range(0 if args.single_page else 64):
                from mcp.types import PaginatedRequestParams

                page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
            names = [t.name for t in tools]
            if args.expect_tools is not None:
                check(len(tools) == args.expect_tools, f"{args.era}: tools/list has {args.expect_tools} tools", f"got {names}")
            else:
                check(len(tools) > 0, f"{args.era}: tools/list is not empty", "no tools")
            for tool in tools:
                if tool.name in args.skip:
                    continue
                arguments = sample(tool.input_schema) or {}
                arguments.update(overrides.get(tool.name, {}))
                name = f"{args.era}: tools/call {tool.name}"
                reports: list[tuple[float, float | None, str | None]] = []

                async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                    reports.append((progress, total, message))

                callback = on_progress if tool.name in progress_counts else None
                try:
                    result = await session.call_tool(tool.name, arguments, progress_callback=callback)
                except Exception as e:  # noqa: BLE001
                    if tool.name in args.expect_sdk_reject:
                        check("structured content" in str(e), name + " rejected by the SDK's own validation", repr(e))
                    else:
                        check(False, name, repr(e))
                    continue
                if tool.name in args.expect_sdk_reject:
                    check(False, name, f"the SDK accepted an invalid result: {result}")
                elif tool.name in args.expect_error:
                    text = " ".join(getattr(c, "text", "") for c in result.content)
                    check(bool(result.is_error), name + " is a tool error", f"isError={result.is_error}: {text}")
                    if result.is_error:
                        print(f"    ({text})", flush=True)
                else:
                    check(not result.is_error, name, f"isError: {result.content}")
                if callback is not None:
                    want = progress_counts[tool.name]
                    values = [p for p, _, _ in reports]
                    ok = (
                        len(reports) == want
                        and all(a < b for a, b in zip(values, values[1:]))
                        and bool(reports)
                        and reports[-1][0] == reports[-1][1]
                    )
                    check(ok, f"{name} reports progress {want} times, rising to its total", f"got {reports}")
            for spec in args.expect_log:
                level, _, logger = spec.partition(":")
                seen = [(m.level, m.logger) for m in logs]
                check((level, logger) in seen, f"{args.era}: a {level} log from {logger}", f"got {seen}")
            for level in args.expect_no_log:
                seen = [(m.level, m.logger) for m in logs]
                check(all(m.level != level for m in logs), f"{args.era}: no {level} log", f"got {seen}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--era", choices=["legacy", "modern"], required=True)
    parser.add_argument("--skip", action="append", default=[])
    parser.add_argument("--expect-error", action="append", default=[])
    parser.add_argument("--expect-sdk-reject", action="append", default=[])
    parser.add_argument("--arg", action="append", default=[])
    parser.add_argument("--expect-tools", type=int)
    parser.add_argument("--single-page", action="store_true")
    parser.add_argument("--expect-next-cursor", action="store_true")
    parser.add_argument("--progress", action="append", default=[])
    parser.add_argument("--log-level")
    parser.add_argument("--expect-log", action="append", default=[])
    parser.add_argument("--expect-no-log", action="append", default=[])
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    try:
        code = anyio.run(run, args)
    except Exception as e:  # noqa: BLE001
        check(False, f"{args.era}: session", repr(e))
        code = 2
    passed = sum(1 for ok, _ in results if ok)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed", flush=True)
    if code == 0 and failed:
        code = 1
    return code


if __name__ == "__main__":
    sys.exit(main())
