// The official TypeScript MCP client (@modelcontextprotocol/sdk, installed with the Inspector)
// against an MCP stdio server, usually `embedded-mcp bridge --qemu FIRMWARE`: it sets the log
// level, calls TOOL with `onprogress`, and checks that it saw EXPECTED progress reports, strictly
// increasing, the last equal to its total, and log messages from the tool.
//
// usage: node progress_client.mjs TOOL EXPECTED LEVEL:LOGGER[,LEVEL:LOGGER...] -- COMMAND [ARGS...]
// Prints PASS/FAIL lines and `N passed, M failed`; exits 1 when a check failed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [tool, expectedText, logSpec, dashes, command, ...args] = process.argv.slice(2);
if (dashes !== "--" || !command) {
  console.error("usage: node progress_client.mjs TOOL EXPECTED LEVEL:LOGGER[,...] -- COMMAND [ARGS...]");
  process.exit(2);
}
const expected = Number(expectedText);
let passed = 0;
let failed = 0;
function check(ok, name, why) {
  if (ok) {
    passed += 1;
    console.log(`PASS ${name}`);
  } else {
    failed += 1;
    console.log(`FAIL ${name}: ${why}`);
  }
}

const client = new Client({ name: "embedded-mcp-progress-test", version: "1.0.0" });
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
  logs.push(n.params);
});
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
try {
  await client.connect(transport);
  check(true, `typescript client: connected (${client.getServerVersion()?.name})`);
  await client.setLoggingLevel("info");
  const reports = [];
  const result = await client.callTool({ name: tool, arguments: {} }, undefined, {
    onprogress: (p) => reports.push(p),
    timeout: 30000,
  });
  check(!result.isError, `typescript client: tools/call ${tool}`, JSON.stringify(result));
  const values = reports.map((r) => r.progress);
  const rising = values.every((v, i) => i === 0 || values[i - 1] < v);
  const last = reports[reports.length - 1];
  check(
    reports.length === expected && rising && last !== undefined && last.progress === last.total,
    `typescript client: onprogress saw ${expected} reports rising to the total`,
    JSON.stringify(reports),
  );
  for (const spec of logSpec.split(",")) {
    const [level, logger] = spec.split(":");
    check(
      logs.some((m) => m.level === level && m.logger === logger),
      `typescript client: a ${level} log from ${logger}`,
      JSON.stringify(logs),
    );
  }
} catch (e) {
  check(false, "typescript client: session", String(e?.stack ?? e));
} finally {
  await client.close().catch(() => {});
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
