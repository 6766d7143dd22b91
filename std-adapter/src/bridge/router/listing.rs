//! The device's one tool catalog as the router keeps it: learnt from every `tools/list` page
//! that passes (the host's, or the bridge's own listing), emptied when the device says its list
//! changed or the link closes or comes back, and published ([`Output::Tools`]) each time it
//! changes, for the readers outside the router (the tasks layer, the HTTP front).
//!
//! With [`BridgeConfig::keep_catalog`](crate::bridge::BridgeConfig::keep_catalog) (the HTTP
//! front, whose header checks read the catalog before a call reaches the router) the router
//! lists the device itself once the host's handshake is done, and again after each change; the
//! catalog it had stays in use until the new listing replaces it, so no result waits for the
//! renewal (a held result would reach the host after the device's later notifications). Else
//! the host's own listings fill it, and a result of a tool it does not know starts one listing.

use std::sync::Arc;

use serde_json::Value;

use super::flight::InternalKind;
use super::own_requests::tools_list_params;
use super::Router;
use crate::bridge::catalog::{Fill, Tools, ToolsView};
use crate::bridge::machine::Output;
use crate::bridge::message::method;
use embedded_mcp::protocol::Version;

impl Router {
    /// The device's tools as its catalog holds them now.
    pub fn tools(&self) -> Arc<Tools> {
        self.check.catalog.tools()
    }

    /// Tells the readers outside the router what the catalog holds now.
    pub(super) fn publish_tools(&mut self) {
        let view = ToolsView::single(self.check.catalog.tools());
        self.out.push_back(Output::Tools(view));
    }

    /// Learns a `tools/list` page (`first`: asked without a cursor; `last`: no next cursor).
    pub(super) fn learn_tools(&mut self, tools: &Value, first: bool, last: bool) {
        let failed = self.check.catalog.learn_page(tools, first, last);
        self.report_schema_errors(failed);
        self.publish_tools();
    }

    /// The device's tools may have changed (`notifications/tools/list_changed`, or the link
    /// closed or came back): a kept catalog is renewed, another one emptied.
    pub(super) fn forget_tools(&mut self) {
        if self.cfg.keep_catalog {
            self.check.stale = true;
            self.renew_tools();
        } else {
            self.check.catalog.reset();
            self.publish_tools();
        }
    }

    /// Lists the device when the catalog is kept, empty or stale, and the device can be asked:
    /// the link is ready and the host's handshake is done (a legacy device expects no request
    /// before it).
    pub(super) fn renew_tools(&mut self) {
        let due = self.cfg.keep_catalog
            && (self.check.stale || self.check.catalog.fill() == Fill::Empty)
            && self.handshake.initialized_line.is_some()
            && self.device.ready();
        if due {
            let version = self.handshake.version.clone();
            let version = version.unwrap_or_else(|| Version::LATEST_LEGACY.as_str().to_owned());
            self.fetch_tools(version, None, "to keep the catalog");
        }
    }

    /// Starts the bridge's own listing of the device (one at a time, whoever needs it), in the
    /// session's `version`, with the host's `meta` for a 2026-07-28 one.
    pub(super) fn fetch_tools(&mut self, version: String, meta: Option<Value>, why: &str) {
        if self.check.fetching {
            return;
        }
        self.check.fetching = true;
        if self.check.catalog.fill() != Fill::Complete {
            self.check.catalog.set_fill(Fill::Listing);
            self.publish_tools();
        }
        self.log
            .info(format_args!("listing the device's tools {why}"));
        let params = tools_list_params(&version, meta.as_ref(), None);
        let kind = InternalKind::ToolsList {
            pages: 1,
            version,
            meta,
        };
        self.send_internal(kind, method::TOOLS_LIST, params, true);
    }
}
