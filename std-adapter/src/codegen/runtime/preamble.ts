/** What calls tools: a `Client` of `@modelcontextprotocol/sdk` 1.x or of `@modelcontextprotocol/client` 2.x (any object with its `callTool` method). */
export interface ToolCaller {
  callTool(params: {
    name: string;
    arguments?: Record<string, unknown>;
  }): Promise<unknown>;
}

/** A tool's own failure: its result had `isError: true`. `text` is what the tool said. */
export class ToolError extends Error {
  readonly tool: string;
  readonly text: string;

  constructor(tool: string, text: string) {
    super(`${tool} failed: ${text}`);
    this.name = "ToolError";
    this.tool = tool;
    this.text = text;
  }
}

/** A result that breaks the tool's `outputSchema`: `field` is the JSON Pointer of the value, `rule` the keyword it broke. */
export class OutputError extends Error {
  readonly tool: string;
  readonly field: string;
  readonly rule: string;

  constructor(tool: string, field: string, rule: string, detail: string) {
    super(
      `${tool} returned an invalid result: field "${field}" broke rule \`${rule}\`: ${detail}`,
    );
    this.name = "OutputError";
    this.tool = tool;
    this.field = field;
    this.rule = rule;
  }
}

/** A content block of a result (text, image, audio, resource link, embedded resource). */
export interface ContentBlock {
  type: string;
  [key: string]: unknown;
}

interface CallResult {
  content?: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
}

const ajv = new Ajv2020({ strict: false, validateFormats: false });
const validators = new Map<string, ValidateFunction>();

/** The text blocks of `content`, joined. */
function textOf(content: ContentBlock[] | undefined): string {
  return (content ?? [])
    .flatMap((block) =>
      block.type === "text" && typeof block.text === "string"
        ? [block.text]
        : [],
    )
    .join("\n");
}

/** Calls `name`; throws `ToolError` for `isError`; returns the content blocks. */
async function call(
  caller: ToolCaller,
  name: string,
  input: object,
): Promise<CallResult> {
  const result = (await caller.callTool({
    name,
    arguments: { ...input },
  })) as CallResult;
  if (result.isError === true) {
    throw new ToolError(name, textOf(result.content));
  }
  return result;
}

/** Calls `name` and returns its `structuredContent` checked against `schema` (unwrapped from a legacy `{"result": …}` when `wrapped`). */
async function callChecked<T>(
  caller: ToolCaller,
  name: string,
  input: object,
  schema: string,
  wrapped: boolean,
): Promise<T> {
  const result = await call(caller, name, input);
  let value = result.structuredContent;
  if (value === undefined) {
    throw new OutputError(
      name,
      "",
      "structuredContent",
      "the result has no structuredContent",
    );
  }
  if (
    wrapped &&
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    "result" in value
  ) {
    value = value.result;
  }
  let validate = validators.get(name);
  if (validate === undefined) {
    // Checked as JSON Schema 2020-12, MCP's default dialect: Ajv2020 refuses to compile a
    // schema naming another meta-schema.
    const { $schema, ...rest } = JSON.parse(schema) as Record<string, unknown>;
    void $schema;
    validate = ajv.compile(rest);
    validators.set(name, validate);
  }
  if (!validate(value)) {
    const error = validate.errors?.[0];
    throw new OutputError(
      name,
      error?.instancePath ?? "",
      error?.keyword ?? "",
      error?.message ?? "invalid",
    );
  }
  return value as T;
}

/** Calls `name` and returns its content blocks (a tool without `outputSchema`). */
async function callContent(
  caller: ToolCaller,
  name: string,
  input: object,
): Promise<ContentBlock[]> {
  return (await call(caller, name, input)).content ?? [];
}
