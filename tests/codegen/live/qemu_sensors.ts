// The generated TypeScript functions (golden/qemu_sensors_2025_11_25.ts) against the
// qemu-sensors firmware through `embedded-mcp bridge --qemu`, with the official SDK 1.x Client
// (legacy handshake): typed values, the accelerometer's array unwrapped from its legacy
// `{"result": ...}`, and arguments the device refuses thrown as ToolError.
//
// usage: node qemu_sensors.ts EMBEDDED_MCP FIRMWARE.elf   (Node 22 strips the types)
// Prints PASS/FAIL lines; exits 1 when a check failed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import * as sensors from "../golden/qemu_sensors_2025_11_25.ts";

let failed = 0;
function check(ok: boolean, name: string, why: unknown = ""): void {
  console.log(ok ? `PASS ${name}` : `FAIL ${name}: ${JSON.stringify(why)}`);
  if (!ok) failed += 1;
}

const [bridge, firmware] = process.argv.slice(2);
const client = new Client({ name: "codegen-live", version: "1.0.0" });
await client.connect(
  new StdioClientTransport({ command: bridge, args: ["bridge", "--qemu", firmware], stderr: "ignore" }),
);
try {
  const t = await sensors.readTemperature(client, { sensor: 1 });
  check(t.sensorId === "tmp-ambient" && t.unit === "°C", "typescript: readTemperature typed", t);
  const [x, y, z] = await sensors.readAcceleration(client);
  check([x, y, z].every((v) => typeof v === "number"), "typescript: readAcceleration unwrapped", [x, y, z]);
  const led = await sensors.setLed(client, { led: "blue", brightness: 30 });
  check(led.led === "blue" && led.brightness === 30 && led.previous === 0, "typescript: setLed typed", led);
  try {
    await sensors.setLed(client, { led: "blue", brightness: 101 });
    check(false, "typescript: brightness 101 throws ToolError", "no exception");
  } catch (e) {
    check(e instanceof sensors.ToolError && e.text.includes("maximum"), "typescript: brightness 101 throws ToolError", String(e));
  }
} finally {
  await client.close();
}
process.exit(failed ? 1 : 0);
