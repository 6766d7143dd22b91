//! Time in the routing loop: deadlines of requests, and startup re-sends on a silent link.

use std::time::{Duration, Instant};

use super::connection::LinkState;
use super::flight::InternalKind;
use super::{Router, PREVIEW};
use crate::bridge::message::{error_response, REQUEST_TIMEOUT};
use crate::device::log::preview;

fn millis(d: Duration) -> u128 {
    d.as_millis()
}

impl Router {
    pub(super) fn tick(&mut self, now: Instant) {
        let expired = self.flight.expired_pending(now);
        let ms = millis(self.cfg.timeout);
        for key in expired {
            let Some(p) = self.flight.pending.remove(&key) else {
                continue;
            };
            let text = match &p.sent {
                Some(_) => format!("The device did not answer `{}` within {ms} ms", p.method),
                None => {
                    self.flight.unqueue(&key);
                    let state = match &self.device.link {
                        LinkState::Down { error } => format!("device unavailable: {error}"),
                        LinkState::Connecting { .. } => "still connecting".to_string(),
                        LinkState::Up(_) => "replaying the handshake".to_string(),
                    };
                    format!("The device was not reachable within {ms} ms ({state})")
                }
            };
            self.log
                .warn(format_args!("request {} `{}`: {text}", p.id.raw, p.method));
            self.emit(error_response(Some(&p.id.raw), REQUEST_TIMEOUT, &text));
            if p.sent.is_some() {
                // Tell the device to stop working on it (MCP: the requester cancels on timeout).
                let cancel = format!(
                    "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{},\"reason\":\"timeout\"}}}}",
                    p.id.raw
                );
                self.device.try_send(cancel.into_bytes());
            }
        }
        let expired = self.flight.expired_internal(now);
        for key in expired {
            let Some(req) = self.flight.internal.remove(&key) else {
                continue;
            };
            match req.kind {
                InternalKind::ReplayInit => {
                    let gen = req.sent.gen;
                    self.log.warn(format_args!(
                        "the device did not answer the replayed initialize within {ms} ms"
                    ));
                    self.on_device_closed(gen, "no answer to the replayed initialize");
                }
                kind => self.internal_failed(kind, "the device did not answer in time"),
            }
        }
        self.resend(now);
    }

    pub(super) fn resend(&mut self, now: Instant) {
        let LinkState::Up(up) = &self.device.link else {
            return;
        };
        if up.heard {
            return;
        }
        let retry = self.cfg.startup_retry;
        for s in self.flight.sent_mut() {
            if s.gen != up.gen || s.resend_at.is_none_or(|at| at > now) {
                continue;
            }
            if s.resends_left == 0 {
                s.resend_at = None;
                continue;
            }
            s.resends_left -= 1;
            s.resend_at = (s.resends_left > 0).then(|| now + retry);
            self.log.info(format_args!(
                "device silent so far: sending again {}",
                preview(&s.line, PREVIEW)
            ));
            let _ = up.tx.try_send(s.line.clone());
        }
    }
}
