//! The device link's life, as a type of its own ([`DeviceLink`]): connecting with the
//! reconnection policy (each attempt asked of the shell when its delay is over), the link being
//! up (and ready once the handshake is replayed), and its loss. Its steps take the policy and
//! the time and say what follows ([`Step`]); the router's glue below does the rest (the calls in
//! flight, the catalog, the host).

use std::time::Instant;

use super::flight::InternalKind;
use super::Router;
use crate::bridge::config::Reconnect;
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

/// What a step of the link asks for.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Ask the shell to open link `gen` now.
    Open(u64),
    /// Nothing yet (an attempt waits for its delay).
    Wait,
    /// Every attempt of the round failed (the last error).
    GaveUp(String),
}

/// One device link and its reconnection bookkeeping.
pub(super) struct DeviceLink {
    pub(super) link: LinkState,
    /// Generation of the newest connection attempt or link.
    pub(super) gen: u64,
    /// Failed connection attempts in the current cycle.
    pub(super) attempts: u32,
    /// A link has been up before (so a new one may bring other tools).
    was_up: bool,
}

impl DeviceLink {
    pub(super) fn new() -> Self {
        Self {
            link: LinkState::Down {
                error: "not connected yet".into(),
            },
            gen: 0,
            attempts: 0,
            was_up: false,
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

    /// Starts a round of attempts at attempt `first` (a new generation).
    fn start(&mut self, policy: Reconnect, now: Instant, first: u32) -> Step {
        self.gen += 1;
        if first >= policy.attempts {
            return Step::GaveUp(format!("gave up after {} failed attempts", policy.attempts));
        }
        self.link = LinkState::Connecting {
            gen: self.gen,
            attempt: first,
            open_at: now + policy.delay(first),
            opening: false,
        };
        self.open_due(now)
    }

    /// The attempt whose delay is over at `now`, to be opened.
    pub(super) fn open_due(&mut self, now: Instant) -> Step {
        if let LinkState::Connecting {
            gen,
            open_at,
            opening,
            ..
        } = &mut self.link
        {
            if !*opening && *open_at <= now {
                *opening = true;
                return Step::Open(*gen);
            }
        }
        Step::Wait
    }

    /// Opening link `gen` failed with `error`: the attempt that failed, and the next one or
    /// the end of the round (`None`: not an attempt under way).
    fn open_failed(
        &mut self,
        gen: u64,
        policy: Reconnect,
        now: Instant,
        error: &str,
    ) -> Option<(u32, Step)> {
        let attempt = self.opening(gen)?;
        let next = attempt + 1;
        if next >= policy.attempts {
            return Some((attempt, Step::GaveUp(error.to_owned())));
        }
        self.link = LinkState::Connecting {
            gen,
            attempt: next,
            open_at: now + policy.delay(next),
            opening: false,
        };
        Some((attempt, self.open_due(now)))
    }

    /// The round ended without a link (`error`).
    fn gave_up(&mut self, error: String) {
        self.link = LinkState::Down { error };
        self.attempts = 0;
    }

    /// Link `gen` is open: its attempt and whether a link was up before (`None`: a stale
    /// link, to be closed).
    fn connected(&mut self, gen: u64) -> Option<(u32, bool)> {
        let attempt = self.opening(gen)?;
        self.attempts = attempt;
        self.link = LinkState::Up(Up {
            gen,
            ready: false,
            heard: false,
        });
        Some((attempt, std::mem::replace(&mut self.was_up, true)))
    }

    /// Link `gen` closed (`why`): the link that was up, if it was this one; the next round
    /// starts at once if the device had spoken on it, else one attempt further.
    fn closed(&mut self, gen: u64, why: &str) -> Option<Up> {
        if self.up_gen() != Some(gen) {
            return None;
        }
        let down = LinkState::Down {
            error: why.to_string(),
        };
        let LinkState::Up(up) = std::mem::replace(&mut self.link, down) else {
            return None;
        };
        self.attempts = if up.heard { 0 } else { self.attempts + 1 };
        Some(up)
    }
}

impl Router {
    /// Starts a cycle of connection attempts at attempt `first_attempt`.
    pub(super) fn start_connecting(&mut self, first_attempt: u32) {
        let step = self
            .device
            .start(self.cfg.reconnect, self.now, first_attempt);
        self.link_step(step);
    }

    /// Asks the shell to open the link once the attempt's delay is over.
    pub(super) fn open_when_due(&mut self) {
        let step = self.device.open_due(self.now);
        self.link_step(step);
    }

    fn link_step(&mut self, step: Step) {
        match step {
            Step::Open(gen) => self.link_action(LinkAction::Open { gen }),
            Step::Wait => {}
            Step::GaveUp(error) => self.on_gave_up(error),
        }
    }

    /// Opening link `gen` failed: the next attempt, or giving up.
    pub(super) fn on_open_failed(&mut self, gen: u64, error: String) {
        let policy = self.cfg.reconnect;
        let Some((attempt, step)) = self.device.open_failed(gen, policy, self.now, &error) else {
            return;
        };
        self.log.warn(format_args!(
            "connecting to {} failed (attempt {} of {}): {error}",
            self.cfg.endpoint,
            attempt + 1,
            policy.attempts
        ));
        self.link_step(step);
    }

    fn on_gave_up(&mut self, error: String) {
        self.log.warn(format_args!(
            "device unavailable: {error}; the next message from the host starts a new attempt"
        ));
        let why = format!("device unavailable: {error}");
        self.device.gave_up(error);
        for q in std::mem::take(&mut self.flight.queue) {
            self.refuse(q.key, &q.line, &why);
        }
    }

    /// Link `gen` is open.
    pub(super) fn on_connected(&mut self, gen: u64) {
        let Some((attempt, was_up)) = self.device.connected(gen) else {
            // Stale (replaced, or the bridge stops): close it.
            self.link_action(LinkAction::Close { gen });
            return;
        };
        self.log.info(format_args!(
            "connected to {} (attempt {})",
            self.cfg.endpoint,
            attempt + 1
        ));
        self.forget_tools();
        if was_up {
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
        if self.device.closed(gen, why).is_none() {
            return;
        }
        self.log.warn(format_args!("device link closed: {why}"));
        self.link_action(LinkAction::Close { gen });
        for key in self.flight.sent_on(gen) {
            if let Some(p) = self.flight.pending.remove(&key) {
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn attempts_back_off_and_a_round_ends_after_the_policys_count() {
        let policy = Reconnect::default();
        let t0 = Instant::now();
        let mut link = DeviceLink::new();
        assert_eq!(link.start(policy, t0, 0), Step::Open(1));
        // Each failure waits its delay before the next attempt is opened.
        for n in 1..policy.attempts {
            let (attempt, step) = link.open_failed(1, policy, t0, "refused").unwrap();
            assert_eq!((attempt, step), (n - 1, Step::Wait));
            let due = t0 + policy.delay(n);
            assert_eq!(link.open_due(due - Duration::from_millis(1)), Step::Wait);
            assert_eq!(link.open_due(due), Step::Open(1));
        }
        let last = link.open_failed(1, policy, t0, "refused");
        assert_eq!(
            last,
            Some((policy.attempts - 1, Step::GaveUp("refused".into())))
        );
        // A stale generation's events change nothing.
        assert_eq!(link.open_failed(7, policy, t0, "x"), None);
        assert_eq!(link.connected(7), None);
    }

    #[test]
    fn a_link_that_spoke_reconnects_at_once_a_silent_one_backs_off() {
        let policy = Reconnect::default();
        let t0 = Instant::now();
        let mut link = DeviceLink::new();
        assert_eq!(link.start(policy, t0, 0), Step::Open(1));
        assert_eq!(link.connected(1), Some((0, false)));
        if let LinkState::Up(up) = &mut link.link {
            up.heard = true;
        }
        assert!(link.closed(1, "reset").is_some() && link.attempts == 0);
        assert!(link.closed(1, "again").is_none(), "closed once");
        assert_eq!(link.start(policy, t0, link.attempts), Step::Open(2));
        assert_eq!(link.connected(2), Some((0, true)), "a link was up before");
        assert!(link.closed(2, "silent").is_some());
        assert_eq!(link.attempts, 1);
        assert_eq!(link.start(policy, t0, link.attempts), Step::Wait);
    }
}
