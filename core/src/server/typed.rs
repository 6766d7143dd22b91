//! Typed tools: a tool is an input type, an output type (both `#[derive(McpSchema)]` and serde)
//! and a function. The attribute `#[embedded_mcp::tools]` on an `impl` block turns its
//! `#[tool]` methods into a [`Toolbox`]: the static tool list, the programs the derive compiled
//! at build time, and the handler that dispatches to the methods. [`Server::from_tools`] serves
//! it with no schema compiler and no storage.
//!
//! For each call the engine checks the arguments against the input program, the generated
//! handler deserialises them into the input type (escaped strings are decoded into a stack
//! scratch of [`DEFAULT_SCRATCH`] bytes, or `#[tool(scratch = N)]`), runs the method, and writes
//! its output as `structuredContent` and as text (a non-object wrapped as `{"result":…}` for
//! 2025 peers); the engine then checks it against the output program. An `Err(e)` of a fallible
//! tool becomes an `isError` result with `e`'s message (`e: ToolFailure`, as for handlers).
//!
//! With the feature `approval`, `#[tool(confirm = Self::f)]` asks `f` before the method runs
//! whether a person must approve the call (see the module `server::approval` and its typed-tool
//! section): the method then runs only on the retry that carries an accepted answer.
//!
//! Tools whose results need more content blocks than the structured value keep using
//! [`Handler`](super::Handler) or [`AsyncHandler`](super::AsyncHandler) directly.

use serde::de::Deserialize;
use serde::Serialize;

use crate::schema::__private::Op;
use crate::schema::{KeywordSet, Keywords, McpSchema, Program};

use super::definitions::check_server_icons;
use super::schema_storage::{keywords_of, Checks, Validator};
use super::static_definitions;
use super::{
    Config, DefinitionError, Done, Output, Server, ServerInfo, Tool, ToolFailure, ToolSchemas,
};

/// Bytes of stack a typed tool gets to decode the escaped strings of its arguments (strings
/// without escapes are borrowed from the request and take none). A call whose escaped strings
/// need more is answered with an `isError` result naming the failure; raise it per tool with
/// `#[tool(scratch = N)]` (an upper bound is the longest arguments object the line buffer holds).
pub const DEFAULT_SCRATCH: usize = 64;

/// The `inputSchema` of a tool that takes no arguments: an object with no properties.
pub const NO_ARGUMENTS_SCHEMA: &str =
    r#"{"type":"object","properties":{},"additionalProperties":false}"#;

static NO_ARGUMENTS_NODES: [u16; 2] = [0, 2];
static NO_ARGUMENTS_OPS: [Op; 3] = [
    Op::Type(64), // the `object` bit of the type mask (the test compares with the compiler)
    Op::Members {
        props: 0,
        patterns: 0,
        additional: 1,
    },
    Op::False,
];

/// [`NO_ARGUMENTS_SCHEMA`], compiled.
pub const NO_ARGUMENTS_PROGRAM: Program<'static> =
    Program::from_static_parts(&NO_ARGUMENTS_NODES, &NO_ARGUMENTS_OPS, "");

/// A set of `N` typed tools and the handler that runs them, as `#[embedded_mcp::tools]`
/// generates it (the handler impl is [`Handler`](super::Handler) when every tool is sync and
/// takes no [`Context`](super::Context), [`AsyncHandler`](super::AsyncHandler) otherwise).
pub trait Toolbox<const N: usize> {
    /// The tools, in listing order, with the derived schemas as their `inputSchema` and
    /// `outputSchema`.
    const TOOLS: &'static [Tool; N];
    /// The derived programs of [`Toolbox::TOOLS`], in the same order.
    const PROGRAMS: [ToolSchemas<'static>; N];
    /// The definition checks of [`Server::from_tools`], made while compiling (`None`: left to
    /// run time). Not to be set: its default reads [`Toolbox::TOOLS`] and
    /// [`Toolbox::PROGRAMS`].
    #[doc(hidden)]
    const CHECKED: Option<Result<[bool; N], DefinitionError>> =
        static_definitions::check(Self::TOOLS, &Self::PROGRAMS);
}

/// A type a typed tool takes as its arguments: `#[derive(McpSchema, Deserialize)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's arguments",
    label = "needs `#[derive(McpSchema, serde::Deserialize)]`",
    note = "a typed tool's arguments are one type that derives both `embedded_mcp::McpSchema` and `serde::Deserialize`"
)]
pub trait ToolInput<'de>: McpSchema + Deserialize<'de> {}

