// The generated TypeScript functions (golden/features.ts) against in-process callers that answer
// with chosen results: a non-object output unwrapped from a legacy `{"result": ...}` or taken as
// it is, a schema naming draft-07 checked all the same, OutputError and ToolError.
//
// usage: node offline.ts   (Node 22 strips the types)
// Prints PASS/FAIL lines; exits 1 when a check failed.
import * as f from "../golden/features.ts";

let failed = 0;
function check(ok: boolean, name: string, why: unknown = ""): void {
  console.log(ok ? `PASS ${name}` : `FAIL ${name}: ${JSON.stringify(why)}`);
  if (!ok) failed += 1;
}
const answering = (result: object): f.ToolCaller => ({ callTool: async () => result });
async function outcome(call: () => Promise<unknown>): Promise<string> {
  try {
    return `value ${JSON.stringify(await call())}`;
  } catch (e) {
    if (e instanceof f.OutputError) return `OutputError ${e.field} ${e.rule}`;
    if (e instanceof f.ToolError) return `ToolError ${e.text}`;
    return `other ${String(e)}`;
  }
}

const cases: [string, object, () => (c: f.ToolCaller) => Promise<unknown>, string][] = [
  ["legacy wrapper unwrapped", { content: [], structuredContent: { result: "1.2" } }, () => f.firmwareVersion, 'value "1.2"'],
  ["2026-07-28 string root", { content: [], structuredContent: "1.2" }, () => f.firmwareVersion, 'value "1.2"'],
  ["string root breaks minLength", { content: [], structuredContent: "" }, () => f.firmwareVersion, "OutputError  minLength"],
  ["null root", { content: [], structuredContent: null }, () => (c) => f.class_(c, { type: "x" }), "value null"],
  ["draft-07 schema checked", { content: [], structuredContent: { a: 9 } }, () => f.draft7Reading, "OutputError /a maximum"],
  ["draft-07 schema passes", { content: [], structuredContent: { a: 3 } }, () => f.draft7Reading, 'value {"a":3}'],
  ["isError", { content: [{ type: "text", text: "busy" }], isError: true }, () => f.draft7Reading, "ToolError busy"],
];
for (const [name, result, fn, expected] of cases) {
  const got = await outcome(() => fn()(answering(result)));
  check(got === expected, `typescript offline: ${name}`, got);
}
process.exit(failed ? 1 : 0);
