//! The device's `InitializeResult`, learnt once per legacy version: the front does the
//! handshake with the router itself (under its own client name) and answers every session's
//! `initialize` from this cache, so one session's handshake never reaches the device and never
//! disturbs another session. The router keeps the last handshake and replays it after a
//! reconnect, as for a stdio host.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use embedded_mcp::json::{Limits, Value as RawValue, MAX_DEPTH_LIMIT};
use embedded_mcp::protocol::Version;
use serde_json::json;

use super::hub::{Delivery, Hub, Owner};

/// The client name the front gives the device.
const CLIENT_NAME: &str = "embedded-mcp-http";

/// What the device said to the front's `initialize`.
#[derive(Debug, Clone)]
pub(super) enum Learnt {
    /// The `result` object, exact JSON text.
    Result(Arc<str>),
    /// The `error` object, exact JSON text (relayed to the session's client).
    Error(Arc<str>),
}

/// The cache, one entry per version.
pub(super) struct Handshakes {
    /// Held while a handshake runs, so that only one runs at a time.
    cache: Mutex<HashMap<Version, Arc<str>>>,
}

impl Handshakes {
    pub(super) fn new() -> Self {
        Self {
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The device's `InitializeResult` for `version`, doing the handshake first if needed;
    /// `wait` bounds the wait for the device.
    pub(super) fn result(&self, hub: &Hub, version: Version, wait: Duration) -> Learnt {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(result) = cache.get(&version) {
            return Learnt::Result(result.clone());
        }
        let request = json!({
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": version.as_str(),
                "capabilities": {},
                "clientInfo": {"name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION")}
            }
        });
        let owner = Owner {
            session: None,
            id_raw: "0".into(),
            id_key: "0".into(),
            log_level: None,
        };
        let Ok(ticket) = hub.forward(request, owner) else {
            return Learnt::Error(r#"{"code":-32000,"message":"the bridge stopped"}"#.into());
        };
        let response = loop {
            match ticket.lines.recv_timeout(wait) {
                Ok(Delivery::Response(line)) => break line,
                Ok(Delivery::Notification(_)) => {}
                Err(_) => {
                    hub.forget(ticket.id);
                    return Learnt::Error(
                        r#"{"code":-32001,"message":"the device did not answer initialize in time"}"#
                            .into(),
                    );
                }
            }
        };
        let Ok(doc) = RawValue::parse_with(
            &response,
            Limits {
                max_depth: MAX_DEPTH_LIMIT,
            },
        ) else {
            return Learnt::Error(
                r#"{"code":-32603,"message":"unreadable initialize answer"}"#.into(),
            );
        };
        if let Some(result) = doc.get("result") {
            let result: Arc<str> = Arc::from(result.raw());
            let _ = hub.notify(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
            cache.insert(version, result.clone());
            return Learnt::Result(result);
        }
        match doc.get("error") {
            Some(error) => Learnt::Error(Arc::from(error.raw())),
            None => {
                Learnt::Error(r#"{"code":-32603,"message":"unreadable initialize answer"}"#.into())
            }
        }
    }
}
