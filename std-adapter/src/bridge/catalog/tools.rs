//! What a device's catalog publishes: its tools as listed ([`Tools`], shared, never copied
//! into a reader's own table), and the view of every device a front reads ([`ToolsView`]).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::bridge::rewrite::icon_src_allowed;

/// The tool `_meta` member by which a firmware marks a task tool that asks for its input
/// before it becomes a task (`--task-tools NAME=ask-first` says the same on the command line).
pub const ASK_FIRST_META: &str = "embedded-mcp/askFirst";

/// How far a device's catalog is filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fill {
    /// Not listed since the link came up or the device said its list changed.
    #[default]
    Empty,
    /// A listing is under way.
    Listing,
    /// A listing was followed to its last page.
    Complete,
    /// The last listing failed (the device did not answer it, or refused it).
    Failed,
}

impl Fill {
    /// Nothing more will be learnt without a new listing: readers need not wait.
    pub fn settled(self) -> bool {
        matches!(self, Self::Complete | Self::Failed)
    }
}

/// How the firmware marks a tool for the tasks extension (`execution.taskSupport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    /// `"forbidden"` (or any other text): never a task.
    Forbidden,
    /// `"optional"`: a task when the client asks for one.
    Optional,
    /// `"required"`: only as a task.
    Required,
}

/// One device's tools as its listing gave them (unsafe icons removed), in listing order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tools {
    entries: Vec<Value>,
    index: HashMap<String, usize>,
    fill: Fill,
    /// Some tool is marked `taskSupport: "required"` (read on every call by the tasks layer).
    any_required: bool,
}

impl Tools {
    /// No tools, in state `fill`.
    pub fn empty(fill: Fill) -> Self {
        Self {
            fill,
            ..Self::default()
        }
    }

    /// How far the listing got.
    pub fn fill(&self) -> Fill {
        self.fill
    }

    pub(super) fn set_fill(&mut self, fill: Fill) {
        self.fill = fill;
    }

    /// Every tool entry, in listing order.
    pub fn entries(&self) -> &[Value] {
        &self.entries
    }

    /// The entry of tool `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.index.get(name).and_then(|&i| self.entries.get(i))
    }

    /// Adds the tools of a page not listed already; returns the entries added.
    pub(super) fn add(&mut self, tools: &[Value]) -> Vec<Value> {
        let mut added = Vec::new();
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            if self.index.contains_key(name) {
                continue;
            }
            let mut entry = tool.clone();
            drop_unsafe_icons(&mut entry);
            self.index.insert(name.to_owned(), self.entries.len());
            self.any_required |= task_support(&entry) == Some(TaskSupport::Required);
            self.entries.push(entry.clone());
            added.push(entry);
        }
        added
    }

    /// The firmware's task mark of `name` (`None`: not listed, or not marked).
    pub fn task_support(&self, name: &str) -> Option<TaskSupport> {
        task_support(self.get(name)?)
    }

    /// True when the firmware marks `name` as asking for its input first ([`ASK_FIRST_META`]).
    pub fn asks_first(&self, name: &str) -> bool {
        self.get(name)
            .and_then(|t| t.get("_meta"))
            .and_then(|m| m.get(ASK_FIRST_META))
            .and_then(Value::as_bool)
            == Some(true)
    }

    /// True when some tool is marked `taskSupport: "required"`.
    pub fn any_required(&self) -> bool {
        self.any_required
    }
}

/// The task mark of a tool entry (`execution.taskSupport`).
fn task_support(entry: &Value) -> Option<TaskSupport> {
    let mark = entry.get("execution")?.get("taskSupport")?;
    Some(match mark.as_str() {
        Some("optional") => TaskSupport::Optional,
        Some("required") => TaskSupport::Required,
        _ => TaskSupport::Forbidden,
    })
}

