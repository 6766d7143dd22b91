//! Per-client bounds: how many requests in flight and how many open streams (GET streams of
//! sessions, 2026-07-28 listen streams) each client may hold, and all clients together.
//!
//! A client here is the address a request came from. A session is not: one host may open any
//! number of them (and an attacker too), and a stateless 2026-07-28 request has none. A bearer
//! token is not either: the front knows one token (`--token-file`) that every host allowed in
//! shares, so it tells hosts from strangers, not hosts apart. The address is what a client
//! cannot multiply cheaply (behind one NAT or on loopback, several hosts share a bound: they
//! are then bounded together, never locked out by others).
//!
//! The totals stay below the connection bound of the front (`http::slots`), so that streams
//! and requests, whose connections are never shed while they last, can never take every
//! connection: a newcomer always finds one, or one that only waits, to take over.

use std::collections::HashMap;

use super::event::Answer;
use crate::bridge::message::INVALID_REQUEST;

/// The bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Requests in flight of one client.
    pub requests_per_client: usize,
    /// Requests in flight of all clients.
    pub requests: usize,
    /// Open streams of one client.
    pub streams_per_client: usize,
    /// Open streams of all clients.
    pub streams: usize,
}

impl Limits {
    /// The bounds for a front of at most `connections` connections: half of them for requests
    /// in flight, a quarter for streams, each client at most 64 requests and 32 streams.
    pub fn for_connections(connections: usize) -> Self {
        Self {
            requests_per_client: 64,
            requests: (connections / 2).max(1),
            streams_per_client: 32,
            streams: (connections / 4).max(1),
        }
    }
}

#[derive(Debug, Default)]
struct Load {
    requests: usize,
    streams: usize,
}

/// What each client holds, against [`Limits`]. The front's own requests (client `""`) are not
/// counted.
#[derive(Debug)]
pub(super) struct Admission {
    limits: Limits,
    loads: HashMap<String, Load>,
    requests: usize,
    streams: usize,
}

/// Which bound a refusal hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refused {
    /// The client's own (429).
    Client,
    /// Every client's together (503).
    Everyone,
}

impl Refused {
    /// The answer (`id`: the request's id text).
    pub(super) fn answer(self, id: Option<&str>, what: &str) -> Answer {
        let (status, whose) = match self {
            Self::Client => (429, "this client holds"),
            Self::Everyone => (503, "the bridge holds"),
        };
        let message = format!("Too many {what}: {whose} as many as it may; try again later");
        let mut answer = Answer::error(status, id, INVALID_REQUEST, &message);
        answer.headers.push(("Retry-After", "1".into()));
        answer
    }
}

impl Admission {
    pub(super) fn new(limits: Limits) -> Self {
        Self {
            limits,
            loads: HashMap::new(),
            requests: 0,
            streams: 0,
        }
    }

    /// Client `peer` starts a request.
    pub(super) fn request(&mut self, peer: &str) -> Result<(), Refused> {
        if peer.is_empty() {
            return Ok(());
        }
        if self.requests >= self.limits.requests {
            return Err(Refused::Everyone);
        }
        match self.loads.get_mut(peer) {
            Some(load) if load.requests >= self.limits.requests_per_client => {
                return Err(Refused::Client)
            }
            Some(load) => load.requests += 1,
            None => {
                let load = Load {
                    requests: 1,
                    streams: 0,
                };
                self.loads.insert(peer.to_owned(), load);
            }
        }
        self.requests += 1;
        Ok(())
    }

    /// A request of `peer` ended.
    pub(super) fn request_ended(&mut self, peer: &str) {
        if let Some(load) = self.loads.get_mut(peer) {
            load.requests = load.requests.saturating_sub(1);
            self.requests = self.requests.saturating_sub(1);
            self.forget_idle(peer);
        }
    }

    /// Client `peer` opens a stream.
    pub(super) fn stream(&mut self, peer: &str) -> Result<(), Refused> {
        let load = self.loads.entry(peer.to_owned()).or_default();
        if load.streams >= self.limits.streams_per_client {
            return Err(Refused::Client);
        }
        if self.streams >= self.limits.streams {
            return Err(Refused::Everyone);
        }
        load.streams += 1;
        self.streams += 1;
        Ok(())
    }

    /// A stream of `peer` closed.
    pub(super) fn stream_ended(&mut self, peer: &str) {
        if let Some(load) = self.loads.get_mut(peer) {
            load.streams = load.streams.saturating_sub(1);
            self.streams = self.streams.saturating_sub(1);
            self.forget_idle(peer);
        }
    }

    fn forget_idle(&mut self, peer: &str) {
        if self
            .loads
            .get(peer)
            .is_some_and(|l| l.requests == 0 && l.streams == 0)
        {
            self.loads.remove(peer);
        }
    }

    /// Open streams of all clients.
    #[cfg(test)]
    pub(super) fn streams(&self) -> usize {
        self.streams
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_client_and_all_together_are_bounded_apart() {
        let mut a = Admission::new(Limits {
            requests_per_client: 2,
            requests: 3,
            streams_per_client: 1,
            streams: 2,
        });
        assert_eq!(a.request("x"), Ok(()));
        assert_eq!(a.request("x"), Ok(()));
        assert_eq!(a.request("x"), Err(Refused::Client));
        assert_eq!(a.request("y"), Ok(()));
        assert_eq!(a.request("z"), Err(Refused::Everyone));
        // The front's own requests are not counted.
        assert_eq!(a.request(""), Ok(()));
        a.request_ended("x");
        assert_eq!(a.request("z"), Ok(()));
        // Streams are bounded apart from requests.
        assert_eq!(a.stream("x"), Ok(()));
        assert_eq!(a.stream("x"), Err(Refused::Client));
        assert_eq!(a.stream("y"), Ok(()));
        assert_eq!(a.stream("z"), Err(Refused::Everyone));
        a.stream_ended("x");
        assert_eq!(a.stream("z"), Ok(()));
        assert_eq!(a.streams(), 2);
        for peer in ["x", "y", "z", "z"] {
            a.request_ended(peer);
        }
        a.stream_ended("y");
        a.stream_ended("z");
        assert!(a.loads.is_empty(), "a client holding nothing costs nothing");
        let answer = Refused::Client.answer(Some("1"), "listen streams");
        assert_eq!(answer.status, 429);
        assert_eq!(answer.headers, [("Retry-After", "1".to_string())]);
    }
}
