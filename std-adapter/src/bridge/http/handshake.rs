//! The device's `InitializeResult`, learnt once: the front does one handshake with the router
//! itself (at the latest legacy version, under its own client name) and answers every session's
//! `initialize` from it, so no session's handshake ever reaches the device or disturbs another
//! session. The router keeps that handshake and replays it after a reconnect, as for a stdio
//! host.

use std::sync::Arc;
use std::time::Duration;

use embedded_mcp::json::{Limits, Value as RawValue, MAX_DEPTH_LIMIT};
use embedded_mcp::protocol::Version;
use serde_json::json;
use tokio::sync::Mutex;

use super::exchange::{LayerHandle, Waiting};
use crate::bridge::clients::{Delivery, Owner};
use crate::bridge::message::{CONNECTION_CLOSED, INTERNAL_ERROR, REQUEST_TIMEOUT};

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

/// The version the front's handshake asks for.
const VERSION: Version = Version::LATEST_LEGACY;

/// The learnt result (once the device accepted the handshake).
pub(super) struct Handshake {
    /// Held while the handshake runs, so that only one runs at a time.
    cache: Mutex<Option<Arc<str>>>,
}

impl Handshake {
    pub(super) fn new() -> Self {
        Self {
            cache: Mutex::new(None),
        }
    }

    /// The device's `InitializeResult`, doing the handshake first if it has not succeeded yet;
    /// `wait` bounds the wait for the device.
    pub(super) async fn result(&self, layer: &LayerHandle, wait: Duration) -> Learnt {
        let mut cache = self.cache.lock().await;
        if let Some(result) = cache.as_ref() {
            return Learnt::Result(result.clone());
        }
        let version = VERSION;
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
        let Ok(mut ticket) = layer.forward(request.to_string().into_bytes(), None, own(), None)
        else {
            return Learnt::Error(error(CONNECTION_CLOSED, "the bridge stopped"));
        };
        let Some(response) = answer(&mut ticket, wait).await else {
            return Learnt::Error(error(
                REQUEST_TIMEOUT,
                "the device did not answer initialize in time",
            ));
        };
        let Ok(doc) = RawValue::parse_with(
            &response,
            Limits {
                max_depth: MAX_DEPTH_LIMIT,
            },
        ) else {
            return Learnt::Error(error(INTERNAL_ERROR, "unreadable initialize answer"));
        };
        if let Some(result) = doc.get("result") {
            let result: Arc<str> = Arc::from(result.raw());
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            let _ = layer.notify(initialized.to_string().into_bytes());
            *cache = Some(result.clone());
            return Learnt::Result(result);
        }
        match doc.get("error") {
            Some(error) => Learnt::Error(Arc::from(error.raw())),
            None => Learnt::Error(error(INTERNAL_ERROR, "unreadable initialize answer")),
        }
    }
}

/// A JSON-RPC error object, as JSON text.
fn error(code: i64, message: &str) -> Arc<str> {
    json!({"code": code, "message": message}).to_string().into()
}

/// The owner of the front's own requests.
fn own() -> Owner {
    Owner {
        session: None,
        id_raw: "0".into(),
        id_key: "0".into(),
        peer: String::new(),
    }
}

/// The response to `ticket` (`None`: the device was silent for `wait`, or the router stopped;
/// dropping the ticket then tells the layer).
async fn answer(ticket: &mut Waiting, wait: Duration) -> Option<Vec<u8>> {
    loop {
        match tokio::time::timeout(wait, ticket.recv()).await {
            Ok(Some(Delivery::Response(line))) => return Some(line),
            Ok(Some(Delivery::Notification(_) | Delivery::Opened | Delivery::Line(_))) => {}
            Ok(Some(Delivery::Answer(_)) | None) | Err(_) => return None,
        }
    }
}
