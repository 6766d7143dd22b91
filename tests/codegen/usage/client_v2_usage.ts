// The generated functions take a `Client` of `@modelcontextprotocol/client` 2.x as well (the
// structural `ToolCaller`), with the same narrow types.
import { Client } from "@modelcontextprotocol/client";
import { readTemperature, setLed } from "../golden/qemu_sensors_2025_11_25.js";

export async function useV2(client: Client): Promise<number> {
  const t = await readTemperature(client, { sensor: 0 });
  const led = await setLed(client, { led: "red", brightness: 100 });
  // @ts-expect-error there is no purple channel
  await setLed(client, { led: "purple", brightness: 1 });
  return t.value + led.previous;
}
