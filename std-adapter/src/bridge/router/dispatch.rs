//! Host messages on their way to the device: sent at once when the link is ready, queued while
//! it is not, refused with an error response when neither is possible.

use std::sync::mpsc::TrySendError;
use std::time::Instant;

use super::connection::LinkState;
use super::flight::{Queued, Sent};
use super::{Router, PREVIEW, RESENDABLE};
use crate::bridge::message::{error_response, CONNECTION_CLOSED};
use crate::bridge::STARTUP_RESENDS;
use crate::device::log::preview;

impl Router {
    /// Sends a host message now if the link is ready, else queues it (and starts connecting if
    /// the bridge had given up).
    pub(super) fn forward(&mut self, line: Vec<u8>, key: Option<String>) {
        if self.device.ready() {
            self.send_now(line, key);
            return;
        }
        if self.flight.queue.len() >= self.cfg.max_queued {
            self.refuse(key, &line, "the bridge's queue for the device is full");
            return;
        }
        self.flight.queue.push_back(Queued { line, key });
        if matches!(self.device.link, LinkState::Down { .. }) {
            self.device.attempts = 0;
            self.start_connecting(0);
        }
    }

    pub(super) fn refuse(&mut self, key: Option<String>, line: &[u8], why: &str) {
        match key.and_then(|k| self.flight.pending.remove(&k)) {
            Some(p) => {
                self.log
                    .warn(format_args!("`{}` {} not sent: {why}", p.method, p.id.raw));
                self.emit(error_response(Some(&p.id.raw), CONNECTION_CLOSED, why));
            }
            None => self
                .log
                .warn(format_args!("dropped {}: {why}", preview(line, PREVIEW))),
        }
    }

    pub(super) fn send_now(&mut self, line: Vec<u8>, key: Option<String>) {
        let LinkState::Up(up) = &self.device.link else {
            return;
        };
        let gen = up.gen;
        let heard = up.heard;
        match up.tx.try_send(line.clone()) {
            Ok(()) => {
                if self.log.tracing() {
                    self.log
                        .trace(format_args!("to device: {}", preview(&line, PREVIEW)));
                }
                let retry = self.cfg.startup_retry;
                if let Some(p) = key.and_then(|k| self.flight.pending.get_mut(&k)) {
                    let resend =
                        !heard && !retry.is_zero() && RESENDABLE.contains(&p.method.as_str());
                    p.sent = Some(Sent {
                        gen,
                        line: if resend { line } else { Vec::new() },
                        resend_at: resend.then(|| Instant::now() + retry),
                        resends_left: if resend { STARTUP_RESENDS } else { 0 },
                    });
                }
            }
            Err(TrySendError::Full(line)) => {
                self.refuse(
                    key,
                    &line,
                    "the device is not reading (its write queue is full)",
                );
            }
            Err(TrySendError::Disconnected(line)) => {
                self.refuse(key, &line, "the device link just closed");
            }
        }
    }

    pub(super) fn flush_queue(&mut self) {
        while self.device.ready() {
            let Some(q) = self.flight.queue.pop_front() else {
                return;
            };
            // A queued request may have timed out or been cancelled meanwhile.
            if q.key
                .as_ref()
                .is_some_and(|k| !self.flight.pending.contains_key(k))
            {
                continue;
            }
            self.send_now(q.line, q.key);
        }
    }
}
