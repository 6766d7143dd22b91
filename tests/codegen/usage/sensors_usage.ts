// Uses the generated sensor functions with the official SDK's client, and misuses them on
// purpose: every `@ts-expect-error` must be needed (tsc fails on an unused one), so the types
// are as narrow as the schemas.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  readAcceleration,
  readTemperature,
  setLed,
  ToolError,
} from "../golden/qemu_sensors_2025_11_25.js";
import { runSequence, firmwareVersion } from "../golden/features.js";

export async function use(client: Client): Promise<string> {
  const t = await readTemperature(client, { sensor: 1 });
  const celsius: number = t.value;
  const unit: "°C" = t.unit;
  const sensor: "tmp-board" | "tmp-ambient" = t.sensorId;
  const [x, y, z]: [number, number, number] = await readAcceleration(client);
  const led = await setLed(client, { led: "green", brightness: 40 });
  const version: string = await firmwareVersion(client);
  await runSequence(client, {
    steps: [
      { kind: "wait", ms: 10 },
      { kind: "led", led: "red", on: true },
    ],
  });
  // @ts-expect-error brightness is a number
  await setLed(client, { led: "green", brightness: "40" });
  // @ts-expect-error there is no purple channel
  await setLed(client, { led: "purple", brightness: 1 });
  // @ts-expect-error brightness is required
  await setLed(client, { led: "red" });
  // @ts-expect-error the result has no `celsius`
  void t.celsius;
  const acceleration = await readAcceleration(client);
  // @ts-expect-error three axes only
  void acceleration[3];
  // @ts-expect-error a wait step needs `ms`
  await runSequence(client, { steps: [{ kind: "wait" }] });
  // @ts-expect-error unknown arguments are refused (additionalProperties: false)
  await readTemperature(client, { sensor: 0, extra: 1 });
  try {
    await setLed(client, { led: "blue", brightness: 0 });
  } catch (error) {
    if (error instanceof ToolError) return error.text;
  }
  return `${celsius}${unit} ${sensor} ${x} ${y} ${z} ${led.previous} ${version}`;
}
