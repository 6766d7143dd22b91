//! The bridge's own requests to the device (the replayed `initialize`, `tools/list` pages),
//! under ids of its own that the host never sees.

use serde_json::{json, Value};

use super::flight::{Internal, InternalKind, Sent};
use super::link::LinkState;
use super::Router;
use crate::bridge::catalog::rules_revision;
use crate::bridge::config::STARTUP_RESENDS;
use crate::bridge::message::typed::{read, ListPage};
use crate::bridge::message::{meta, method};
use crate::wire::MAX_PAGES;

impl Router {
    pub(super) fn send_internal(
        &mut self,
        kind: InternalKind,
        method: &str,
        params: Value,
        first_page: bool,
    ) {
        let LinkState::Up(up) = &self.device.link else {
            self.internal_failed(kind, "the device is not connected");
            return;
        };
        let id = self.flight.new_internal_id();
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let Ok(line) = serde_json::to_vec(&message) else {
            self.internal_failed(kind, "the request could not be encoded");
            return;
        };
        let key = format!("\"{id}\"");
        let resend = !up.heard && !self.cfg.startup_retry.is_zero();
        let sent = Sent {
            gen: up.gen,
            line: line.clone(),
            resend_at: resend.then(|| self.now + self.cfg.startup_retry),
            resends_left: if resend { STARTUP_RESENDS } else { 0 },
        };
        self.flight.internal.insert(
            key.clone(),
            Internal {
                kind,
                first_page,
                deadline: self.now + self.cfg.timeout,
                sent,
            },
        );
        self.write_device(line, Some(key));
    }

    pub(super) fn internal_failed(&mut self, kind: InternalKind, why: &str) {
        match kind {
            InternalKind::ReplayInit => {
                self.log
                    .warn(format_args!("replaying the handshake failed: {why}"));
                self.set_ready();
            }
            InternalKind::ToolsList { .. } => {
                self.log
                    .warn(format_args!("fetching the tool list failed: {why}"));
                self.finish_fetch(why);
            }
        }
    }

    pub(super) fn on_internal_response(&mut self, req: Internal, value: &Value) {
        let result = value.get("result");
        let error = value.get("error").map(|e| e.to_string());
        match req.kind {
            InternalKind::ReplayInit => self.on_replay_response(result, error),
            InternalKind::ToolsList {
                pages,
                version,
                meta,
            } => {
                let Some(page) = read::<ListPage>(result) else {
                    let why = format!(
                        "the device's tools/list failed: {}",
                        error.unwrap_or_default()
                    );
                    self.log.warn(format_args!("{why}"));
                    self.finish_fetch(&why);
                    return;
                };
                let next = page.cursor().map(str::to_owned);
                let tools = Value::Array(page.tools);
                self.learn_tools(&tools, req.first_page, next.is_none());
                match next {
                    Some(cursor) if pages < MAX_PAGES => {
                        let params = tools_list_params(&version, meta.as_ref(), Some(&cursor));
                        self.send_internal(
                            InternalKind::ToolsList {
                                pages: pages + 1,
                                version,
                                meta,
                            },
                            method::TOOLS_LIST,
                            params,
                            false,
                        );
                    }
                    _ => {
                        self.check.stale = false;
                        self.finish_fetch("the tool is not in the device's tool list");
                    }
                }
            }
        }
    }
}

/// Params of the bridge's own `tools/list`: with the 2026-07-28 `_meta` when the session uses it.
pub(super) fn tools_list_params(
    version: &str,
    meta: Option<&Value>,
    cursor: Option<&str>,
) -> Value {
    let mut params = serde_json::Map::new();
    if !rules_revision(version).is_legacy() {
        let caps = meta
            .and_then(|m| m.get(meta::CLIENT_CAPABILITIES))
            .cloned()
            .unwrap_or(json!({}));
        params.insert(
            meta::KEY.into(),
            json!({ meta::PROTOCOL_VERSION: version, meta::CLIENT_CAPABILITIES: caps }),
        );
    }
    if let Some(cursor) = cursor {
        params.insert("cursor".into(), json!(cursor));
    }
    Value::Object(params)
}
