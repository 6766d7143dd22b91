//! A compiled validator for a subset of JSON Schema 2020-12, without an allocator.
//!
//! [`compile()`] turns a schema into a [`Program`] in caller-provided [`Storage`] (compile at
//! start-up, or on the host with `embedded-mcp schema compile` and load the postcard bytes from
//! flash with [`Program::from_postcard`]). [`Program::validate`] then checks a [`json::Value`]
//! (or [`Program::validate_bytes`] raw JSON) and reports the first [`Violation`] with its
//! instance path, keyword and a short message.
//!
//! The dialect (every keyword of the 2020-12 core, applicator, unevaluated and validation
//! vocabularies, and whether it is supported, ignored as an annotation, or refused) is in
//! `DIALECT.md`. Anything the validator cannot honour exactly — references to other documents,
//! dynamic references, another `$schema`, regular expressions outside the bounded subset (or
//! any regular expression without the `pattern` feature) — is refused at compile time with a
//! [`CompileError`] naming the keyword and its JSON Pointer; a refused schema is never
//! validated permissively.
//!
//! Bounds: schema nesting [`SCHEMA_MAX_DEPTH`]; nodes, ops and text bytes as given by the
//! [`Storage`] (at most 65 534 / 65 535 / 65 535); instance nesting
//! [`ValidationLimits::instance_max_depth`] (for [`Program::validate_bytes`]); evaluation depth
//! [`ValidationLimits::max_depth`] (the validator's only recursion); work
//! [`ValidationLimits::max_steps`]. Exceeding a validation bound is reported as a
//! [`Violation`] of kind [`ViolationKind::TooDeep`] or [`ViolationKind::BudgetExceeded`],
//! never as "valid".
//!
//! ```
//! use embedded_mcp::schema::{compile, Storage};
//! let schema = br#"{"type":"object","properties":{"level":{"type":"integer","maximum":10}},
//!                   "required":["level"]}"#;
//! let mut storage: Storage<8, 32, 64> = Storage::new();
//! let program = compile(schema, &mut storage)?;
//! assert!(program.is_object_schema());
//! assert!(program.validate_bytes(br#"{"level": 7}"#).is_ok());
//! let err = program.validate_bytes(br#"{"level": 12}"#).unwrap_err();
//! assert_eq!(err.keyword, "maximum");
//! assert_eq!(err.to_string(), "/level: 12 is greater than the maximum 10");
//! # Ok::<(), embedded_mcp::schema::CompileError>(())
//! ```
//!
//! [`json::Value`]: crate::json::Value

mod compile;
mod derived;
mod error;
mod keywords;
mod number;
mod pointer;
#[cfg(test)]
mod pointer_model;
mod program;
#[cfg(feature = "pattern")]
mod regex;
#[cfg(test)]
mod tests;
mod uri;
mod validate;

pub use compile::{REF_CAPACITY, REF_WORK_LIMIT};
pub use derived::McpSchema;
pub use error::{CompileError, LoadError, Violation, ViolationKind, MESSAGE_CAPACITY};
pub use keywords::{AllKeywords, KeywordSet, Keywords};
pub use pointer::{InstancePath, SchemaPointer, POINTER_CAPACITY, SCHEMA_POINTER_CAPACITY};
pub use program::{Program, Storage, PROGRAM_MAGIC, PROGRAM_VERSION};

/// Paths used by the code `#[derive(McpSchema)]` generates; not a stable interface.
#[doc(hidden)]
pub mod __private {
    pub use super::program::{Op, Str};
}

use crate::json::{self, Piece, Value};
use error::Message;

/// Deepest nesting of arrays and objects accepted in a schema document.
pub const SCHEMA_MAX_DEPTH: u8 = 64;

/// Default [`ValidationLimits::max_depth`]: 32 levels. On a Cortex-M3 a level costs at most
/// 384 bytes of stack (measured, see `DIALECT.md`), so at most about 13.6 KiB with the base;
/// nested objects or arrays in real instances cost that per level of the instance.
pub const DEFAULT_MAX_DEPTH: u16 = 32;

/// Default [`ValidationLimits::max_steps`].
pub const DEFAULT_MAX_STEPS: u32 = 100_000;

/// Bounds applied while validating one instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ValidationLimits {
    /// Most subschemas applied inside one another (the validator's only recursion; also
    /// bounds equality on nested arrays and objects). Measured on a Cortex-M3 (`opt-level =
    /// "s"`, `examples/size-validator`): at most 384 bytes of stack per level (a subschema
    /// applied last to the same instance, such as a `$ref`, counts as a level but takes none).
    pub max_depth: u16,
    /// Most steps: one per subschema applied, array element or object member visited, and
    /// equality comparison. Bounds the time of `anyOf`/`oneOf` nests and `uniqueItems`.
    pub max_steps: u32,
    /// Deepest instance nesting accepted by [`Program::validate_bytes`] (clamped to
    /// [`json::MAX_DEPTH_LIMIT`]).
    pub instance_max_depth: u8,
}

impl Default for ValidationLimits {
    fn default() -> Self {
        Self {
            max_depth: DEFAULT_MAX_DEPTH,
            max_steps: DEFAULT_MAX_STEPS,
            instance_max_depth: json::DEFAULT_MAX_DEPTH,
        }
    }
}

