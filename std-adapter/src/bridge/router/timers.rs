//! Time in the router: the idle deadline of each request (moved on by its progress
//! notifications, never past the hard cap), deadlines of the bridge's own requests, connection
//! attempts whose delay is over, and startup re-sends on a silent link.

use std::time::Duration;

use super::flight::InternalKind;
use super::link::LinkState;
use super::{Router, PREVIEW};
use crate::bridge::message::{self, error_response, REQUEST_TIMEOUT};
use crate::log::preview;

fn millis(d: Duration) -> u128 {
    d.as_millis()
}

impl Router {
    /// The device reported progress for the request whose token has the key `token`: its idle
    /// deadline starts again, up to the hard cap.
    pub(super) fn on_progress(&mut self, token: &str) {
        let (timeout, cap, now) = (self.cfg.timeout, self.cfg.max_call, self.now);
        if let Some(p) = self.flight.by_progress_token(token) {
            p.deadline = (now + timeout).min(p.started + cap);
        }
    }

    pub(super) fn tick(&mut self) {
        let now = self.now;
        self.open_when_due();
        let expired = self.flight.expired_pending(now);
        let ms = millis(self.cfg.timeout);
        for key in expired {
            let Some(p) = self.flight.pending.remove(&key) else {
                continue;
            };
            let capped = now >= p.started + self.cfg.max_call;
            let text = match &p.sent {
                Some(_) if capped => format!(
                    "The device did not finish `{}` within the bridge's limit of {} ms (--max-call-ms)",
                    p.method,
                    millis(self.cfg.max_call)
                ),
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
                self.write_device(message::cancelled(&p.id.raw, "timeout"), None);
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
        self.resend();
    }

    fn resend(&mut self) {
        let now = self.now;
        let LinkState::Up(up) = &self.device.link else {
            return;
        };
        if up.heard {
            return;
        }
        let retry = self.cfg.startup_retry;
        let mut again = Vec::new();
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
            again.push(s.line.clone());
        }
        for line in again {
            self.log.info(format_args!(
                "device silent so far: sending again {}",
                preview(&line, PREVIEW)
            ));
            self.write_device(line, None);
        }
    }
}
