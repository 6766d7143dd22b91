//! The device link's life: connecting with the reconnection policy (each attempt asked of the
//! shell when its delay is over), the link being up (and ready once the handshake is replayed),
//! and its loss.

use std::time::Instant;

use super::flight::InternalKind;
use super::Router;
use crate::bridge::machine::LinkAction;
use crate::bridge::message::{self, error_response, method, CONNECTION_CLOSED};

/// A link that is open.
pub(super) struct Up {
    pub(super) gen: u64,
    /// False while the handshake is being replayed.
    pub(super) ready: bool,
    /// The device has sent at least one line on this link.
    pub(super) heard: bool,
}

/// Where the device link stands.
pub(super) enum LinkState {
    /// Attempt `attempt` (0-based) of link `gen` opens at `open_at`; `opening` once the shell
    /// was asked to.
    Connecting {
        gen: u64,
        attempt: u32,
        open_at: Instant,
        opening: bool,
    },
    Up(Up),
    /// No link, and nobody trying (until the host sends something).
    Down {
        error: String,
    },
}

/// One device link and its reconnection bookkeeping.
pub(super) struct DeviceLink {
    pub(super) link: LinkState,
    /// Generation of the newest connection attempt or link.
    pub(super) gen: u64,
    /// Failed connection attempts in the current cycle.
    pub(super) attempts: u32,
}

impl DeviceLink {
    pub(super) fn new() -> Self {
        Self {
            link: LinkState::Down {
                error: "not connected yet".into(),
            },
            gen: 0,
            attempts: 0,
        }
    }

    /// The generation of the link when it is up.
    pub(super) fn up_gen(&self) -> Option<u64> {
        match &self.link {
            LinkState::Up(up) => Some(up.gen),
            _ => None,
        }
    }

    /// True when the link is up and the handshake replayed.
    pub(super) fn ready(&self) -> bool {
        matches!(&self.link, LinkState::Up(up) if up.ready)
    }

    /// The attempt under way of link `gen`, if that link is being opened.
    fn opening(&self, gen: u64) -> Option<u32> {
        match &self.link {
            LinkState::Connecting {
                gen: g,
                attempt,
                opening: true,
                ..
            } if *g == gen => Some(*attempt),
            _ => None,
        }
    }
}

impl Router {
    /// Starts a cycle of connection attempts at attempt `first_attempt`.
    pub(super) fn start_connecting(&mut self, first_attempt: u32) {
        let policy = self.cfg.reconnect;
        self.device.gen += 1;
        if first_attempt >= policy.attempts {
            let error = format!("gave up after {} failed attempts", policy.attempts);
            self.on_gave_up(error);
            return;
        }
        self.device.link = LinkState::Connecting {
            gen: self.device.gen,
            attempt: first_attempt,
            open_at: self.now + policy.delay(first_attempt),
            opening: false,
        };
        self.open_when_due();
    }

    /// Asks the shell to open the link once the attempt's delay is over.
    pub(super) fn open_when_due(&mut self) {
        let now = self.now;
        if let LinkState::Connecting {
            gen,
            open_at,
            opening,
            ..
        } = &mut self.device.link
        {
            if !*opening && *open_at <= now {
                *opening = true;
                let gen = *gen;
                self.link_action(LinkAction::Open { gen });
            }
        }
    }

    /// Opening link `gen` failed: the next attempt, or giving up.
    pub(super) fn on_open_failed(&mut self, gen: u64, error: String) {
        let Some(attempt) = self.device.opening(gen) else {
            return;
        };
        let policy = self.cfg.reconnect;
        self.log.warn(format_args!(
            "connecting to {} failed (attempt {} of {}): {error}",
            self.cfg.endpoint,
            attempt + 1,
            policy.attempts
        ));
        let next = attempt + 1;
        if next >= policy.attempts {
            self.on_gave_up(error);
            return;
        }
        self.device.link = LinkState::Connecting {
            gen,
            attempt: next,
            open_at: self.now + policy.delay(next),
            opening: false,
        };
        self.open_when_due();
    }

    fn on_gave_up(&mut self, error: String) {
        self.log.warn(format_args!(
            "device unavailable: {error}; the next message from the host starts a new attempt"
        ));
        let why = format!("device unavailable: {error}");
        self.device.link = LinkState::Down { error };
        for q in std::mem::take(&mut self.flight.queue) {
            self.refuse(q.key, &q.line, &why);
        }
        self.device.attempts = 0;
    }

    /// Link `gen` is open.
    pub(super) fn on_connected(&mut self, gen: u64) {
        let Some(attempt) = self.device.opening(gen) else {
            // Stale (replaced, or the bridge stops): close it.
            self.link_action(LinkAction::Close { gen });
            return;
        };
        self.log.info(format_args!(
            "connected to {} (attempt {})",
            self.cfg.endpoint,
            attempt + 1
        ));
        self.device.attempts = attempt;
        self.forget_tools();
        self.device.link = LinkState::Up(Up {
            gen,
            ready: false,
            heard: false,
        });
        if std::mem::replace(&mut self.was_up, true) {
            self.announce_list_change();
        }
        match self.handshake.init_params.clone() {
            Some(params) => {
                self.log
                    .info(format_args!("replaying the initialize handshake"));
                self.send_internal(InternalKind::ReplayInit, method::INITIALIZE, params, false);
            }
            None => self.set_ready(),
        }
    }

    pub(super) fn set_ready(&mut self) {
        if let LinkState::Up(up) = &mut self.device.link {
            up.ready = true;
        }
        self.flush_queue();
        self.renew_tools();
    }

    /// Link `gen` closed (`why`): every request on it is answered, and a new link is sought.
    pub(super) fn on_device_closed(&mut self, gen: u64, why: &str) {
        if self.device.up_gen() != Some(gen) {
            return;
        }
        let LinkState::Up(up) = std::mem::replace(
            &mut self.device.link,
            LinkState::Down {
                error: why.to_string(),
            },
        ) else {
            return;
        };
        self.log.warn(format_args!("device link closed: {why}"));
        self.link_action(LinkAction::Close { gen });
        for key in self.flight.sent_on(gen) {
            if let Some(p) = self.flight.pending.remove(&key) {
                if p.shim {
                    self.shim.forget(&key);
                }
                let text = format!(
                    "The device link closed before `{}` was answered ({why}); the bridge is reconnecting",
                    p.method
                );
                self.emit(error_response(Some(&p.id.raw), CONNECTION_CLOSED, &text));
            }
        }
        self.flight.internal.clear();
        self.check.fetching = false;
        self.release_held("the device link closed while its tool list was fetched");
        self.forget_tools();
        self.device.attempts = if up.heard {
            0
        } else {
            self.device.attempts + 1
        };
        self.announce_list_change();
        if self.host_eof && self.flight.pending.is_empty() {
            return;
        }
        self.start_connecting(self.device.attempts);
    }

    /// In a hub: the device's tools may have changed (its link closed or came back).
    fn announce_list_change(&mut self) {
        if self.announce_links {
            self.emit(message::list_changed());
        }
    }
}
