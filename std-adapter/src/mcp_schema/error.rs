//! Why the official schemas could not be loaded, or a message could not be checked or failed.

use std::fmt;
use std::path::PathBuf;

use crate::full::{SchemaError, ValidationFailure};

/// Most failures listed in one error message.
const MAX_LISTED: usize = 20;

/// An error of [`McpSchemas`](super::McpSchemas): loading, a question it cannot answer, or a
/// value that breaks the schema.
#[derive(Debug)]
#[non_exhaustive]
pub enum McpSchemaError {
    /// A folder or file could not be read.
    Read {
        /// The folder or file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A `schema.json` is not JSON.
    NotJson {
        /// The file.
        path: PathBuf,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// A `schema.json` has neither `$defs` nor `definitions`.
    NoDefinitions {
        /// The file.
        path: PathBuf,
    },
    /// No `<version>/schema.json` in the folder.
    NoRevisions {
        /// The folder.
        dir: PathBuf,
    },
    /// The revision asked for is not loaded.
    UnknownRevision {
        /// The revision asked for.
        version: String,
        /// The loaded revisions, oldest first.
        loaded: Vec<String>,
    },
    /// The revision has no such definition.
    NoDefinition {
        /// The revision.
        version: String,
        /// The definition asked for.
        def_name: String,
    },
    /// A definition of the official schema does not compile.
    DoesNotCompile {
        /// The revision.
        version: String,
        /// The definition.
        def_name: String,
        /// Why.
        source: SchemaError,
    },
    /// The revision lacks a definition every response needs (`kind` says which).
    NoEnvelope {
        /// The revision.
        version: String,
        /// `"error response"` or `"result response"`.
        kind: &'static str,
    },
    /// The revision has no result definition for the method.
    NoResultDefinition {
        /// The revision.
        version: String,
        /// The method.
        method: String,
    },
    /// The method is not defined in the revision.
    UnknownMethod {
        /// The revision.
        version: String,
        /// The method.
        method: String,
    },
    /// The response is not a JSON object.
    NotAnObject {
        /// The response's JSON text.
        response: String,
    },
    /// The response carries neither `result` nor `error`.
    NeitherResultNorError {
        /// The revision.
        version: String,
        /// The method of the request.
        method: String,
    },
    /// The value breaks the schema: each failure names its instance path.
    Invalid {
        /// What the value is not (`not a valid CallToolResult (2026-07-28)`).
        headline: String,
        /// The failures.
        failures: Vec<ValidationFailure>,
    },
}

impl McpSchemaError {
    /// `Ok` for no failures, else [`McpSchemaError::Invalid`].
    pub(crate) fn verdict(headline: String, failures: Vec<ValidationFailure>) -> Result<(), Self> {
        if failures.is_empty() {
            return Ok(());
        }
        Err(Self::Invalid { headline, failures })
    }
}

impl fmt::Display for McpSchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Read { path, source } => write!(f, "cannot read {}: {source}", path.display()),
            Self::NotJson { path, source } => write!(f, "{} is not JSON: {source}", path.display()),
            Self::NoDefinitions { path } => {
                write!(f, "{} has no $defs or definitions", path.display())
            }
            Self::NoRevisions { dir } => {
                write!(f, "no <version>/schema.json under {}", dir.display())
            }
            Self::UnknownRevision { version, loaded } => write!(
                f,
                "revision {version} is not loaded (loaded: {})",
                loaded.join(", ")
            ),
            Self::NoDefinition { version, def_name } => {
                write!(f, "revision {version} has no definition {def_name}")
            }
            Self::DoesNotCompile {
                version,
                def_name,
                source,
            } => write!(f, "{def_name} ({version}) does not compile: {source}"),
            Self::NoEnvelope { version, kind } => {
                write!(f, "revision {version} defines no {kind}")
            }
            Self::NoResultDefinition { version, method } => {
                write!(
                    f,
                    "revision {version} has no result definition for {method}"
                )
            }
            Self::UnknownMethod { version, method } => {
                write!(f, "method {method} is not defined in revision {version}")
            }
            Self::NotAnObject { response } => {
                write!(f, "a response must be an object, not {response}")
            }
            Self::NeitherResultNorError { version, method } => write!(
                f,
                "a response to {method} carries neither result nor error ({version})"
            ),
            Self::Invalid { headline, failures } => {
                write!(f, "{headline}: {} failure(s)", failures.len())?;
                for failure in failures.iter().take(MAX_LISTED) {
                    write!(f, "\n  - {failure}")?;
                }
                if failures.len() > MAX_LISTED {
                    write!(f, "\n  - … and {} more", failures.len() - MAX_LISTED)?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for McpSchemaError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Read { source, .. } => Some(source),
            Self::NotJson { source, .. } => Some(source),
            Self::DoesNotCompile { source, .. } => Some(source),
            _ => None,
        }
    }
}