impl<'de, T: McpSchema + Deserialize<'de>> ToolInput<'de> for T {}

/// A type a typed tool returns (or returns in `Ok`): `#[derive(McpSchema, Serialize)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's output",
    label = "needs `#[derive(McpSchema, serde::Serialize)]`",
    note = "a typed tool returns one type that derives both `embedded_mcp::McpSchema` and `serde::Serialize`, or a `Result` of one"
)]
pub trait ToolOutput: McpSchema + Serialize {}

impl<T: McpSchema + Serialize> ToolOutput for T {}

/// The definition of a tool named `name` taking `I` and returning `O`: the derived schemas as
/// `inputSchema` and `outputSchema` (for the generated [`Toolbox`]; set the rest with the
/// [`Tool`] setters).
pub const fn tool<I: ToolInput<'static>, O: ToolOutput>(name: &'static str) -> Tool {
    Tool::new(name, I::INPUT_SCHEMA).output_schema(O::OUTPUT_SCHEMA)
}

/// The definition of a tool named `name` taking no arguments ([`NO_ARGUMENTS_SCHEMA`]) and
/// returning `O`.
pub const fn tool_no_arguments<O: ToolOutput>(name: &'static str) -> Tool {
    Tool::new(name, NO_ARGUMENTS_SCHEMA).output_schema(O::OUTPUT_SCHEMA)
}

/// The programs of a tool taking `I` and returning `O` (for the generated [`Toolbox`]).
pub const fn programs<I: ToolInput<'static>, O: ToolOutput>() -> ToolSchemas<'static> {
    ToolSchemas {
        input: I::INPUT_PROGRAM,
        output: Some(O::OUTPUT_PROGRAM),
    }
}

/// The programs of a tool taking no arguments and returning `O`.
pub const fn programs_no_arguments<O: ToolOutput>() -> ToolSchemas<'static> {
    ToolSchemas {
        input: NO_ARGUMENTS_PROGRAM,
        output: Some(O::OUTPUT_PROGRAM),
    }
}

/// Writes a fallible tool's outcome: `Ok` as structured output, `Err(e)` as an `isError`
/// result whose text is `e`'s message ([`ToolFailure`]: for [`ToolError`](super::ToolError)
/// and `&str` written without `core::fmt`; any `Display` type opts in with an empty
/// `impl ToolFailure for MyError {}`).
pub fn reply<T: Serialize, E: ToolFailure>(out: Output<'_>, outcome: Result<T, E>) -> Done {
    match outcome {
        Ok(value) => out.structured(&value),
        Err(e) => out.failure(&e),
    }
}

/// How the generated handler reads a tool's arguments: by their derived
/// [`FromJson`](crate::json::FromJson) when the type has it, else by serde (autoref
/// specialization on the concrete type: `(&&Args::<T>::NEW).arguments(call, scratch)`).
#[doc(hidden)]
pub mod args {
    use core::marker::PhantomData;

    use serde::de::Deserialize;

    use crate::json::{from_value_json, DecodeError, FromJson};
    use crate::server::Call;

    /// The arguments type being read.
    pub struct Args<T>(PhantomData<fn() -> T>);

    impl<T> Args<T> {
        /// The picker.
        pub const NEW: Self = Self(PhantomData);
    }

