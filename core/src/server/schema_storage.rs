//! The compiled schemas of every tool, and the storage to compile them into.

use crate::json::Value;
use crate::schema::{compile, KeywordSet, Keywords, Program, Storage, Violation};

use super::error::{DefinitionError, SchemaRole};
use super::Tool;

/// The compiled schemas of one tool: for firmware that compiles on the host
/// (`embedded-mcp schema compile`) and loads the programs from flash with
/// [`Program::from_postcard`], then builds the server with
/// [`Server::with_programs`](super::Server::with_programs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolSchemas<'p> {
    /// The compiled `inputSchema`.
    pub input: Program<'p>,
    /// The compiled `outputSchema`; `Some` exactly when the tool declares one.
    pub output: Option<Program<'p>>,
}

/// Memory to compile the schemas of `TOOLS` tools at start-up: two [`Storage`]s per tool (input
/// and output), each of `NODES` subschemas, `OPS` instructions and `TEXT` bytes, enough for the
/// largest schema. A node costs 14 bytes and an op 8 bytes of RAM, so this takes
/// `2 * TOOLS * (14 * NODES + 8 * OPS + TEXT)` bytes (`tests/tests/engine_stack.rs` checks the
/// formula). Firmware short of RAM gives [`Server::with_programs`](super::Server::with_programs)
/// programs in storages sized for each schema instead, compiled at start-up or loaded from
/// flash ([`Program::from_postcard`] keeps the text in flash; nodes and ops are still decoded
/// into RAM).
#[derive(Debug, Clone)]
pub struct SchemaStorage<
    const TOOLS: usize,
    const NODES: usize,
    const OPS: usize,
    const TEXT: usize,
> {
    input: [Storage<NODES, OPS, TEXT>; TOOLS],
    output: [Storage<NODES, OPS, TEXT>; TOOLS],
}

impl<const TOOLS: usize, const NODES: usize, const OPS: usize, const TEXT: usize>
    SchemaStorage<TOOLS, NODES, OPS, TEXT>
{
    /// Empty storage (usable in a `static`).
    pub const fn new() -> Self {
        Self {
            input: [const { Storage::new() }; TOOLS],
            output: [const { Storage::new() }; TOOLS],
        }
    }
}

impl<const TOOLS: usize, const NODES: usize, const OPS: usize, const TEXT: usize> Default
    for SchemaStorage<TOOLS, NODES, OPS, TEXT>
{
    fn default() -> Self {
        Self::new()
    }
}

/// Compiles every tool's schemas into `storage`.
pub(crate) fn compile_all<
    'p,
    const TOOLS: usize,
    const N: usize,
    const O: usize,
    const T: usize,
