//! The handshake the host made, as far as a fresh link needs it: the legacy `initialize`
//! handshake (replayed after a reconnect) and the protocol version agreed to.

use serde_json::Value;

use super::flight::Pending;
use super::Router;
use crate::bridge::message::typed::{read, InitializeResult};

/// What the bridge remembers of the host's handshake.
#[derive(Default)]
pub(super) struct Handshake {
    /// Confirmed `initialize` params of a legacy session (replayed after a reconnect).
    pub(super) init_params: Option<Value>,
    /// The host's `notifications/initialized` line (sent again after a replay).
    pub(super) initialized_line: Option<Vec<u8>>,
    /// Protocol version the device agreed to in `initialize`.
    pub(super) version: Option<String>,
}

impl Router {
    /// The device answered the host's `initialize` with `result`.
    pub(super) fn learn_initialize(&mut self, p: &Pending, result: &Value) {
        let version = read::<InitializeResult>(Some(result)).and_then(|r| r.protocol_version);
        self.log.info(format_args!(
            "legacy session, protocol {}",
            version.as_deref().unwrap_or("(none given)")
        ));
        self.handshake.version = version;
        self.handshake.init_params = p.init_params.clone();
    }

    /// The device answered the replayed `initialize`: the link becomes ready either way.
    pub(super) fn on_replay_response(&mut self, result: Option<&Value>, error: Option<String>) {
        match (result, error) {
            (Some(result), _) => {
                let version =
                    read::<InitializeResult>(Some(result)).and_then(|r| r.protocol_version);
                if version != self.handshake.version {
                    self.log.warn(format_args!(
                        "after the reconnect the device agreed to protocol {:?}, before to {:?}",
                        version, self.handshake.version
                    ));
                }
                self.log.info(format_args!("handshake replayed"));
                if let Some(line) = self.handshake.initialized_line.clone() {
                    self.write_device(line, None);
                }
            }
            (None, error) => self.log.warn(format_args!(
                "the device refused the replayed initialize: {}",
                error.unwrap_or_default()
            )),
        }
        self.set_ready();
    }
}
