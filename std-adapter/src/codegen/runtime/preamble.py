_T = TypeVar("_T")


class ToolCaller(Protocol):
    """What calls tools: the official SDK's `ClientSession` or `Client` (1.x or 2.x)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None
    ) -> Any: ...


class ToolError(Exception):
    """A tool's own failure: its result had `isError: true`. `text` is what the tool said."""

    def __init__(self, tool: str, text: str) -> None:
        super().__init__(f"{tool} failed: {text}")
        self.tool = tool
        self.text = text


class OutputError(Exception):
    """A result that breaks the tool's `outputSchema`: `field` is the JSON Pointer of the value, `rule` the keyword it broke."""

    def __init__(self, tool: str, field: str, rule: str, detail: str) -> None:
        super().__init__(
            f"{tool} returned an invalid result: field {field!r} broke rule `{rule}`: {detail}"
        )
        self.tool = tool
        self.field = field
        self.rule = rule


def _field(result: Any, snake: str, camel: str) -> Any:
    """A `CallToolResult` member under its SDK 2.x (snake_case) or 1.x (camelCase) name."""
    return getattr(result, snake, getattr(result, camel, None))


def _output_error(tool: str, error: jsonschema.ValidationError) -> OutputError:
    """The `OutputError` of a failed check: the value's JSON Pointer and the rule."""
    field = "".join(
        "/" + str(part).replace("~", "~0").replace("/", "~1")
        for part in error.absolute_path
    )
    return OutputError(tool, field, str(error.validator), error.message)


class _Tool(Generic[_T]):
    """One tool: its name and the schema its `structuredContent` is checked against."""

    def __init__(self, name: str, schema: str | None, wrapped: bool) -> None:
        self.name = name
        self.validator = (
            None
            if schema is None
            else jsonschema.Draft202012Validator(json.loads(schema))
        )
        self.wrapped = wrapped

    async def call(self, session: ToolCaller, arguments: dict[str, Any]) -> _T:
        """Calls the tool; raises `ToolError` or `OutputError`; returns the checked value (the content blocks for a tool without `outputSchema`)."""
        try:
            result = await session.call_tool(self.name, arguments)
        except RuntimeError as error:
            # SDK 2.x checks `structuredContent` itself against the schema it listed.
            cause = error.__cause__
            if isinstance(cause, jsonschema.ValidationError):
                raise _output_error(self.name, cause) from error
            if "did not return structured content" in str(error):
                raise OutputError(
                    self.name, "", "structuredContent", str(error)
                ) from error
            raise
        content = _field(result, "content", "content")
        if _field(result, "is_error", "isError"):
            texts = [
                getattr(block, "text", "")
                for block in content or []
                if getattr(block, "type", "") == "text"
            ]
            raise ToolError(self.name, "\n".join(texts))
        if self.validator is None:
            return cast(_T, content)
        value = _field(result, "structured_content", "structuredContent")
        if value is None and self.validator.is_valid(None):
            # A `null` output (2026-07-28) reads like no structuredContent in the SDK.
            return cast(_T, None)
        if value is None:
            raise OutputError(
                self.name,
                "",
                "structuredContent",
                "the result has no structuredContent",
            )
        if self.wrapped and isinstance(value, dict) and list(value) == ["result"]:
            value = value["result"]
        failure = jsonschema.exceptions.best_match(self.validator.iter_errors(value))
        if failure is not None:
            raise _output_error(self.name, failure)
        return cast(_T, value)
