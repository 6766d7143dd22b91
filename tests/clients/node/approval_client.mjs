// A person approves a device's relay through the official TypeScript MCP client 2.x
// (@modelcontextprotocol/client) with an `elicitation/create` handler, against
// `embedded-mcp bridge --qemu FIRMWARE` (qemu-sensors and its `set_relay` tool).
//
// `modern` pins 2026-07-28: the device's `input_required` passes the bridge unchanged and the
// SDK fulfils it itself (autoFulfill). `legacy` makes the `initialize` handshake: the bridge's
// input-required shim sends `elicitation/create` and the same handler answers it.
// In one session: accept switches relay 1 on, decline and cancel leave relay 0 off (each a tool
// error), every state read back with `device_info`.
//
// usage: node approval_client.mjs legacy|modern -- COMMAND [ARGS...]
// Prints PASS/FAIL lines and `N passed, M failed`; exits 1 when a check failed.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [era, dashes, command, ...args] = process.argv.slice(2);
if (!["legacy", "modern"].includes(era) || dashes !== "--" || !command) {
  console.error("usage: node approval_client.mjs legacy|modern -- COMMAND [ARGS...]");
  process.exit(2);
}
let passed = 0;
let failed = 0;
function check(ok, name, why) {
  if (ok) {
    passed += 1;
    console.log(`PASS ${name}`);
  } else {
    failed += 1;
    console.log(`FAIL ${name}: ${JSON.stringify(why)}`);
  }
}

const options = { capabilities: { elicitation: {} } };
if (era === "modern") {
  options.versionNegotiation = { mode: { pin: "2026-07-28" } };
}
const client = new Client({ name: "embedded-mcp-approval-test", version: "1.0.0" }, options);
const answers = [];
const questions = [];
client.setRequestHandler("elicitation/create", async (request) => {
  questions.push(request.params.message);
  const action = answers.shift();
  return action === "accept" ? { action, content: { approve: true } } : { action };
});
const transport = new StdioClientTransport({ command, args, stderr: "ignore" });
try {
  await client.connect(transport);
  check(client.getProtocolEra() === era, `typescript ${era}: connected (era ${client.getProtocolEra()})`);
  const relays = async () =>
    (await client.callTool({ name: "device_info", arguments: {} })).structuredContent?.relays;
  const switchOn = async (relay, answer) => {
    answers.push(answer);
    const asked = questions.length;
    const result = await client.callTool(
      { name: "set_relay", arguments: { relay, on: true } },
      { timeout: 30000 },
    );
    check(
      questions.length === asked + 1 && questions.at(-1).includes(`relay ${relay}`),
      `typescript ${era}: ${answer}: the person was asked once`,
      questions,
    );
    return result;
  };
  const done = await switchOn(1, "accept");
  check(
    !done.isError && JSON.stringify(done.structuredContent) === '{"relay":1,"on":true,"wasOn":false}',
    `typescript ${era}: accept switches relay 1 on`,
    done,
  );
  let state = await relays();
  check(JSON.stringify(state) === "[false,true]", `typescript ${era}: device_info shows relay 1 on`, state);
  for (const answer of ["decline", "cancel"]) {
    const refused = await switchOn(0, answer);
    check(
      refused.isError === true && refused.content?.[0]?.text?.includes(answer.slice(0, 6)),
      `typescript ${era}: ${answer} is a tool error saying so`,
      refused,
    );
    state = await relays();
    check(JSON.stringify(state) === "[false,true]", `typescript ${era}: ${answer}: relay 0 stays off`, state);
  }
} catch (e) {
  check(false, `typescript ${era}: session`, String(e?.stack ?? e));
} finally {
  await client.close().catch(() => {});
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
