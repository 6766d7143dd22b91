// The generated TypeScript functions (golden/fake_device.ts) against the scripted fake device
// with the official SDK's Client (1.x, legacy handshake): typed values, ToolError, and results
// that break their schema refused by the function's own check (Ajv) with the field and the rule.
//
// usage: node fake_device.ts FAKE_DEVICE_PROGRAM   (Node 22 strips the types)
// Prints PASS/FAIL lines; exits 1 when a check failed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import * as fake from "../golden/fake_device.ts";

let failed = 0;
function check(ok: boolean, name: string, why: unknown = ""): void {
  console.log(ok ? `PASS ${name}` : `FAIL ${name}: ${JSON.stringify(why)}`);
  if (!ok) failed += 1;
}

const client = new Client({ name: "codegen-live", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: process.argv[2], args: [], stderr: "ignore" }));
try {
  const reading = await fake.readTemp(client);
  check(reading.celsius === 21.5 && reading.sensor === "t0", "typescript: readTemp typed", reading);
  const echo = await fake.echo(client, { n: 7, s: "x" });
  check(echo.n === 7 && echo.s === "x", "typescript: echo", echo);
  try {
    await fake.toolError(client);
    check(false, "typescript: toolError throws ToolError", "no exception");
  } catch (e) {
    check(e instanceof fake.ToolError && e.text === "sensor t0 not responding", "typescript: toolError throws ToolError", String(e));
  }
  const invalid: [string, () => Promise<unknown>, string, string][] = [
    ["badTemp", () => fake.badTemp(client), "/celsius", "maximum"],
    ["wrongType", () => fake.wrongType(client), "/celsius", "type"],
    ["noStructured", () => fake.noStructured(client), "", "structuredContent"],
  ];
  for (const [name, call, field, rule] of invalid) {
    try {
      await call();
      check(false, `typescript: ${name} throws OutputError`, "no exception");
    } catch (e) {
      const ok = e instanceof fake.OutputError && e.field === field && e.rule === rule;
      check(ok, `typescript: ${name} throws OutputError (${field} ${rule})`, String(e));
    }
  }
  const blocks = await fake.garbage(client);
  check(blocks.length === 1 && blocks[0].text === "after garbage", "typescript: a tool without outputSchema returns its content blocks", blocks);
} finally {
  await client.close();
}
process.exit(failed ? 1 : 0);
