//! Validation of MCP messages against the official schema of a revision.
//!
//! The schemas are read at run time from a folder laid out as `<version>/schema.json` (the
//! project vendors them in `tests/vectors/mcp-schema`); nothing is copied into the crate. Each definition is compiled
//! by [`full::FullValidator`](crate::full::FullValidator) on first use and cached, so checking
//! thousands of messages compiles each definition once. Meant for tests and diagnostics.
//!
//! ```no_run
//! use embedded_mcp_std::mcp_schema::McpSchemas;
//! use serde_json::json;
//!
//! let schemas = McpSchemas::load(std::path::Path::new("tests/vectors/mcp-schema"))?;
//! let reply = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
//! schemas.check_response("2025-11-25", "ping", &reply)?;
//! # Ok::<(), embedded_mcp_std::mcp_schema::McpSchemaError>(())
//! ```

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use crate::full::{FullOptions, FullValidator, ValidationFailure};

mod error;

pub use error::McpSchemaError;

/// The result definition of the methods whose result type is not `<Name>Result` for the request
/// `<Name>Request`.
const RESULT_OF: [(&str, &str); 5] = [
    ("initialize", "InitializeResult"),
    ("tools/list", "ListToolsResult"),
    ("tools/call", "CallToolResult"),
    ("ping", "EmptyResult"),
    ("server/discover", "DiscoverResult"),
];

struct Revision {
    document: Value,
    /// `$defs` (2020-12 revisions) or `definitions` (the draft-07 revision 2025-06-18).
    defs_key: &'static str,
    compiled: Mutex<HashMap<String, Arc<FullValidator>>>,
}

impl Revision {
    fn defs(&self) -> Option<&serde_json::Map<String, Value>> {
        self.document.get(self.defs_key).and_then(Value::as_object)
    }

    fn has(&self, def_name: &str) -> bool {
        self.defs().is_some_and(|defs| defs.contains_key(def_name))
    }

    /// The first of `names` this revision defines.
    fn first_of<'n>(&self, names: &[&'n str]) -> Option<&'n str> {
        names.iter().copied().find(|name| self.has(name))
    }

    /// The request definition whose `method` is `method`.
    fn request_def(&self, method: &str) -> Option<&str> {
        self.defs()?.iter().find_map(|(name, def)| {
            let constant = def.pointer("/properties/method/const")?;
            (name.ends_with("Request") && constant == method).then_some(name.as_str())
        })
    }
}

/// The official MCP schemas of every revision found in a folder.
pub struct McpSchemas {
    revisions: BTreeMap<String, Revision>,
}

impl McpSchemas {
    /// Loads every `<version>/schema.json` below `dir` (e.g. `tests/vectors/mcp-schema`).
    ///
    /// Fails if `dir` cannot be read, a `schema.json` is not JSON or has no definitions, or none
    /// is found.
    pub fn load(dir: &Path) -> Result<Self, McpSchemaError> {
        let read_error = |path: &Path| {
            let path = path.to_path_buf();
            move |source| McpSchemaError::Read { path, source }
        };
        let entries = std::fs::read_dir(dir).map_err(read_error(dir))?;
        let mut revisions = BTreeMap::new();
        for entry in entries {
            let folder = entry.map_err(read_error(dir))?.path();
            let file = folder.join("schema.json");
            if !file.is_file() {
                continue;
            }
            let Some(version) = folder.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let text = std::fs::read_to_string(&file).map_err(read_error(&file))?;
            let document: Value =
                serde_json::from_str(&text).map_err(|source| McpSchemaError::NotJson {
                    path: file.clone(),
                    source,
                })?;
            let defs_key = if document.get("$defs").is_some_and(Value::is_object) {
                "$defs"
            } else if document.get("definitions").is_some_and(Value::is_object) {
                "definitions"
            } else {
                return Err(McpSchemaError::NoDefinitions { path: file });
            };
            revisions.insert(
                version.to_owned(),
                Revision {
                    document,
                    defs_key,
                    compiled: Mutex::new(HashMap::new()),
                },
            );
        }
        if revisions.is_empty() {
            return Err(McpSchemaError::NoRevisions {
                dir: dir.to_path_buf(),
            });
        }
        Ok(Self { revisions })
    }

