//! The device's tools as learnt from `tools/list` responses, and the checks of `tools/call`
//! results against their `outputSchema` with the full JSON Schema 2020-12 validator.

use std::collections::HashSet;

use embedded_mcp::protocol::Version;
use serde_json::Value;

use crate::full::{SchemaError, ToolChecker, ValidationFailure};

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

/// Tools learnt from `tools/list` pages, with their schemas compiled.
#[derive(Default)]
pub struct Catalog {
    checker: ToolChecker,
    names: HashSet<String>,
    /// True once a listing has been followed to its last page.
    pub complete: bool,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("names", &self.names)
            .field("complete", &self.complete)
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
    /// Forgets every tool (the device was reset, or its list changed).
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// Learns one `tools/list` page. A first page (requested without a cursor) starts a new
    /// listing; `last` marks the listing complete. Returns the schemas that did not compile.
    pub fn learn_page(
        &mut self,
        tools: &Value,
        first: bool,
        last: bool,
    ) -> Vec<(String, SchemaError)> {
        if first {
            self.reset();
        }
        let new: Vec<&Value> = tools
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|t| {
                        t.get("name")
                            .and_then(Value::as_str)
                            .is_none_or(|n| !self.names.contains(n))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let page = Value::Array(new.into_iter().cloned().collect());
        let failed = self.checker.register_tools(&page);
        for name in page
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.get("name")?.as_str())
        {
            self.names.insert(name.to_owned());
        }
        if last {
            self.complete = true;
        }
        failed
    }

    /// True when `tool` was listed.
    pub fn knows(&self, tool: &str) -> bool {
        self.names.contains(tool)
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
        assert!(c.knows("a") && c.knows("b") && c.complete);
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
