//! The output checking path: `tools/call` results checked against the tool's `outputSchema`,
//! held while the bridge fetches the tool list, and rewritten into a tool error when they fail.

use embedded_mcp::protocol::Version;
use serde_json::Value;

use super::flight::Pending;
use super::Router;
use crate::bridge::catalog::{rules_revision, Catalog, Fill, Verdict};
use crate::bridge::config::OnInvalid;
use crate::bridge::message::{tool_error_response, Id};
use crate::full::ValidationFailure;
use crate::wire::wrapping::{is_wrapped, wrap};

/// Revision assumed for result checks when the session never said (no `initialize` seen).
const DEFAULT_REVISION: &str = Version::LATEST_LEGACY.as_str();

/// A `tools/call` response waiting for the tool's schema.
pub(super) struct Held {
    pub(super) id: Id,
    pub(super) line: Vec<u8>,
    pub(super) result: Value,
    pub(super) tool: String,
    pub(super) version: String,
}

/// What the checking path knows and holds.
pub(super) struct Checking {
    /// The device's one catalog.
    pub(super) catalog: Catalog,
    pub(super) held: Vec<Held>,
    /// The bridge's own listing is under way.
    pub(super) fetching: bool,
    /// The device's tools may have changed since the kept catalog was listed.
    pub(super) stale: bool,
}

impl Checking {
    pub(super) fn new() -> Self {
        Self {
            catalog: Catalog::default(),
            held: Vec::new(),
            fetching: false,
            stale: false,
        }
    }
}

impl Router {
    /// Checks the result of a `tools/call` (`p`) and emits the response (or a tool error), or
    /// holds it while the tool list is fetched.
    pub(super) fn check_call_result(&mut self, p: Pending, line: Vec<u8>, result: &Value) {
        let Some(tool) = p.tool else {
            self.emit(line);
            return;
        };
        let version = p
            .version
            .or_else(|| self.handshake.version.clone())
            .unwrap_or_else(|| DEFAULT_REVISION.to_owned());
        let result = result.clone();
        match self.check.catalog.check(&version, &tool, &result) {
            Verdict::Valid => self.emit(line),
            // A 2026-07-28 result holds a non-object `structuredContent` bare, while a tool list
            // learnt in a legacy session (a hub lists its devices so) has the legacy wrapping
            // `{"result": …}` of its `outputSchema`: check the value in that wrapping.
            Verdict::Invalid(_) if legacy_wrapped_valid(&self.check, &version, &tool, &result) => {
                self.emit(line)
            }
            Verdict::Invalid(failure) => {
                self.on_invalid_result(&p.id, &tool, &version, &result, &failure, line)
            }
            Verdict::UnknownTool => {
                if self.check.catalog.fill().settled() {
                    self.log.info(format_args!(
                        "tool `{tool}` is not in the device's tool list: its result is not checked"
                    ));
                    self.emit(line);
                    return;
                }
                self.check.held.push(Held {
                    id: p.id,
                    line,
                    result,
                    tool,
                    version: version.clone(),
                });
                self.fetch_tools(version, p.meta, "to check a result");
            }
        }
    }

    pub(super) fn report_schema_errors(&self, failed: Vec<(String, crate::full::SchemaError)>) {
        for (tool, error) in failed {
            self.log.warn(format_args!("tool `{tool}`: {error}"));
        }
    }

    pub(super) fn on_invalid_result(
        &mut self,
        id: &Id,
        tool: &str,
        version: &str,
        result: &Value,
        failure: &ValidationFailure,
        line: Vec<u8>,
    ) {
        let field = if failure.instance_path.is_empty() {
            "(the result itself)".to_string()
        } else {
            format!("`{}`", failure.instance_path)
        };
        let schema = if failure.schema_path.is_empty() {
            String::new()
        } else {
            format!(" (schema path `{}`)", failure.schema_path)
        };
        let text = format!(
            "The result of tool `{tool}` does not match its outputSchema, so the embedded-mcp bridge withheld it: field {field} broke rule `{}`{schema}: {}",
            failure.keyword, failure.message
        );
        match self.cfg.on_invalid {
            OnInvalid::Error => {
                self.log.warn(format_args!("{text}"));
                let result_type =
                    result.get("resultType").is_some() || !rules_revision(version).is_legacy();
                self.emit(tool_error_response(&id.raw, &text, result_type));
            }
            OnInvalid::Warn => {
                self.log
                    .warn(format_args!("forwarded anyway (--on-invalid=warn): {text}"));
                self.emit(line);
            }
            OnInvalid::Pass => self.emit(line),
        }
    }

    pub(super) fn release_held(&mut self, why: &str) {
        for h in std::mem::take(&mut self.check.held) {
            match self.check.catalog.check(&h.version, &h.tool, &h.result) {
                Verdict::Valid => self.emit(h.line),
                Verdict::Invalid(failure) => {
                    self.on_invalid_result(&h.id, &h.tool, &h.version, &h.result, &failure, h.line)
                }
                Verdict::UnknownTool => {
                    self.log.warn(format_args!(
                        "the result of tool `{}` is forwarded unchecked: {why}",
                        h.tool
                    ));
                    self.emit(h.line);
                }
            }
        }
    }

    /// The bridge's own listing is over (`why` names the end, for results still unchecked):
    /// the catalog is complete, or the listing failed.
    pub(super) fn finish_fetch(&mut self, why: &str) {
        self.check.fetching = false;
        if self.check.catalog.fill() != Fill::Complete {
            self.check.catalog.set_fill(Fill::Failed);
            self.publish_tools();
        }
        self.release_held(why);
    }
}

/// True when `result` (of a 2026-07-28 call) has a non-object `structuredContent` that passes
/// the tool's schema once wrapped as a legacy session shows it (`{"result": value}`).
fn legacy_wrapped_valid(check: &Checking, version: &str, tool: &str, result: &Value) -> bool {
    let modern = embedded_mcp::protocol::Version::parse(version).is_some_and(|v| !v.is_legacy());
    let structured = result.get("structuredContent");
    let Some(structured) = structured.filter(|v| is_wrapped(v.is_object())) else {
        return false;
    };
    if !modern {
        return false;
    }
    let Ok(structured) = serde_json::from_str::<Value>(&wrap(&structured.to_string())) else {
        return false;
    };
    let mut wrapped = result.clone();
    wrapped["structuredContent"] = structured;
    check.catalog.check(version, tool, &wrapped) == Verdict::Valid
}