/// Compiles `schema` (JSON text) into `storage`, stopping at the first problem.
pub fn compile<'p, const NODES: usize, const OPS: usize, const TEXT: usize>(
    schema: &[u8],
    storage: &'p mut Storage<NODES, OPS, TEXT>,
) -> Result<Program<'p>, CompileError> {
    compile::compile(schema, storage.parts(), None)
}

/// Compiles `schema`, calling `report` for every problem found (each refused or invalid
/// keyword, not just the first); returns the first problem if there was any.
///
/// Capacity errors stop compilation at once (they are reported too).
pub fn compile_reporting<'p, const NODES: usize, const OPS: usize, const TEXT: usize>(
    schema: &[u8],
    storage: &'p mut Storage<NODES, OPS, TEXT>,
    report: &mut dyn FnMut(&CompileError),
) -> Result<Program<'p>, CompileError> {
    compile::compile(schema, storage.parts(), Some(report))
}

impl Program<'_> {
    /// Validates a checked JSON value with the default [`ValidationLimits`].
    pub fn validate(&self, instance: Value<'_>) -> Result<(), Violation> {
        self.validate_with(instance, &ValidationLimits::default())
    }

    /// Validates a checked JSON value with explicit limits.
    pub fn validate_with(
        &self,
        instance: Value<'_>,
        limits: &ValidationLimits,
    ) -> Result<(), Violation> {
        self.validate_for_with::<AllKeywords>(instance, limits)
    }

    /// [`Program::validate`] with the evaluator built only for the keywords of `K`: the code
    /// of every other keyword is left out, which is smaller where the programs are known when
    /// the firmware is built (`Server::from_tools` validates the derive's programs this way).
    ///
    /// For a program whose keywords `K::SET` [covers](KeywordSet::covers) (`K::SET.covers(
    /// KeywordSet::of(&program))`), the result is exactly that of [`Program::validate`]; a
    /// program holding another keyword is refused with [`ViolationKind::Unsupported`] when
    /// that keyword is reached, never accepted because of it.
    ///
    /// ```
    /// use embedded_mcp::schema::{compile, KeywordSet, Keywords, Storage, ViolationKind};
    /// enum Bounds {}
    /// impl Keywords for Bounds {
    ///     const SET: KeywordSet = KeywordSet::of(&embedded_mcp::server::typed::NO_ARGUMENTS_PROGRAM);
    /// }
    /// let mut storage: Storage<4, 8, 16> = Storage::new();
    /// let closed = compile(br#"{"type":"object","additionalProperties":false}"#, &mut storage)?;
    /// let value = |json| embedded_mcp::json::Value::parse(json).unwrap();
    /// assert!(closed.validate_for::<Bounds>(value(b"{}")).is_ok());
    /// let err = closed.validate_for::<Bounds>(value(br#"{"x":1}"#)).unwrap_err();
    /// assert_eq!(err, closed.validate(value(br#"{"x":1}"#)).unwrap_err());
    /// let mut storage: Storage<4, 8, 16> = Storage::new();
    /// let bounded = compile(br#"{"maxProperties":1}"#, &mut storage)?;
    /// let err = bounded.validate_for::<Bounds>(value(b"{}")).unwrap_err();
    /// assert_eq!(err.kind, ViolationKind::Unsupported);
    /// # Ok::<(), embedded_mcp::schema::CompileError>(())
    /// ```
    pub fn validate_for<K: Keywords>(&self, instance: Value<'_>) -> Result<(), Violation> {
        self.validate_for_with::<K>(instance, &ValidationLimits::default())
    }

    /// [`Program::validate_for`] with explicit limits.
    pub fn validate_for_with<K: Keywords>(
        &self,
        instance: Value<'_>,
        limits: &ValidationLimits,
    ) -> Result<(), Violation> {
        if u32::try_from(instance.raw().len()).is_err() {
            return Err(simple(
                ViolationKind::TooLarge,
                "instance larger than 4 GiB",
            ));
        }
        validate::run::<K>(self, instance, limits)
    }

    /// Parses `json` strictly (UTF-8, grammar, nesting at most the default
    /// [`ValidationLimits::instance_max_depth`]) and validates it.
    pub fn validate_bytes(&self, json: &[u8]) -> Result<(), Violation> {
        self.validate_bytes_with(json, &ValidationLimits::default())
    }

    /// [`Program::validate_bytes`] with explicit limits.
    pub fn validate_bytes_with(
        &self,
        json: &[u8],
        limits: &ValidationLimits,
    ) -> Result<(), Violation> {
        let parse_limits = json::Limits {
            max_depth: limits.instance_max_depth,
        };
        match Value::parse_with(json, parse_limits) {
            Ok(v) => self.validate_with(v, limits),
            Err(e) => {
                let mut v = simple(ViolationKind::NotJson, "");
                let _ = v.message.write(&[Piece::Text("not JSON: "), Piece::Of(&e)]);
                Err(v)
            }
        }
    }
}

fn simple(kind: ViolationKind, message: &str) -> Violation {
    let mut m = Message::new();
    let _ = m.write_str(message);
    Violation {
        kind,
        keyword: "",
        path: InstancePath::default(),
        message: m,
    }
}
