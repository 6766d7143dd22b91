//! Full JSON Schema 2020-12 validation on hosts, with the MCP rules.
//!
//! Built on the [`jsonschema`] crate (compiled with its default features off, so it has no HTTP
//! or file retriever), with the rules MCP adds around it:
//!
//! - **Dialect.** No `$schema` means 2020-12. 2020-12, 2019-09 and draft-07 are served (the draft
//!   is auto-detected, as the crate needs for `$vocabulary`); a `$schema` naming a registered
//!   meta-schema is served if its `$schema` chain ends in one of those. Any other declared dialect
//!   (draft-04, draft-06, unknown URIs) is refused with [`SchemaError::UnsupportedDialect`].
//! - **`$ref`.** Same-document pointers and `$anchor`s resolve. A reference the crate would have
//!   to retrieve is served only from [`Remotes`] (opt-in, in memory); anything else refuses the
//!   schema with [`SchemaError::NetworkRef`] or [`SchemaError::UnresolvedRef`]. Nothing is ever
//!   fetched.
//! - **Bounds for hostile schemas**, checked on the schema JSON before compiling:
//!   [`FullOptions::max_depth`] (nesting of the whole document) and
//!   [`FullOptions::max_subschemas`]. The crate's compilation has no time limit of its own; it is
//!   near linear in the schema, so these bound it (compile times at the default limits:
//!   `benches/RESULTS.md`).
//! - **Bounds for hostile evaluation.** A `$ref` graph makes evaluation exponential in the
//!   schema (`d0: anyOf[d1, d1]`, …, `dk: false` is k + 2 subschemas and 2^k visits), so every
//!   validation call runs under a step budget, [`FullOptions::max_steps`] (reads of the
//!   instance), and a wall-clock budget, [`FullOptions::time_limit`]; instances nested deeper
//!   than [`FullOptions::max_instance_depth`] are refused before the crate recurses into them. A
//!   spent budget is a [`ValidationFailure`] whose [`is_limit`](ValidationFailure::is_limit) is
//!   true. How the steps are counted: see the `meter` module (the crate has no hook for this, so
//!   the instance is handed to it through a counting JSON representation). The budget stops a
//!   call by unwinding, so it needs `panic = "unwind"` (the default); with `panic = "abort"` a
//!   spent budget is still reported, but only once the call has finished by itself.
//!
//! [`ToolChecker`] applies the MCP rules for tool results and arguments on top.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{PatternOptions, ReferencingError};
use serde_json::Value;

mod depth;
mod dialects;
mod meter;
mod prepare;
mod remotes;
mod tools;

pub use remotes::{LoadDirError, Remotes};
pub use tools::ToolChecker;

use meter::{Budget, Exhausted, Metered, MeteredNode};
use remotes::MemoryRetriever;

/// Limits and switches of [`FullValidator`]; [`Default`] gives the values documented per field.
#[derive(Debug, Clone)]
pub struct FullOptions {
    /// Deepest nesting of arrays and objects in the schema document (default 64; the official
    /// MCP schemas nest 12 deep).
    pub max_depth: usize,
    /// Most subschemas in the schema document (default 10 000): schema objects and booleans in
    /// schema positions, plus objects inside unknown keywords (a `$ref` may use them as schemas).
    pub max_subschemas: usize,
    /// Most reads of the instance per validation call (default 5 000 000). A value costs a few
    /// reads per subschema applied to it (what a budget costs in time: `benches/RESULTS.md`).
    pub max_steps: u64,
    /// Longest wall-clock time per validation call (default 2 s); `None` for no time limit.
    pub time_limit: Option<Duration>,
    /// Deepest nesting of arrays and objects in a validated instance (default 128, the nesting
    /// `serde_json` parses).
    pub max_instance_depth: usize,
    /// Whether `format` asserts. `None` (default) follows the dialect: an annotation in 2020-12
    /// and 2019-09 unless the meta-schema declares the format-assertion vocabulary, an assertion
    /// in draft-07. `Some(_)` forces it either way.
    pub validate_formats: Option<bool>,
    /// Backtracking steps allowed to one `pattern` match (default 100 000); a match that runs out
    /// counts as undecided and the crate checks both outcomes.
    pub regex_backtrack_limit: usize,
    /// Documents `$ref` and `$schema` may use besides the schema itself (default none).
    pub remotes: Remotes,
}

impl Default for FullOptions {
    fn default() -> Self {
        Self {
            max_depth: 64,
            max_subschemas: 10_000,
            max_steps: 5_000_000,
            time_limit: Some(Duration::from_secs(2)),
            max_instance_depth: 128,
            validate_formats: None,
            regex_backtrack_limit: 100_000,
            remotes: Remotes::new(),
        }
    }
}

