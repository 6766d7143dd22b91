"""Uses the generated sensor functions with the official SDK's session types, and misuses them
on purpose: every `# type: ignore[...]` must be needed (mypy --strict reports an unused one),
so the types are as narrow as the schemas."""

from mcp import ClientSession
from mcp.client.client import Client

import features
import qemu_sensors_2025_11_25 as sensors


async def use(session: ClientSession, client: Client) -> str:
    t = await sensors.read_temperature(session, sensor=1)
    celsius: float = t["value"]
    sensor: str = t["sensorId"]
    x, y, z = await sensors.read_acceleration(client)
    led = await sensors.set_led(session, led="green", brightness=40)
    version: str = await features.firmware_version(session)
    await features.run_sequence(
        session, steps=[{"kind": "wait", "ms": 10}], ramp_ms=5, mode="fast"
    )
    await sensors.set_led(session, led="green", brightness="40")  # type: ignore[arg-type]
    await sensors.set_led(session, led="purple", brightness=1)  # type: ignore[arg-type]
    await sensors.set_led(session, led="red")  # type: ignore[call-arg]
    await sensors.read_temperature(session, extra=1)  # type: ignore[call-arg]
    print(t["celsius"])  # type: ignore[typeddict-item]
    await features.run_sequence(session, steps=[{"kind": "wait"}])  # type: ignore[list-item]
    await features.run_sequence(session, steps=[], mode="slow")  # type: ignore[arg-type]
    try:
        await sensors.set_led(session, led="blue", brightness=0)
    except sensors.ToolError as error:
        return error.text
    return f"{celsius} {sensor} {x} {y} {z} {led['previous']} {version}"
