//! The time decisions of a client's streams, taken on `now` given by the shell (which only sleeps
//! until the instant decided here): how long a forwarded request waits for the routing loop,
//! also while a person answers one of the input shim's questions, and when a quiet listen
//! stream gets a keep-alive.

use std::time::{Duration, Instant};

/// What to do about a forwarded request the routing loop said nothing new about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waited {
    /// Look again at this instant.
    Until(Instant),
    /// A person was asked and did not answer in time: the shim answers the call now (its
    /// answer then comes as any line of the request).
    PersonLate,
    /// The routing loop stayed silent too long: the client gets the bridge's timeout error.
    GiveUp,
}

/// The wait of one forwarded request. The routing loop answers every request within its own
/// deadlines; this is the safety net behind it: a silence of `idle` (restarted by every line of
/// the request) ends the wait, except while a person has a question of the shim to answer.
#[derive(Debug, Clone, Copy)]
pub struct ReplyWait {
    idle: Duration,
    last_line: Instant,
}

impl ReplyWait {
    /// A wait that starts at `now`.
    pub fn new(idle: Duration, now: Instant) -> Self {
        Self {
            idle,
            last_line: now,
        }
    }

    /// A line of the request arrived at `now`.
    pub fn on_line(&mut self, now: Instant) {
        self.last_line = now;
    }

    /// The decision at `now`; `person` is the shim's deadline while a person is asked.
    pub fn decide(&self, now: Instant, person: Option<Instant>) -> Waited {
        let silent_until = self.last_line + self.idle;
        match person {
            Some(deadline) if now < deadline => Waited::Until(deadline.max(silent_until)),
            Some(_) => Waited::PersonLate,
            None if now < silent_until => Waited::Until(silent_until),
            None => Waited::GiveUp,
        }
    }
}

/// A listen stream's keep-alive: a comment after `every` without a line.
#[derive(Debug, Clone, Copy)]
pub struct KeepAlive {
    every: Duration,
    last: Instant,
}

impl KeepAlive {
    /// A stream opened at `now`.
    pub fn new(every: Duration, now: Instant) -> Self {
        Self { every, last: now }
    }

    /// Something was sent on the stream at `now` (a line or a keep-alive).
    pub fn sent(&mut self, now: Instant) {
        self.last = now;
    }

    /// When the next keep-alive is due.
    pub fn due(&self) -> Instant {
        self.last + self.every
    }

    /// True when a keep-alive is due at `now`.
    pub fn is_due(&self, now: Instant) -> bool {
        now >= self.due()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    #[test]
    fn silence_ends_the_wait_and_every_line_restarts_it() {
        let t0 = Instant::now();
        let mut wait = ReplyWait::new(s(15), t0);
        assert_eq!(wait.decide(t0, None), Waited::Until(t0 + s(15)));
        wait.on_line(t0 + s(10));
        assert_eq!(wait.decide(t0 + s(15), None), Waited::Until(t0 + s(25)));
        assert_eq!(wait.decide(t0 + s(25), None), Waited::GiveUp);
    }

    #[test]
    fn a_person_being_asked_holds_the_wait_until_their_deadline_then_the_shim_answers() {
        let t0 = Instant::now();
        let mut wait = ReplyWait::new(s(15), t0);
        let person = Some(t0 + s(120));
        // Past the silence, the person still has time: wait for them, not a moment longer.
        assert_eq!(wait.decide(t0 + s(16), person), Waited::Until(t0 + s(120)));
        assert_eq!(wait.decide(t0 + s(120), person), Waited::PersonLate);
        // The shim answered; its answer is a line, and the wait goes on as usual.
        wait.on_line(t0 + s(120));
        assert_eq!(wait.decide(t0 + s(120), None), Waited::Until(t0 + s(135)));
        // A person deadline sooner than the silence never shortens the wait.
        let wait = ReplyWait::new(s(15), t0);
        assert_eq!(
            wait.decide(t0 + s(1), Some(t0 + s(5))),
            Waited::Until(t0 + s(15))
        );
    }

    #[test]
    fn keep_alives_come_after_a_silence() {
        let t0 = Instant::now();
        let mut k = KeepAlive::new(s(15), t0);
        assert!(!k.is_due(t0 + s(14)));
        k.sent(t0 + s(14));
        assert!(!k.is_due(t0 + s(28)));
        assert!(k.is_due(t0 + s(29)));
        assert_eq!(k.due(), t0 + s(29));
    }
}
