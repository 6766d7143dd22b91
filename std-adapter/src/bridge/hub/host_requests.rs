//! The host's side of the hub: what a host line asks, answered by the hub itself
//! (`initialize`, `ping`, `server/discover`, `tools/list`) or routed to a device (`tools/call`,
//! by the `NAME.` prefix of the tool, which is stripped).

use serde_json::{json, Value};

use super::{tools, Hub, Job, PREVIEW};
use crate::bridge::message::typed::{read, Cancelled};
use crate::bridge::message::{
    self, error_response, meta, method, splice, Class, Id, Message, INVALID_PARAMS,
    INVALID_REQUEST, METHOD_NOT_FOUND,
};
use crate::log::preview;

impl Hub {
    /// A host line, and what the front read of it if it did (then it is not parsed again).
    pub(super) fn on_host_line(&mut self, line: Vec<u8>, parsed: Option<Message>) {
        if self.log.tracing() {
            self.log
                .trace(format_args!("from host: {}", preview(&line, PREVIEW)));
        }
        let Some(msg) = parsed.or_else(|| message::parse(&line)) else {
            self.emit(error_response(
                None,
                message::PARSE_ERROR,
                "Parse error: the line is not JSON",
            ));
            return;
        };
        let params = msg.value.get("params");
        match msg.class {
            Class::Request { id, method: name } => {
                let raw_params = splice::member_text(&line, "params");
                self.on_host_request(id, &name, params, raw_params);
            }
            Class::Notification { method: name } => {
                if name == method::CANCELLED {
                    self.forward_cancel(params);
                }
            }
            Class::Response { .. } | Class::ErrorWithoutId => self.log.info(format_args!(
                "dropped a host response that answers nothing the hub asked"
            )),
            Class::Invalid { id } => {
                let raw = id.map(|id| id.raw);
                self.emit(error_response(
                    raw.as_deref(),
                    INVALID_REQUEST,
                    "Invalid request: not a JSON-RPC 2.0 request, notification or response",
                ));
            }
        }
    }

    fn on_host_request(
        &mut self,
        id: Id,
        name: &str,
        params: Option<&Value>,
        raw_params: Option<&str>,
    ) {
        let meta_version = params
            .and_then(|p| p.get(meta::KEY))
            .and_then(|m| m.get(meta::PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .map(str::to_owned);
        match name {
            method::INITIALIZE => {
                let asked = params
                    .and_then(|p| p.get("protocolVersion"))
                    .and_then(Value::as_str);
                let result = tools::initialize_result(asked, &self.names());
                self.answer(&id, &result);
                self.initialized = true;
            }
            method::PING => self.answer(&id, &json!({})),
            method::DISCOVER => {
                let result = tools::discover_result();
                self.answer(&id, &result);
            }
            method::TOOLS_LIST => {
                if self.slots.iter().all(|s| s.settled) {
                    self.answer_list(&id, meta_version.as_deref());
                } else {
                    self.waiting.push((id, meta_version));
                }
            }
            method::SUBSCRIPTIONS_LISTEN => self.on_listen(id, params, meta_version.as_deref()),
            method::TOOLS_CALL => {
                let modern = meta_version
                    .as_deref()
                    .and_then(embedded_mcp::protocol::Version::parse)
                    .is_some_and(|v| !v.is_legacy());
                self.route_call(id, params, raw_params, modern);
            }
            _ => self.emit(error_response(
                Some(&id.raw),
                METHOD_NOT_FOUND,
                &format!("Method not found: the embedded-mcp hub serves tools only ({name})"),
            )),
        }
    }

    fn route_call(&mut self, id: Id, params: Option<&Value>, raw: Option<&str>, modern: bool) {
        let name = params
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let target = name.split_once('.').and_then(|(device, tool)| {
            let index = self.slots.iter().position(|s| s.name == device)?;
            Some((index, tool.to_owned()))
        });
        let Some((index, tool)) = target else {
            let text = format!("Unknown tool: {name:?} (hub tools are named DEVICE.tool)");
            self.emit(error_response(Some(&id.raw), INVALID_PARAMS, &text));
            return;
        };
        // The device's own tool name in the host's params, every other byte kept. A
        // 2026-07-28 call keeps its `_meta` (revision, client capabilities, log level): the
        // device then asks for input (`input_required`) of a host that can answer, and refuses
        // one that cannot; a retry's `inputResponses` and `requestState` pass as they are. An
        // older call loses the 2026-07-28 keys of its `_meta` (the hub calls its devices in
        // the legacy revision).
        let tool_text = json!(tool).to_string();
        let drop = (!modern).then_some(meta::PROTOCOL_PREFIX);
        let Some(text) = splice::with_member(raw.unwrap_or("{}"), "name", &tool_text, drop) else {
            let text = "Invalid params: tools/call params must be an object";
            self.emit(error_response(Some(&id.raw), INVALID_PARAMS, text));
            return;
        };
        let job = Job::Host { id, modern };
        self.send_job_text(index, job, method::TOOLS_CALL, &text);
    }

    fn forward_cancel(&mut self, params: Option<&Value>) {
        let Some(key) =
            read::<Cancelled>(params).and_then(|c| serde_json::to_string(&c.request_id).ok())
        else {
            return;
        };
        if self.close_listen(&key) {
            return;
        }
        let found = self.jobs.iter().find_map(|(hub_id, job)| match job {
            Job::Host { id, .. } if id.key == key => Some(hub_id.clone()),
            _ => None,
        });
        let Some(hub_id) = found else {
            return;
        };
        let Some(Job::Host { .. }) = self.jobs.remove(&hub_id) else {
            return;
        };
        let mut params = params.cloned().unwrap_or(json!({}));
        if let Some(object) = params.as_object_mut() {
            // The hub's id as the device router got it (the key is its JSON text).
            let raw = hub_id.trim_matches('"').to_owned();
            object.insert("requestId".into(), Value::String(raw));
        }
        let line = json!({"jsonrpc": "2.0", "method": method::CANCELLED, "params": params});
        // The device router learns of it; its answer, if any, finds no job and is dropped.
        if let Ok(bytes) = serde_json::to_vec(&line) {
            for index in 0..self.slots.len() {
                self.send_to_router(index, bytes.clone());
            }
        }
    }
}