    /// The loaded revisions, oldest first.
    pub fn versions(&self) -> Vec<String> {
        self.revisions.keys().cloned().collect()
    }

    fn revision(&self, version: &str) -> Result<&Revision, McpSchemaError> {
        self.revisions
            .get(version)
            .ok_or_else(|| McpSchemaError::UnknownRevision {
                version: version.to_owned(),
                loaded: self.versions(),
            })
    }

    /// The cached validator of `def_name`, compiled on first use.
    fn validator(
        &self,
        version: &str,
        def_name: &str,
    ) -> Result<Arc<FullValidator>, McpSchemaError> {
        let revision = self.revision(version)?;
        let cached = revision
            .compiled
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(def_name)
            .cloned();
        if let Some(validator) = cached {
            return Ok(validator);
        }
        if !revision.has(def_name) {
            return Err(McpSchemaError::NoDefinition {
                version: version.to_owned(),
                def_name: def_name.to_owned(),
            });
        }
        // The whole document, entered at the definition, so that its `$ref`s resolve.
        let mut entry = revision.document.clone();
        if let Some(root) = entry.as_object_mut() {
            root.insert(
                "$ref".to_owned(),
                Value::String(format!(
                    "#/{}/{}",
                    revision.defs_key,
                    pointer_escape(def_name)
                )),
            );
        }
        let validator =
            FullValidator::with_options(&entry, &FullOptions::default()).map_err(|source| {
                McpSchemaError::DoesNotCompile {
                    version: version.to_owned(),
                    def_name: def_name.to_owned(),
                    source,
                }
            })?;
        let validator = Arc::new(validator);
        Ok(Arc::clone(
            revision
                .compiled
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(def_name.to_owned())
                .or_insert(validator),
        ))
    }

    fn failures(
        &self,
        version: &str,
        def_name: &str,
        value: &Value,
    ) -> Result<Vec<ValidationFailure>, McpSchemaError> {
        Ok(self.validator(version, def_name)?.all_errors(value))
    }

    /// Validates `value` against `$defs/<def_name>` (or `definitions/<def_name>`) of `version`.
    /// The error lists each failure with its instance path.
    pub fn check_def(
        &self,
        version: &str,
        def_name: &str,
        value: &Value,
    ) -> Result<(), McpSchemaError> {
        let failures = self.failures(version, def_name, value)?;
        McpSchemaError::verdict(format!("not a valid {def_name} ({version})"), failures)
    }

    /// Validates a whole JSON-RPC message against `JSONRPCMessage` of `version`. When it fails,
    /// the error lists the failures against the member its shape selects (a request, a
    /// notification, a result or an error response), which say more than the union's.
    pub fn check_message(&self, version: &str, message: &Value) -> Result<(), McpSchemaError> {
        let failures = self.failures(version, "JSONRPCMessage", message)?;
        if failures.is_empty() {
            return Ok(());
        }
        let revision = self.revision(version)?;
        let member = match message.as_object() {
            Some(m) if m.contains_key("method") && m.contains_key("id") => {
                revision.first_of(&["JSONRPCRequest"])
            }
            Some(m) if m.contains_key("method") => revision.first_of(&["JSONRPCNotification"]),
            Some(m) if m.contains_key("error") => {
                revision.first_of(&["JSONRPCErrorResponse", "JSONRPCError"])
            }
            Some(m) if m.contains_key("result") => {
                revision.first_of(&["JSONRPCResultResponse", "JSONRPCResponse"])
            }
            _ => None,
        };
        if let Some(member) = member {
            let specific = self.failures(version, member, message)?;
            if !specific.is_empty() {
                return McpSchemaError::verdict(
                    format!("not a valid JSON-RPC message ({version}): not a valid {member}"),
                    specific,
                );
            }
        }
        McpSchemaError::verdict(
            format!("not a valid JSON-RPC message ({version})"),
            failures,
        )
    }

