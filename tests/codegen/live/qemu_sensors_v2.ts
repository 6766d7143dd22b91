// The generated TypeScript functions (golden/qemu_sensors_2025_11_25.ts) against the
// qemu-sensors firmware through `embedded-mcp bridge --qemu`, with `@modelcontextprotocol/client`
// 2.x in both eras (the legacy handshake, and 2026-07-28 pinned): typed values, the
// accelerometer's array (wrapped for legacy peers) unwrapped, a refused argument as ToolError.
//
// usage: node qemu_sensors_v2.ts EMBEDDED_MCP FIRMWARE.elf   (Node 22 strips the types)
// Prints PASS/FAIL lines; exits 1 when a check failed.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import * as sensors from "../golden/qemu_sensors_2025_11_25.ts";

let failed = 0;
function check(ok: boolean, name: string, why: unknown = ""): void {
  console.log(ok ? `PASS ${name}` : `FAIL ${name}: ${JSON.stringify(why)}`);
  if (!ok) failed += 1;
}

const [bridge, firmware] = process.argv.slice(2);
for (const pin of [undefined, "2026-07-28"]) {
  const options = pin === undefined ? {} : { versionNegotiation: { mode: { pin } } };
  const client = new Client({ name: "codegen-live", version: "1.0.0" }, options);
  await client.connect(
    new StdioClientTransport({ command: bridge, args: ["bridge", "--qemu", firmware], stderr: "ignore" }),
  );
  const era = `client 2.x, ${client.getNegotiatedProtocolVersion()}`;
  try {
    check(client.getProtocolEra() === (pin ? "modern" : "legacy"), `${era}: era`, client.getProtocolEra());
    const t = await sensors.readTemperature(client, { sensor: 1 });
    check(t.sensorId === "tmp-ambient" && t.unit === "°C", `${era}: readTemperature typed`, t);
    const axes = await sensors.readAcceleration(client);
    check(axes.length === 3 && axes.every((v) => typeof v === "number"), `${era}: readAcceleration unwrapped`, axes);
    const led = await sensors.setLed(client, { led: "blue", brightness: 30 });
    check(led.brightness === 30 && led.previous === 0, `${era}: setLed typed`, led);
    try {
      await sensors.setLed(client, { led: "blue", brightness: 101 });
      check(false, `${era}: brightness 101 throws ToolError`, "no exception");
    } catch (e) {
      check(e instanceof sensors.ToolError && e.text.includes("maximum"), `${era}: brightness 101 throws ToolError`, String(e));
    }
  } finally {
    await client.close();
  }
}
process.exit(failed ? 1 : 0);
