"""The generated Python functions (golden/qemu_sensors_2025_11_25.py) against the qemu-sensors
firmware through `embedded-mcp bridge --qemu`, with the official SDK's ClientSession, in both
eras: typed values (the accelerometer's array unwrapped from its legacy `{"result": ...}`), and
arguments the device refuses raised as ToolError.

usage: qemu_sensors.py EMBEDDED_MCP FIRMWARE.elf
Prints PASS/FAIL lines; exits 1 when a check failed."""

import asyncio
import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "golden"))
import qemu_sensors_2025_11_25 as sensors  # noqa: E402

failed = 0


def check(ok: bool, name: str, why: Any = "") -> None:
    global failed
    print(f"PASS {name}" if ok else f"FAIL {name}: {why}")
    failed += 0 if ok else 1


async def era(bridge: str, firmware: str, modern: bool) -> None:
    name = "2026-07-28" if modern else "legacy"
    server = StdioServerParameters(command=bridge, args=["bridge", "--qemu", firmware])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=20) as session:
            await (session.discover() if modern else session.initialize())
            t = await sensors.read_temperature(session, sensor=1)
            check(t["sensorId"] == "tmp-ambient" and t["unit"] == "°C" and -40 <= t["value"] <= 125,
                  f"{name}: read_temperature(sensor=1) typed", t)
            acceleration = await sensors.read_acceleration(session)
            check(isinstance(acceleration, list) and len(acceleration) == 3,
                  f"{name}: read_acceleration returns [x, y, z] (unwrapped)", acceleration)
            led = await sensors.set_led(session, led="green", brightness=40)
            check(led == {"led": "green", "brightness": 40, "previous": 0}, f"{name}: set_led typed", led)
            try:
                await sensors.set_led(session, led="green", brightness=101)  # type: ignore[arg-type]
                check(False, f"{name}: brightness 101 raises ToolError", "no exception")
            except sensors.ToolError as e:
                check("maximum" in e.text, f"{name}: brightness 101 raises ToolError", e.text)
            info = await sensors.device_info(session)
            check(info["calls"] >= 1 and isinstance(info["uptimeMs"], int), f"{name}: device_info typed", info)


async def main() -> None:
    for modern in (False, True):
        await era(sys.argv[1], sys.argv[2], modern)


asyncio.run(main())
sys.exit(1 if failed else 0)
