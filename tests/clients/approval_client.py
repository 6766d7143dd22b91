"""A person approves a device's relay through a real MCP client: the official Python SDK 2.x
`Client` with an `elicitation_callback`, against `embedded-mcp bridge --qemu FIRMWARE` (the
qemu-sensors firmware and its `set_relay` tool).

`--era modern` pins 2026-07-28: the device's `input_required` passes the bridge unchanged and
the SDK drives the rounds itself. `--era legacy` makes the `initialize` handshake: the bridge's
input-required shim sends the SDK `elicitation/create` and retries on the device.

In one session: accept switches relay 1 on, decline and cancel leave relay 0 off (each a tool
error), every state read back with `device_info`; the callback must have seen one question per
call.

Prints one `PASS name` / `FAIL name: why` line per check and a last line `N passed, M failed`;
exits 1 when a check failed, 2 when the session could not start.

usage: approval_client.py --era legacy|modern -- COMMAND [ARGS...]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import ElicitResult

results: list[bool] = []


def check(ok: bool, name: str, why: Any = "") -> None:
    results.append(ok)
    print(f"PASS {name}" if ok else f"FAIL {name}: {why}", flush=True)


async def run(era: str, command: list[str]) -> int:
    server = StdioServerParameters(command=command[0], args=command[1:])
    answers: list[str] = []
    questions: list[str] = []

    async def on_elicit(_context: Any, params: Any) -> ElicitResult:
        questions.append(params.message)
        action = answers.pop(0)
        content = {"approve": True} if action == "accept" else None
        return ElicitResult(action=action, content=content)

    mode = "legacy" if era == "legacy" else "2026-07-28"
    try:
        client = Client(server, mode=mode, elicitation_callback=on_elicit, read_timeout_seconds=30)
        async with client:
            check(
                (client.protocol_version == "2026-07-28") == (era == "modern"),
                f"{era}: connected at {client.protocol_version}",
            )

            async def relays() -> Any:
                info = await client.call_tool("device_info", {})
                return (info.structured_content or {}).get("relays")

            async def switch_on(relay: int, answer: str) -> Any:
                answers.append(answer)
                asked = len(questions)
                result = await client.call_tool("set_relay", {"relay": relay, "on": True})
                check(
                    len(questions) == asked + 1 and f"relay {relay}" in questions[-1],
                    f"{era}: {answer}: the person was asked once",
                    questions,
                )
                return result

            done = await switch_on(1, "accept")
            check(
                not done.is_error
                and done.structured_content == {"relay": 1, "on": True, "wasOn": False},
                f"{era}: accept switches relay 1 on",
                done,
            )
            state = await relays()
            check(state == [False, True], f"{era}: device_info shows relay 1 on", state)
            for answer in ("decline", "cancel"):
                refused = await switch_on(0, answer)
                text = refused.content[0].text if refused.content else ""
                check(
                    refused.is_error and answer[:6] in text,
                    f"{era}: {answer} is a tool error saying so",
                    refused,
                )
                state = await relays()
                check(state == [False, True], f"{era}: {answer}: relay 0 stays off", state)
    except Exception as e:  # noqa: BLE001 - report anything the SDK raises
        check(False, f"{era}: session", repr(e))
        return 2
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--era", choices=["legacy", "modern"], required=True)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    code = anyio.run(run, args.era, command)
    failed = results.count(False)
    print(f"{results.count(True)} passed, {failed} failed")
    return code or (1 if failed else 0)


if __name__ == "__main__":
    sys.exit(main())
