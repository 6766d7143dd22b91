//! One page for hosts ([`crate::bridge::Pages::One`]): a host's `tools/list` follows the
//! device's `nextCursor`s under the host's own id and is answered with every tool in one page,
//! which the catalog keeps until the link resets or the device says its list changed.

use serde_json::{json, Value};

use super::flight::Pending;
use super::Router;
use crate::bridge::catalog::OnePage;
use crate::bridge::message::{method, success_line};
use crate::wire::MAX_PAGES;

impl Router {
    /// Answers a first-page `tools/list` from the cached listing; false when there is none.
    pub(super) fn answer_list_from_cache(&mut self, p: &Pending) -> bool {
        let Some(cached) = &self.check.catalog.one_page else {
            return false;
        };
        if cached.version != p.version {
            return false;
        }
        let Some(line) = success_line(&p.id.raw, &cached.result) else {
            return false;
        };
        self.emit(line);
        true
    }

    /// A page answering a host's `tools/list` being joined: asks for the next page (and returns
    /// `None`), or returns the response to emit (the one page, or the device's line as is when
    /// it had a single page).
    pub(super) fn join_page(
        &mut self,
        mut p: Pending,
        line: Vec<u8>,
        result: &Value,
    ) -> Option<(Pending, Vec<u8>)> {
        let Some(mut merging) = p.merging.take() else {
            return Some((p, line));
        };
        let next = result
            .get("nextCursor")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let tools = result.get("tools").and_then(Value::as_array);
        merging.tools.extend(tools.into_iter().flatten().cloned());
        merging.pages += 1;
        if let Some(cursor) = next.filter(|_| merging.pages < MAX_PAGES) {
            let mut params = merging.params.clone();
            if let Some(object) = params.as_object_mut() {
                object.insert("cursor".into(), json!(cursor));
            }
            let request = json!({"jsonrpc": "2.0", "method": method::TOOLS_LIST, "params": params});
            let mut next_line = serde_json::to_vec(&request).unwrap_or_default();
            // The host's id, exactly as it wrote it.
            let tail = next_line.split_off(1);
            next_line.extend_from_slice(b"\"id\":");
            next_line.extend_from_slice(p.id.raw.as_bytes());
            next_line.push(b',');
            next_line.extend_from_slice(&tail);
            p.first_page = false;
            p.merging = Some(merging);
            let key = p.id.key.clone();
            self.flight.pending.insert(key.clone(), p);
            self.send_now(next_line, Some(key));
            return None;
        }
        let single = merging.pages == 1;
        let mut joined = result.clone();
        if let Some(object) = joined.as_object_mut() {
            object.insert("tools".into(), Value::Array(merging.tools));
            if !single {
                object.remove("nextCursor");
            }
        }
        let complete = joined.get("nextCursor").is_none_or(Value::is_null);
        if complete {
            self.check.catalog.one_page = Some(OnePage {
                version: p.version.clone(),
                result: joined.clone(),
            });
        }
        if single {
            return Some((p, line));
        }
        let line = success_line(&p.id.raw, &joined).unwrap_or(line);
        Some((p, line))
    }
}