/// Why a schema was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaError {
    /// `$schema` names a dialect that is not served (the URI as written).
    UnsupportedDialect(String),
    /// A `$ref` resolves to a network URI that is not a registered document; it was not fetched.
    NetworkRef(String),
    /// A `$ref` resolves to a non-network URI (`urn:`, `file:`, a relative path without a base)
    /// that is not a registered document.
    UnresolvedRef(String),
    /// The schema nests deeper than allowed.
    TooDeep {
        /// JSON Pointer of the first container past the limit.
        path: String,
        /// The limit.
        max: usize,
    },
    /// The schema has more subschemas than allowed.
    TooManySubschemas {
        /// The limit.
        max: usize,
    },
    /// The schema is not valid against its meta-schema or does not compile.
    Invalid(String),
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnsupportedDialect(dialect) => write!(
                f,
                "dialect {dialect} is not supported (served: JSON Schema 2020-12, 2019-09, draft-07)"
            ),
            Self::NetworkRef(uri) => write!(
                f,
                "$ref to network URI {uri} refused: remote schemas are never fetched"
            ),
            Self::UnresolvedRef(uri) => {
                write!(f, "$ref to {uri} refused: not in this document nor registered")
            }
            Self::TooDeep { path, max } => {
                write!(f, "schema nests deeper than {max} levels (at {path:?})")
            }
            Self::TooManySubschemas { max } => {
                write!(f, "schema has more than {max} subschemas")
            }
            Self::Invalid(message) => write!(f, "invalid schema: {message}"),
        }
    }
}

impl std::error::Error for SchemaError {}

/// One reason an instance is invalid (or could not be checked within the limits).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationFailure {
    /// JSON Pointer to the failing value, relative to the value given to the check (`""` is that
    /// value itself).
    pub instance_path: String,
    /// JSON Pointer to the failing keyword in the schema.
    pub schema_path: String,
    /// The failing keyword (`type`, `required`, …), or the rule or limit for failures that are
    /// not a schema keyword's (see [`ValidationFailure::is_limit`]).
    pub keyword: String,
    /// What went wrong, for people.
    pub message: String,
}

/// `keyword` of the failures that report a spent limit rather than an invalid instance.
const LIMIT_KEYWORDS: [&str; 3] = ["max_instance_depth", "max_steps", "time_limit"];

/// Longest message kept (messages quote the instance).
const MAX_MESSAGE: usize = 400;

impl ValidationFailure {
    /// Whether this failure reports a spent limit (`max_steps`, `time_limit`,
    /// `max_instance_depth`) instead of a verdict on the instance.
    pub fn is_limit(&self) -> bool {
        LIMIT_KEYWORDS.contains(&self.keyword.as_str())
    }

    /// A failure found at the root of the checked value by a rule outside the schema.
    pub(crate) fn rule(keyword: &str, message: String) -> Self {
        Self {
            instance_path: String::new(),
            schema_path: String::new(),
            keyword: keyword.to_owned(),
            message,
        }
    }

    /// Moves the failure under `instance_prefix` and `schema_prefix` (JSON Pointers).
    pub(crate) fn nested(mut self, instance_prefix: &str, schema_prefix: &str) -> Self {
        self.instance_path.insert_str(0, instance_prefix);
        if !self.is_limit() {
            self.schema_path.insert_str(0, schema_prefix);
        }
        self
    }

    fn from_error(error: &jsonschema::ValidationError<'_>) -> Self {
        let mut message = error.to_string();
        if message.len() > MAX_MESSAGE {
            let mut end = MAX_MESSAGE;
            while !message.is_char_boundary(end) {
                end -= 1;
            }
            message.truncate(end);
            message.push('…');
        }
        Self {
            instance_path: error.instance_path().as_str().to_owned(),
            schema_path: error.schema_path().as_str().to_owned(),
            keyword: error.kind().keyword().to_owned(),
            message,
        }
    }

    fn exhausted(why: Exhausted, budget: &Budget) -> Self {
        match why {
            Exhausted::Steps => Self::rule(
                "max_steps",
                format!(
                    "validation stopped after {} steps (max_steps): the schema or instance is too costly to evaluate",
                    budget.max_steps
                ),
            ),
            Exhausted::Time => Self::rule(
                "time_limit",
                format!(
                    "validation stopped after {:?} (time_limit): the schema or instance is too costly to evaluate",
                    budget.time_limit.unwrap_or_default()
                ),
            ),
        }
    }
}

impl fmt::Display for ValidationFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.instance_path.is_empty() {
            "(root)"
        } else {
            self.instance_path.as_str()
        };
        write!(f, "at {at}: {} [{}", self.message, self.keyword)?;
        if !self.schema_path.is_empty() {
            write!(f, " at schema {}", self.schema_path)?;
        }
        f.write_str("]")
    }
}

impl std::error::Error for ValidationFailure {}

/// A compiled schema: full JSON Schema 2020-12 (2019-09, draft-07) under the MCP rules.
///
/// ```
/// use embedded_mcp_std::full::FullValidator;
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {"celsius": {"type": "number"}}});
/// let validator = FullValidator::new(&schema)?;
/// assert!(validator.is_valid(&json!({"celsius": 21.5})));
/// let failure = validator.validate(&json!({"celsius": "warm"})).unwrap_err();
/// assert_eq!(failure.instance_path, "/celsius");
/// assert_eq!(failure.keyword, "type");
/// # Ok::<(), embedded_mcp_std::full::SchemaError>(())
/// ```
pub struct FullValidator {
    validator: jsonschema::Validator<Metered>,
    budget: Budget,
    max_instance_depth: usize,
}

