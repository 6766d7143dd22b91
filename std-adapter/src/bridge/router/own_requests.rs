//! The bridge's own requests to the device (the replayed `initialize`, `tools/list` pages),
//! under ids of its own that the host never sees.

use std::time::Instant;

use serde_json::{json, Value};

use super::connection::LinkState;
use super::flight::{Internal, InternalKind, Sent};
use super::Router;
use crate::bridge::catalog::rules_revision;
use crate::bridge::STARTUP_RESENDS;
use crate::device::client::{MAX_PAGES, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};

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
            resend_at: resend.then(|| Instant::now() + self.cfg.startup_retry),
            resends_left: if resend { STARTUP_RESENDS } else { 0 },
        };
        if up.tx.try_send(line).is_err() {
            self.internal_failed(kind, "the device is not reading");
            return;
        }
        self.flight.internal.insert(
            key,
            Internal {
                kind,
                first_page,
                deadline: Instant::now() + self.cfg.timeout,
                sent,
            },
        );
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
                let tools = result.and_then(|r| r.get("tools"));
                let Some(tools) = tools else {
                    let why = format!(
                        "the device's tools/list failed: {}",
                        error.unwrap_or_default()
                    );
                    self.log.warn(format_args!("{why}"));
                    self.finish_fetch(&why);
                    return;
                };
                let next = result
                    .and_then(|r| r.get("nextCursor"))
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let failed = self
                    .check
                    .catalog
                    .learn_page(tools, req.first_page, next.is_none());
                self.report_schema_errors(failed);
                match next {
                    Some(cursor) if pages < MAX_PAGES => {
                        let params = tools_list_params(&version, meta.as_ref(), Some(&cursor));
                        self.send_internal(
                            InternalKind::ToolsList {
                                pages: pages + 1,
                                version,
                                meta,
                            },
                            "tools/list",
                            params,
                            false,
                        );
                    }
                    _ => self.finish_fetch("the tool is not in the device's tool list"),
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
            .and_then(|m| m.get(META_CLIENT_CAPABILITIES))
            .cloned()
            .unwrap_or(json!({}));
        params.insert(
            "_meta".into(),
            json!({ META_PROTOCOL_VERSION: version, META_CLIENT_CAPABILITIES: caps }),
        );
    }
    if let Some(cursor) = cursor {
        params.insert("cursor".into(), json!(cursor));
    }
    Value::Object(params)
}
