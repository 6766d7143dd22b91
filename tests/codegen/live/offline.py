"""The generated Python functions (golden/features.py) against in-process sessions that answer
with chosen results: a non-object output unwrapped from a legacy `{"result": ...}` or taken as it
is, a `null` output, OutputError and ToolError.

usage: offline.py
Prints PASS/FAIL lines; exits 1 when a check failed."""

import asyncio
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Awaitable, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "golden"))
import features as f  # noqa: E402

failed = 0


class Answering:
    """A session whose `call_tool` answers with one SDK 2.x-shaped result."""

    def __init__(self, **result: Any) -> None:
        fields: dict[str, Any] = {"content": [], "is_error": None, "structured_content": None}
        self.result = SimpleNamespace(**(fields | result))

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        return self.result


async def outcome(call: Callable[[], Awaitable[Any]]) -> str:
    try:
        return f"value {await call()!r}"
    except f.OutputError as e:
        return f"OutputError {e.field} {e.rule}"
    except f.ToolError as e:
        return f"ToolError {e.text}"


async def main() -> None:
    global failed
    text = SimpleNamespace(type="text", text="busy")
    cases = [
        ("legacy wrapper unwrapped", Answering(structured_content={"result": "1.2"}), f.firmware_version, "value '1.2'"),
        ("2026-07-28 string root", Answering(structured_content="1.2"), f.firmware_version, "value '1.2'"),
        ("string root breaks minLength", Answering(structured_content=""), f.firmware_version, "OutputError  minLength"),
        ("null root", Answering(), lambda s: f.class_(s, type="x"), "value None"),
        ("no structuredContent", Answering(), f.draft7_reading, "OutputError  structuredContent"),
        ("schema checked", Answering(structured_content={"a": 9}), f.draft7_reading, "OutputError /a maximum"),
        ("isError", Answering(is_error=True, content=[text]), f.draft7_reading, "ToolError busy"),
    ]
    for name, session, fn, expected in cases:
        got = await outcome(lambda: fn(session))
        ok = got == expected
        print(f"PASS python offline: {name}" if ok else f"FAIL python offline: {name}: {got}")
        failed += 0 if ok else 1


asyncio.run(main())
sys.exit(1 if failed else 0)