impl fmt::Debug for FullValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FullValidator")
            .field("budget", &self.budget)
            .field("max_instance_depth", &self.max_instance_depth)
            .finish_non_exhaustive()
    }
}

/// The refusal of a reference to `uri`, which nothing serves.
fn unresolved(uri: String) -> SchemaError {
    if remotes::is_network_uri(&uri) {
        SchemaError::NetworkRef(uri)
    } else {
        SchemaError::UnresolvedRef(uri)
    }
}

impl FullValidator {
    /// Compiles `schema` with [`FullOptions::default`] (no registered remote documents).
    pub fn new(schema: &Value) -> Result<Self, SchemaError> {
        Self::with_options(schema, &FullOptions::default())
    }

    /// Compiles `schema` with `opts`.
    pub fn with_options(schema: &Value, opts: &FullOptions) -> Result<Self, SchemaError> {
        if let Some(path) = depth::first_too_deep(schema, opts.max_depth) {
            return Err(SchemaError::TooDeep {
                path,
                max: opts.max_depth,
            });
        }
        let served = |uri: &str| dialects::served(uri, &opts.remotes);
        let rules = prepare::Rules {
            max_subschemas: opts.max_subschemas,
            dialect_served: Some(&served),
        };
        let prepared = prepare::prepare(schema, &rules)?;
        let refused = Arc::new(Mutex::new(Vec::new()));
        let retriever = MemoryRetriever {
            remotes: opts.remotes.clone(),
            refused: Arc::clone(&refused),
        };
        let mut builder = jsonschema::options_for::<Metered>()
            .with_retriever(retriever)
            .with_pattern_options(
                PatternOptions::fancy_regex().backtrack_limit(opts.regex_backtrack_limit),
            );
        if let Some(assert) = opts.validate_formats {
            builder = builder.should_validate_formats(assert);
        }
        let built = builder.build(&prepared);
        // A refused retrieval rejects the schema even if the crate could do without it.
        let first_refused = refused
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .first()
            .cloned();
        if let Some(uri) = first_refused {
            return Err(unresolved(uri));
        }
        let validator = built.map_err(|error| {
            // Some references (`$dynamicRef`) fail in the crate's registry without reaching the
            // retriever; they are refused all the same.
            if let ValidationErrorKind::Referencing(ReferencingError::Unretrievable {
                uri, ..
            }) = error.kind()
            {
                return unresolved(uri.clone());
            }
            let at = error.instance_path().as_str();
            SchemaError::Invalid(if at.is_empty() {
                error.to_string()
            } else {
                format!("at {at}: {error}")
            })
        })?;
        Ok(Self {
            validator,
            budget: Budget {
                max_steps: opts.max_steps,
                time_limit: opts.time_limit,
            },
            max_instance_depth: opts.max_instance_depth,
        })
    }

    fn too_deep(&self, instance: &Value) -> Option<ValidationFailure> {
        depth::first_too_deep(instance, self.max_instance_depth).map(|path| ValidationFailure {
            instance_path: path,
            schema_path: String::new(),
            keyword: "max_instance_depth".to_owned(),
            message: format!(
                "instance nests deeper than {} levels (max_instance_depth)",
                self.max_instance_depth
            ),
        })
    }

    /// Whether `instance` is valid; false also when a limit was reached.
    pub fn is_valid(&self, instance: &Value) -> bool {
        if self.too_deep(instance).is_some() {
            return false;
        }
        meter::run(self.budget, || {
            self.validator.is_valid(MeteredNode(instance))
        })
        .unwrap_or(false)
    }

    /// `Ok` if `instance` is valid, else the first failure (or the limit that was reached).
    pub fn validate(&self, instance: &Value) -> Result<(), ValidationFailure> {
        if let Some(failure) = self.too_deep(instance) {
            return Err(failure);
        }
        meter::run(self.budget, || {
            self.validator
                .validate(MeteredNode(instance))
                .map_err(|error| ValidationFailure::from_error(&error))
        })
        .unwrap_or_else(|why| Err(ValidationFailure::exhausted(why, &self.budget)))
    }

    /// Every failure of `instance` (empty when valid); a reached limit is the only entry.
    pub fn all_errors(&self, instance: &Value) -> Vec<ValidationFailure> {
        if let Some(failure) = self.too_deep(instance) {
            return vec![failure];
        }
        meter::run(self.budget, || {
            self.validator
                .iter_errors(MeteredNode(instance))
                .map(|error| ValidationFailure::from_error(&error))
                .collect()
        })
        .unwrap_or_else(|why| vec![ValidationFailure::exhausted(why, &self.budget)])
    }
}
