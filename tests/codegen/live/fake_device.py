"""The generated Python functions (golden/fake_device.py) against the scripted fake device with
the official SDK's ClientSession, in both eras: typed values, ToolError, and results that break
their schema refused by the function's own check (jsonschema) with the field and the rule.

usage: fake_device.py FAKE_DEVICE_PROGRAM
Prints PASS/FAIL lines; exits 1 when a check failed."""

import asyncio
import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "golden"))
import fake_device as fake  # noqa: E402

failed = 0


def check(ok: bool, name: str, why: Any = "") -> None:
    global failed
    print(f"PASS {name}" if ok else f"FAIL {name}: {why}")
    failed += 0 if ok else 1


async def era(program: str, modern: bool) -> None:
    name = "2026-07-28" if modern else "legacy"
    server = StdioServerParameters(command=program, args=[])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=10) as session:
            await (session.discover() if modern else session.initialize())
            reading = await fake.read_temp(session)
            check(reading == {"celsius": 21.5, "sensor": "t0"}, f"{name}: read_temp typed", reading)
            echo = await fake.echo(session, n=7, s="x")
            check(echo == {"n": 7, "s": "x"}, f"{name}: echo sends snake_case kwargs by wire name", echo)
            try:
                await fake.tool_error(session)
                check(False, f"{name}: tool_error raises ToolError", "no exception")
            except fake.ToolError as e:
                check(e.text == "sensor t0 not responding", f"{name}: tool_error raises ToolError", e.text)
            for tool, field, rule in [(fake.bad_temp, "/celsius", "maximum"), (fake.wrong_type, "/celsius", "type"),
                                      (fake.no_structured, "", "structuredContent")]:
                try:
                    await tool(session)
                    check(False, f"{name}: {tool.__name__} raises OutputError", "no exception")
                except fake.OutputError as e:
                    check((e.field, e.rule) == (field, rule), f"{name}: {tool.__name__} raises OutputError ({field} {rule})",
                          (e.field, e.rule, str(e)))
            blocks = await fake.garbage(session)
            check([getattr(b, "text", None) for b in blocks] == ["after garbage"],
                  f"{name}: a tool without outputSchema returns its content blocks", blocks)


async def main() -> None:
    for modern in (False, True):
        await era(sys.argv[1], modern)


asyncio.run(main())
sys.exit(1 if failed else 0)