/// Removes the icons of a tool entry whose `src` is not `https:` or `data:` (as the router
/// does on the wire, so no reader sees them).
fn drop_unsafe_icons(entry: &mut Value) {
    if let Some(icons) = entry.get_mut("icons").and_then(Value::as_array_mut) {
        icons.retain(|icon| {
            icon.get("src")
                .and_then(Value::as_str)
                .is_some_and(icon_src_allowed)
        });
    }
}

/// Every device's catalog as a host sees it: one device unprefixed, or a hub's devices each
/// under its `NAME.` prefix. Cheap to clone (shared snapshots).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolsView {
    devices: Arc<[(String, Arc<Tools>)]>,
}

impl ToolsView {
    /// The view of one device, its tools named as it lists them.
    pub fn single(tools: Arc<Tools>) -> Self {
        Self {
            devices: Arc::from([(String::new(), tools)]),
        }
    }

    /// The view of a hub: each device's tools named `NAME.tool`.
    pub fn hub(devices: Vec<(String, Arc<Tools>)>) -> Self {
        Self {
            devices: devices.into(),
        }
    }

    /// The catalog holding the tool a host calls `name`, and the tool's name there.
    fn locate<'a>(&self, name: &'a str) -> Option<(&Tools, &'a str)> {
        self.devices.iter().find_map(|(prefix, tools)| {
            if prefix.is_empty() {
                return Some((tools.as_ref(), name));
            }
            let rest = name.strip_prefix(prefix.as_str())?.strip_prefix('.')?;
            Some((tools.as_ref(), rest))
        })
    }

    /// The entry of the tool a host calls `name` (its `name` member as the device lists it).
    pub fn tool(&self, name: &str) -> Option<&Value> {
        let (tools, name) = self.locate(name)?;
        tools.get(name)
    }

    /// True when no catalog is being listed or waits for a listing.
    pub fn settled(&self) -> bool {
        !self.devices.is_empty() && self.devices.iter().all(|(_, t)| t.fill().settled())
    }

    /// The firmware's task mark of the tool a host calls `name`.
    pub fn task_support(&self, name: &str) -> Option<TaskSupport> {
        let (tools, name) = self.locate(name)?;
        tools.task_support(name)
    }

    /// True when the firmware marks the tool a host calls `name` as asking for input first.
    pub fn asks_first(&self, name: &str) -> bool {
        self.locate(name)
            .is_some_and(|(tools, name)| tools.asks_first(name))
    }

    /// True when some device marks a tool `taskSupport: "required"`.
    pub fn any_required(&self) -> bool {
        self.devices.iter().any(|(_, t)| t.any_required())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_hub_view_finds_tools_under_their_device_prefix() {
        let mut a = Tools::empty(Fill::Complete);
        a.add(&[
            json!({"name": "t", "execution": {"taskSupport": "required"}}),
            json!({"name": "u", "_meta": {ASK_FIRST_META: true},
                   "icons": [{"src": "http://x/i.png"}, {"src": "https://x/i.png"}]}),
        ]);
        let b = Tools::empty(Fill::Listing);
        let view = ToolsView::hub(vec![("a".into(), Arc::new(a)), ("b".into(), Arc::new(b))]);
        assert_eq!(view.tool("a.t").unwrap()["name"], "t");
        assert!(view.tool("t").is_none() && view.tool("b.t").is_none());
        assert!(view.tool("ab.t").is_none() && view.tool("a").is_none());
        assert_eq!(view.task_support("a.t"), Some(TaskSupport::Required));
        assert_eq!(view.task_support("a.u"), None);
        assert!(view.asks_first("a.u") && !view.asks_first("a.t"));
        assert!(view.any_required());
        assert_eq!(
            view.tool("a.u").unwrap()["icons"],
            json!([{"src": "https://x/i.png"}])
        );
        assert!(!view.settled(), "b is being listed");
        assert!(!ToolsView::default().settled());
        let single = ToolsView::single(Arc::new(Tools::empty(Fill::Failed)));
        assert!(single.settled() && single.tool("t").is_none());
    }
}