    /// Validates a response to a `method` request: the envelope and, for a success, `result`
    /// against the method's result definition.
    ///
    /// - Envelope: the revision's own response type of the method when it has one (2026-07-28
    ///   defines `<Name>ResultResponse` per method), else `JSONRPCResultResponse` (or
    ///   `JSONRPCResponse` in 2025-06-18); `JSONRPCErrorResponse` (or `JSONRPCError`) for an
    ///   error response, whatever the method.
    /// - Result: `initialize` → `InitializeResult`, `tools/list` → `ListToolsResult`,
    ///   `tools/call` → `CallToolResult`, `ping` → `EmptyResult`, `server/discover` →
    ///   `DiscoverResult`, otherwise `<Name>Result` for the request `<Name>Request`, else
    ///   `EmptyResult`. A result whose `resultType` is `"input_required"` is checked against
    ///   `InputRequiredResult` where the method's response type allows one.
    ///
    /// A success response to a method the revision does not define (`ping` in 2026-07-28,
    /// `server/discover` before it) is an error. Failures inside `result` carry `/result/...`.
    pub fn check_response(
        &self,
        version: &str,
        method: &str,
        response: &Value,
    ) -> Result<(), McpSchemaError> {
        let revision = self.revision(version)?;
        let Some(fields) = response.as_object() else {
            return Err(McpSchemaError::NotAnObject {
                response: response.to_string(),
            });
        };
        if fields.contains_key("error") {
            let envelope = revision
                .first_of(&["JSONRPCErrorResponse", "JSONRPCError"])
                .ok_or_else(|| McpSchemaError::NoEnvelope {
                    version: version.to_owned(),
                    kind: "error response",
                })?;
            return self.check_def(version, envelope, response);
        }
        let Some(result) = fields.get("result") else {
            return Err(McpSchemaError::NeitherResultNorError {
                version: version.to_owned(),
                method: method.to_owned(),
            });
        };
        let Some(request) = revision.request_def(method) else {
            return Err(McpSchemaError::UnknownMethod {
                version: version.to_owned(),
                method: method.to_owned(),
            });
        };
        let stem = request.strip_suffix("Request").unwrap_or(request);
        let own_envelope = format!("{stem}ResultResponse");
        let envelope = if revision.has(&own_envelope) {
            own_envelope
        } else {
            revision
                .first_of(&["JSONRPCResultResponse", "JSONRPCResponse"])
                .ok_or_else(|| McpSchemaError::NoEnvelope {
                    version: version.to_owned(),
                    kind: "result response",
                })?
                .to_owned()
        };
        let explicit = RESULT_OF
            .iter()
            .find(|(name, _)| *name == method)
            .map(|(_, def)| (*def).to_owned());
        let derived = format!("{stem}Result");
        let input_required = result.get("resultType") == Some(&Value::from("input_required"))
            && revision.has("InputRequiredResult")
            && revision
                .defs()
                .and_then(|defs| defs.get(&envelope))
                .is_some_and(|def| def.to_string().contains("/InputRequiredResult\""));
        let result_def = if input_required {
            "InputRequiredResult".to_owned()
        } else {
            explicit
                .filter(|def| revision.has(def))
                .or_else(|| revision.has(&derived).then_some(derived))
                .or_else(|| {
                    revision
                        .first_of(&["EmptyResult", "Result"])
                        .map(str::to_owned)
                })
                .ok_or_else(|| McpSchemaError::NoResultDefinition {
                    version: version.to_owned(),
                    method: method.to_owned(),
                })?
        };
        let mut failures = self.failures(version, &envelope, response)?;
        failures.extend(
            self.failures(version, &result_def, result)?
                .into_iter()
                .map(|failure| failure.nested("/result", "")),
        );
        McpSchemaError::verdict(
            format!("not a valid {method} response ({version}): {envelope} with {result_def}"),
            failures,
        )
    }
}

fn pointer_escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}
