//! Old revisions as one layer of the engine: a [`Machine`] wrapped around the input shim layer
//! (and below it the tasks layer and the router or the hub), so hosts of 2024-11-05 and
//! 2025-03-26 are served the same way by one device or many.
//!
//! Only the stdio host can be of an old revision (the HTTP front answers its own
//! `initialize`, for the newer ones): a client's line goes down unread. The layer reads the
//! host's lines until its first request other than `ping` (its `initialize` names the
//! revision); from then on a host of a newer revision has its lines, and the lines for it,
//! pass unread, and a host of an old one has each line read: its requests' methods noted,
//! its batches split, the answers reshaped ([`RevisionAdapter`]).

use std::collections::VecDeque;
use std::time::Instant;

use super::{is_batch, BatchStart, RevisionAdapter};
use crate::bridge::machine::{Input, Machine, Output};
use crate::bridge::message::typed::{read, Cancelled};
use crate::bridge::message::{self, method, Class};

/// The old-revisions layer around `M` (see the module documentation).
pub struct RevisionLayer<M> {
    inner: M,
    revisions: RevisionAdapter,
    /// The host's revision is known (its first request other than `ping` was seen).
    settled: bool,
    out: VecDeque<Output>,
}

impl<M: Machine> RevisionLayer<M> {
    /// The layer around `inner`.
    pub fn new(inner: M) -> Self {
        let mut layer = Self {
            inner,
            revisions: RevisionAdapter::default(),
            settled: false,
            out: VecDeque::new(),
        };
        // What the machine asked for at once (its first link).
        layer.pump();
        layer
    }

    /// True when the host speaks an old revision, or may still turn out to.
    fn reads(&self) -> bool {
        !self.settled || self.revisions.is_old()
    }

    fn on_host_line(&mut self, line: Vec<u8>, now: Instant) {
        if !self.reads() {
            self.down(line, now);
            return self.pump();
        }
        if !is_batch(&line) {
            self.on_message(line, now);
            return self.pump();
        }
        match self.revisions.open_batch(&line) {
            BatchStart::Refused(answer) => self.out.push_back(Output::Host(answer)),
            BatchStart::Messages(messages) => {
                // Everything answered while its messages are handled belongs to the batch.
                for message in messages {
                    self.on_message(message, now);
                    self.pump();
                }
                if let Some(answer) = self.revisions.close_batch() {
                    self.out.push_back(Output::Host(answer));
                }
            }
        }
    }

    /// One message of the host: a request's method is noted (its answer is reshaped by it),
    /// a cancelled request is forgotten (its batch does not wait for it). The message goes down
    /// with what was read of it (the machine does not read it again).
    fn on_message(&mut self, line: Vec<u8>, now: Instant) {
        let Some(msg) = message::parse(&line) else {
            return self.down(line, now);
        };
        let params = msg.value.get("params");
        match &msg.class {
            Class::Request { id, method: name } => {
                if name != method::PING {
                    self.settled = true;
                }
                self.revisions.request(&id.key, name, params);
            }
            Class::Notification { method: name } if name == method::CANCELLED => {
                let key = read::<Cancelled>(params)
                    .and_then(|c| serde_json::to_string(&c.request_id).ok());
                if let Some(key) = key {
                    self.revisions.forget(&key);
                }
            }
            _ => {}
        }
        let input = Input::ClientLine {
            line,
            msg: Some(msg),
            client: None,
            asker: None,
        };
        self.inner.handle(input, now);
    }

    fn down(&mut self, line: Vec<u8>, now: Instant) {
        self.inner.handle(Input::HostLine(line), now);
    }

    /// Takes the machine's outputs: a line for the host is reshaped for its revision, or held
    /// for its batch.
    fn pump(&mut self) {
        while let Some(output) = self.inner.poll_output() {
            if !self.reads() {
                self.out.push_back(output);
                continue;
            }
            match output {
                Output::Host(line) => {
                    if let Some(line) = self.revisions.outgoing(line) {
                        self.out.push_back(Output::Host(line));
                    }
                }
                Output::HostFrom { device, line } => {
                    if let Some(line) = self.revisions.outgoing(line) {
                        self.out.push_back(Output::HostFrom { device, line });
                    }
                }
                other => self.out.push_back(other),
            }
        }
    }
}

impl<M: Machine> Machine for RevisionLayer<M> {
    fn handle(&mut self, input: Input, now: Instant) {
        match input {
            Input::HostLine(line) => self.on_host_line(line, now),
            other => {
                self.inner.handle(other, now);
                self.pump();
            }
        }
    }

    fn handle_timeout(&mut self, now: Instant) {
        if self.inner.poll_timeout().is_some_and(|at| at <= now) {
            self.inner.handle_timeout(now);
        }
        self.pump();
    }

    fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.inner.poll_timeout()
    }

    fn is_finished(&self) -> bool {
        self.inner.is_finished()
    }

    fn stop(&mut self) {
        self.inner.stop();
        self.pump();
    }
}

#[cfg(test)]
mod tests {
    use super::RevisionLayer;
    use crate::bridge::machine::LinkEvent;
    use crate::bridge::router::Router;
    use crate::bridge::sim::{config, quiet, Sim};

    /// A host of a newer revision: once its `initialize` showed it, its lines and the answers
    /// for it pass the layer unread, byte for byte and at once.
    #[test]
    fn a_newer_host_passes_through_unread_and_at_once() {
        let mut cfg = config();
        cfg.on_invalid = crate::bridge::OnInvalid::Pass;
        let mut sim = Sim::new(|now| RevisionLayer::new(Router::new(cfg, quiet(), false, now)));
        sim.link(0, LinkEvent::Opened { gen: 1 });
        sim.host_line(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#);
        sim.device_line(
            0,
            1,
            r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}"#,
        );
        assert_eq!(sim.host_out().len(), 1);
        sim.device_out();
        assert!(!sim.machine.reads(), "settled on a newer revision");
        let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"n":1.0e2}}}"#;
        sim.host_line(call);
        assert_eq!(sim.device_out(), vec![call]);
        let answer =
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{"n":1.0e2}}}"#;
        sim.device_line(0, 1, answer);
        assert_eq!(sim.host_out(), vec![answer]);
        // An error the router writes at once (a line that is not JSON) comes out at once too.
        sim.host_line("not json");
        assert_eq!(sim.host_out().len(), 1);
    }
}