>(
    tools: &[Tool; TOOLS],
    storage: &'p mut SchemaStorage<TOOLS, N, O, T>,
) -> Result<[Option<ToolSchemas<'p>>; TOOLS], DefinitionError> {
    // Without the validator nothing is compiled (and the compiler is not linked).
    #[cfg(not(feature = "validator"))]
    {
        let _ = (tools, storage);
        return Ok([None; TOOLS]);
    }
    #[cfg_attr(not(feature = "validator"), allow(unreachable_code))]
    let mut inputs = storage.input.iter_mut();
    let mut outputs = storage.output.iter_mut();
    let mut failure = None;
    let compiled = core::array::from_fn(|index| {
        let tool = tools.get(index)?;
        let (input_storage, output_storage) = (inputs.next()?, outputs.next()?);
        let refused = |role, error| DefinitionError::SchemaRefused {
            tool: index,
            role,
            error,
        };
        let input = match compile(tool.input_schema.as_bytes(), input_storage) {
            Ok(program) => program,
            Err(e) => {
                failure.get_or_insert(refused(SchemaRole::Input, e));
                return None;
            }
        };
        let output = match tool.output_schema {
            None => None,
            Some(schema) => match compile(schema.as_bytes(), output_storage) {
                Ok(program) => Some(program),
                Err(e) => {
                    failure.get_or_insert(refused(SchemaRole::Output, e));
                    return None;
                }
            },
        };
        Some(ToolSchemas { input, output })
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(compiled),
    }
}

/// Why a value was not accepted by a tool's schema.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "validator"), allow(dead_code))]
pub(crate) enum Rejection {
    /// The schema's verdict.
    Violation(Violation),
    /// No compiled program for the tool (cannot happen once the server is built).
    Missing,
}

impl crate::json::Describe for Rejection {
    fn describe(&self, out: &mut dyn crate::json::Sink) -> Result<(), crate::json::EncodeError> {
        match self {
            Self::Violation(v) => v.describe(out),
            Self::Missing => out.put(b"no compiled schema"),
        }
    }
}

/// The keywords of every program in `programs` (a `const fn`: for programs known when the
/// firmware is built, see [`Validator::built_for`]).
pub(crate) const fn keywords_of(programs: &[ToolSchemas<'_>]) -> KeywordSet {
    let mut set = KeywordSet::EMPTY;
    let mut rest = programs;
    while let [tool, tail @ ..] = rest {
        set = set.union(KeywordSet::of(&tool.input));
        if let Some(output) = &tool.output {
            set = set.union(KeywordSet::of(output));
        }
        rest = tail;
    }
    set
}

/// How the server runs its programs, chosen when it is built: the evaluator for every
/// keyword, or one built for the keywords of programs known at compile time (the derive's,
/// served by [`Server::from_tools`](super::Server::from_tools)). Only the evaluators a
/// firmware's constructors choose are linked.
/// Without the feature `validator` it holds nothing, so that no evaluator is linked.
#[derive(Clone, Copy)]
pub(crate) struct Validator {
    #[cfg(feature = "validator")]
    run: fn(&Program<'_>, Value<'_>) -> Result<(), Violation>,
}

impl Validator {
    /// Every keyword ([`Program::validate`]).
    pub(crate) fn full() -> Self {
        Self {
            #[cfg(feature = "validator")]
            run: |program, value| program.validate(value),
        }
    }

    /// The evaluator built for `K` ([`Program::validate_for`]); `K::SET` must cover the
    /// programs (another keyword is refused, never accepted).
    #[cfg_attr(
        not(feature = "validator"),
        allow(clippy::extra_unused_type_parameters)
    )]
    pub(crate) fn built_for<K: Keywords>() -> Self {
        Self {
            #[cfg(feature = "validator")]
            run: |program, value| program.validate_for::<K>(value),
        }
    }
}

impl core::fmt::Debug for Validator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Validator")
    }
}

/// Compiled validators of every tool's schemas.
#[derive(Debug)]
#[cfg_attr(not(feature = "validator"), allow(dead_code))]
pub(crate) struct Checks<'p, const TOOLS: usize> {
    pub(crate) schemas: [Option<ToolSchemas<'p>>; TOOLS],
    /// The evaluator that runs them.
    pub(crate) validator: Validator,
}

impl<const TOOLS: usize> Checks<'_, TOOLS> {
    #[cfg_attr(not(feature = "validator"), allow(dead_code))]
    fn schemas(&self, tool: usize) -> Result<&ToolSchemas<'_>, Rejection> {
        self.schemas
            .get(tool)
            .and_then(Option::as_ref)
            .ok_or(Rejection::Missing)
    }

    /// Checks a call's arguments against the tool's `inputSchema`.
    #[cfg(feature = "validator")]
    pub(crate) fn input(&self, tool: usize, arguments: Value<'_>) -> Result<(), Rejection> {
        (self.validator.run)(&self.schemas(tool)?.input, arguments).map_err(Rejection::Violation)
    }

    /// Without the feature `validator`: accepts everything.
    #[cfg(not(feature = "validator"))]
    pub(crate) fn input(&self, _tool: usize, _arguments: Value<'_>) -> Result<(), Rejection> {
        Ok(())
    }

    /// Checks structured output against the tool's `outputSchema`.
    #[cfg(feature = "validator")]
    pub(crate) fn output(&self, tool: usize, value: Value<'_>) -> Result<(), Rejection> {
        let output = self.schemas(tool)?.output.ok_or(Rejection::Missing)?;
        (self.validator.run)(&output, value).map_err(Rejection::Violation)
    }

    /// Without the feature `validator`: accepts everything.
    #[cfg(not(feature = "validator"))]
    pub(crate) fn output(&self, _tool: usize, _value: Value<'_>) -> Result<(), Rejection> {
        Ok(())
    }
}
