//! One device's tool catalog: filled by one listing (the host's passing through, or the
//! bridge's own), emptied when the device says its list changed or its link closes or comes
//! back, and read by everything that needs a tool: the router's result checks against each
//! `outputSchema` (the full JSON Schema 2020-12 validator), its one-page answers, the hub, the
//! tasks layer and the HTTP front's `Mcp-Param-*` checks (these through the published
//! [`ToolsView`]).

mod tools;

use std::sync::Arc;

use embedded_mcp::protocol::Version;
use serde_json::Value;

use crate::full::{SchemaError, ToolChecker, ValidationFailure};

pub use tools::{Fill, TaskSupport, Tools, ToolsView, ASK_FIRST_META};

/// The outcome of checking one `tools/call` result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The result satisfies the MCP rules and the tool's `outputSchema` (or it has none).
    Valid,
    /// The result breaks a rule; the failure names the field and the rule.
    Invalid(ValidationFailure),
    /// The tool is not in the catalog: nothing to check against.
    UnknownTool,
}

/// A host's listing answered in one page, kept to answer the next ones of the same era.
#[derive(Debug, Clone)]
pub struct OnePage {
    /// The `_meta` protocol version of the request (`None` for legacy sessions).
    pub version: Option<String>,
    /// The result (all tools, no `nextCursor`).
    pub result: Value,
}

/// One device's tools, their schemas compiled, and the one-page answer made of them.
#[derive(Default)]
pub struct Catalog {
    checker: ToolChecker,
    tools: Arc<Tools>,
    /// The last complete one-page listing (see [`crate::bridge::Pages::One`]).
    pub one_page: Option<OnePage>,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

/// The revision whose result rules apply to a session of `version` (the newest supported one
/// not after it; the oldest for anything earlier, such as 2025-03-26).
pub fn rules_revision(version: &str) -> Version {
    Version::ALL
        .into_iter()
        .find(|v| version >= v.as_str())
        .unwrap_or(Version::V2025_06_18)
}

impl Catalog {
    /// Forgets every tool (the link closed or came back, or the device's list changed).
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// The tools as published to readers (shared, not copied).
    pub fn tools(&self) -> Arc<Tools> {
        self.tools.clone()
    }

    /// How far the catalog is filled.
    pub fn fill(&self) -> Fill {
        self.tools.fill()
    }

    /// A listing starts (the bridge's own) or failed.
    pub fn set_fill(&mut self, fill: Fill) {
        Arc::make_mut(&mut self.tools).set_fill(fill);
    }

    /// Learns one `tools/list` page. A first page (requested without a cursor) starts a new
    /// listing; `last` completes it. Returns the schemas that did not compile.
    pub fn learn_page(
        &mut self,
        tools: &Value,
        first: bool,
        last: bool,
    ) -> Vec<(String, SchemaError)> {
        if first {
            let one_page = self.one_page.take();
            self.reset();
            self.one_page = one_page;
        }
        let page = tools.as_array().map(Vec::as_slice).unwrap_or_default();
        let published = Arc::make_mut(&mut self.tools);
        let added = published.add(page);
        published.set_fill(if last { Fill::Complete } else { Fill::Listing });
        self.checker.register_tools(&Value::Array(added))
    }

    /// True when `tool` was listed.
    pub fn knows(&self, tool: &str) -> bool {
        self.tools.get(tool).is_some()
    }

    /// Checks a `tools/call` result as a strict client of `version` does.
    pub fn check(&self, version: &str, tool: &str, result: &Value) -> Verdict {
        if !self.knows(tool) {
            return Verdict::UnknownTool;
        }
        match self
            .checker
            .check_result(rules_revision(version).as_str(), tool, result)
        {
            Ok(()) => Verdict::Valid,
            Err(failure) => Verdict::Invalid(failure),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pages_accumulate_and_a_first_page_starts_over() {
        let mut c = Catalog::default();
        let t = |n: &str| {
            json!({"name": n, "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"v": {"type": "number"}}, "required": ["v"]}})
        };
        assert!(c.learn_page(&json!([t("a")]), true, false).is_empty());
        assert!(c
            .learn_page(&json!([t("b"), t("a")]), false, true)
            .is_empty());
        assert!(c.knows("a") && c.knows("b") && c.fill() == Fill::Complete);
        assert_eq!(
            c.check(
                "2025-11-25",
                "a",
                &json!({"content": [], "structuredContent": {"v": 1}})
            ),
            Verdict::Valid
        );
        let Verdict::Invalid(f) = c.check(
            "2025-06-18",
            "b",
            &json!({"content": [], "structuredContent": {"v": "x"}}),
        ) else {
            panic!("expected a failure");
        };
        assert_eq!(
            (f.instance_path.as_str(), f.keyword.as_str()),
            ("/structuredContent/v", "type")
        );
        c.learn_page(&json!([t("c")]), true, true);
        assert!(!c.knows("a") && c.knows("c"));
        assert_eq!(
            c.check("2025-11-25", "zz", &json!({})),
            Verdict::UnknownTool
        );
    }

    #[test]
    fn revisions() {
        assert_eq!(rules_revision("2026-07-28"), Version::V2026_07_28);
        assert_eq!(rules_revision("2026-12-01"), Version::V2026_07_28);
        assert_eq!(rules_revision("2025-11-25"), Version::V2025_11_25);
        assert_eq!(rules_revision("2025-06-18"), Version::V2025_06_18);
        assert_eq!(rules_revision("2025-03-26"), Version::V2025_06_18);
    }
}
