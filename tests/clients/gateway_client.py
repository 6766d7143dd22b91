"""The official Python SDK (2.x) through nginx in front of two embedded-mcp replicas, whose
devices are two remote gateways (tests/tests/gateway_nginx.rs starts all of it and runs this
when EMCP_PYTHON_SDK names a Python with the SDK; tests/clients/run.sh does so).

Streamable HTTP in both eras, each a `Client` of the URL:

- 2026-07-28 (`mode="2026-07-28"`, stateless, spread over the replicas): lists both gateways'
  tools (`bench1.sensors.*`, `bench2.riscv.*`), calls `device_info` on each (each names its
  firmware), and switches relay 1 of bench1 on: the device's `input_required` passes both hubs
  unchanged and the SDK asks `elicitation_callback` itself, then retries;
- legacy (`mode="legacy"`, one session pinned through nginx): switches relay 0 of bench1 on, the
  top hub's input-required shim asking the SDK with `elicitation/create`.

Prints one `PASS name` / `FAIL name: why` line per check and a last line `N passed, M failed`;
exits 1 when a check failed, 2 when a session could not start.

usage: gateway_client.py URL
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
from mcp import Client
from mcp.types import ElicitResult

results: list[bool] = []


def check(ok: bool, name: str, why: Any = "") -> None:
    results.append(ok)
    print(f"PASS {name}" if ok else f"FAIL {name}: {why}", flush=True)


async def run(url: str) -> int:
    questions: list[str] = []

    async def on_elicit(_context: Any, params: Any) -> ElicitResult:
        questions.append(params.message)
        return ElicitResult(action="accept", content={"approve": True})

    for era, mode, relay in (("2026-07-28", "2026-07-28", 1), ("legacy", "legacy", 0)):
        try:
            client = Client(url, mode=mode, elicitation_callback=on_elicit, read_timeout_seconds=30)
            async with client:
                check(
                    (client.protocol_version == "2026-07-28") == (era == "2026-07-28"),
                    f"{era}: connected at {client.protocol_version}",
                )
                names = [t.name for t in (await client.list_tools()).tools]
                check(
                    "bench1.sensors.read_temperature" in names and "bench2.riscv.read_temperature" in names,
                    f"{era}: both gateways' tools listed",
                    names,
                )
                for tool, firmware in (
                    ("bench1.sensors.device_info", "qemu-sensors"),
                    ("bench2.riscv.device_info", "qemu-riscv"),
                ):
                    info = await client.call_tool(tool, {})
                    got = (info.structured_content or {}).get("firmware")
                    check(not info.is_error and got == firmware, f"{era}: {tool} answers from {firmware}", info)
                asked = len(questions)
                done = await client.call_tool("bench1.sensors.set_relay", {"relay": relay, "on": True})
                check(
                    len(questions) == asked + 1
                    and not done.is_error
                    and done.structured_content == {"relay": relay, "on": True, "wasOn": False},
                    f"{era}: relay {relay} of bench1 switched on after one question",
                    (questions, done),
                )
        except Exception as e:  # noqa: BLE001 - report anything the SDK raises
            check(False, f"{era}: session", repr(e))
            return 2
    return 0


def main() -> int:
    code = anyio.run(run, sys.argv[1])
    failed = results.count(False)
    print(f"{results.count(True)} passed, {failed} failed")
    return code or (1 if failed else 0)


if __name__ == "__main__":
    sys.exit(main())
