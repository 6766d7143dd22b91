//! Host messages on their way to the device: sent at once when the link is ready, queued while
//! it is not, refused with an error response when neither is possible.

use super::flight::{Queued, Sent};
use super::link::LinkState;
use super::{Router, PREVIEW, RESENDABLE};
use crate::bridge::config::STARTUP_RESENDS;
use crate::bridge::machine::LinkAction;
use crate::bridge::message::{error_response, CONNECTION_CLOSED};
use crate::log::preview;

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

    /// Writes a line to the device link if it is up (a message the bridge made, or one the
    /// host's request `key` is waiting on).
    pub(super) fn write_device(&mut self, line: Vec<u8>, key: Option<String>) {
        let Some(gen) = self.device.up_gen() else {
            return;
        };
        let line = self.lean_for_device(line, gen);
        if self.log.tracing() {
            self.log
                .trace(format_args!("to device: {}", preview(&line, PREVIEW)));
        }
        self.link_action(LinkAction::Write { gen, line, key });
    }

    pub(super) fn send_now(&mut self, line: Vec<u8>, key: Option<String>) {
        let LinkState::Up(up) = &self.device.link else {
            return;
        };
        let gen = up.gen;
        let heard = up.heard;
        let retry = self.cfg.startup_retry;
        let now = self.now;
        if let Some(p) = key.as_ref().and_then(|k| self.flight.pending.get_mut(k)) {
            let resend = !heard && !retry.is_zero() && RESENDABLE.contains(&p.method.as_str());
            p.sent = Some(Sent {
                gen,
                line: if resend { line.clone() } else { Vec::new() },
                resend_at: resend.then(|| now + retry),
                resends_left: if resend { STARTUP_RESENDS } else { 0 },
            });
        }
        self.write_device(line, key);
    }

    /// The shell could not queue a write on link `gen` (the device is not reading).
    pub(super) fn on_write_refused(&mut self, gen: u64, key: Option<String>) {
        if self.device.up_gen() != Some(gen) {
            return;
        }
        let why = "the device is not reading (its write queue is full)";
        let Some(key) = key else {
            self.log
                .warn(format_args!("dropped a line to the device: {why}"));
            return;
        };
        if let Some(req) = self.flight.internal.remove(&key) {
            self.internal_failed(req.kind, why);
            return;
        }
        if self.flight.awaits_on(&key, gen) {
            self.refuse(Some(key), b"", why);
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