    /// By the derived reader.
    pub trait ByFromJson<'a> {
        /// The arguments type.
        type Out;
        /// Reads the call's arguments.
        fn arguments(
            &self,
            call: &Call<'a>,
            scratch: &'a mut [u8],
        ) -> Result<Self::Out, DecodeError>;
    }
    impl<'a, T: FromJson<'a>> ByFromJson<'a> for &Args<T> {
        type Out = T;
        fn arguments(&self, call: &Call<'a>, scratch: &'a mut [u8]) -> Result<T, DecodeError> {
            from_value_json(call.arguments(), scratch)
        }
    }

    /// By serde.
    pub trait BySerde<'a> {
        /// The arguments type.
        type Out;
        /// Reads the call's arguments.
        fn arguments(
            &self,
            call: &Call<'a>,
            scratch: &'a mut [u8],
        ) -> Result<Self::Out, DecodeError>;
    }
    impl<'a, T: Deserialize<'a>> BySerde<'a> for Args<T> {
        type Out = T;
        fn arguments(&self, call: &Call<'a>, scratch: &'a mut [u8]) -> Result<T, DecodeError> {
            call.parse(scratch)
        }
    }
}

impl<H: Toolbox<N>, const N: usize> Server<'static, H, N> {
    /// A server for the typed tools of `handler` (see [`Toolbox`]) with [`Config::DEFAULT`]:
    /// the programs are the derive's static data, so nothing is compiled and no
    /// [`SchemaStorage`](super::SchemaStorage) is needed. They are run by the evaluator built
    /// for their keywords alone ([`Program::validate_for`]): same verdicts and messages as
    /// the full one, without the code of the keywords they do not use.
    pub fn from_tools(info: ServerInfo, handler: H) -> Result<Self, DefinitionError> {
        Self::from_tools_with_config(info, handler, Config::DEFAULT)
    }

    /// [`Server::from_tools`] with a [`Config`].
    pub fn from_tools_with_config(
        info: ServerInfo,
        handler: H,
        config: Config,
    ) -> Result<Self, DefinitionError> {
        // The programs are known at compile time: the evaluator is built for their keywords.
        let validator = Validator::built_for::<DerivedKeywords<H, N>>();
        // `H::CHECKED` is a constant: only one of these arms is in the firmware, and with a
        // definite answer the run-time checks (`with_programs_run_by`) are not.
        match H::CHECKED {
            Some(Ok(object_output)) => {
                check_server_icons(&info)?;
                let checks = Checks {
                    schemas: H::PROGRAMS.map(Some),
                    validator,
                };
                Ok(Self::build(
                    info,
                    H::TOOLS,
                    object_output,
                    checks,
                    handler,
                    config,
                ))
            }
            Some(Err(e)) => {
                // The run-time order: the tool count, then the server's icons, then the tools.
                if e != DefinitionError::TooManyTools {
                    check_server_icons(&info)?;
                }
                Err(e)
            }
            None => {
                Self::with_programs_run_by(info, H::TOOLS, H::PROGRAMS, handler, config, validator)
            }
        }
    }
}

/// The keywords of a [`Toolbox`]'s derived programs.
struct DerivedKeywords<H, const N: usize>(core::marker::PhantomData<H>);

impl<H: Toolbox<N>, const N: usize> Keywords for DerivedKeywords<H, N> {
    const SET: KeywordSet = keywords_of(&H::PROGRAMS);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{compile, Storage};

    #[test]
    fn no_arguments_program_is_the_compiled_schema() {
        let mut storage: Storage<4, 8, 8> = Storage::new();
        let compiled = compile(NO_ARGUMENTS_SCHEMA.as_bytes(), &mut storage).unwrap();
        assert_eq!(compiled.parts(), NO_ARGUMENTS_PROGRAM.parts());
        assert!(NO_ARGUMENTS_PROGRAM
            .validate(crate::json::Value::parse(b"{}").unwrap())
            .is_ok());
        assert!(NO_ARGUMENTS_PROGRAM
            .validate(crate::json::Value::parse(br#"{"x":1}"#).unwrap())
            .is_err());
    }
}
