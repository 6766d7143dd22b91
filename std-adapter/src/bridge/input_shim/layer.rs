//! The input shim as one layer of the engine: a [`Machine`] wrapped around the tasks layer (and
//! through it the router of one device or the hub), so every front drives the same shim the
//! same way. The stdio host is one host of it; each HTTP legacy session is another (its lines
//! come as [`Input::ClientLine`] with an [`Asker`]).
//!
//! Below this layer a shim call is an ordinary 2026-07-28 `tools/call`, one per round, under
//! the host's id: the router checks each round's result and the hub routes it by its name,
//! neither knowing of the shim. The layer reads only the lines it may have to act on: the
//! stdio host's lines until its first request (its `initialize`, which tells whether it can be
//! asked), then every line of a host whose shim is engaged; the lines below only while a call
//! of the shim is on the device.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Action, InputShim};
use crate::bridge::machine::{Asker, Input, Machine, Output};
use crate::bridge::message::typed::{read, Cancelled};
use crate::bridge::message::{
    self, error_response, method, splice, Class, Message, INVALID_REQUEST,
};

/// Prefix of the shim's ids for its questions to a host.
pub const ASK_PREFIX: &str = "embedded-mcp-bridge-input-";

/// A host of the layer: `None` is the stdio host (or a front's line naming no client),
/// `Some` an HTTP client.
type Host = Option<String>;

/// The input shim layer around `M` (see the module documentation).
pub struct ShimLayer<M> {
    inner: M,
    timeout: Duration,
    /// The shim of each host that has one.
    shims: HashMap<Host, InputShim>,
    /// The host of each call a shim holds, by the call's id key.
    calls: HashMap<String, Host>,
    /// The stdio host's first request is still to come (or its `initialize` is in flight,
    /// with its id key and params).
    stdio: Stdio,
    out: VecDeque<Output>,
    now: Instant,
}

/// What the layer knows of the stdio host's handshake.
enum Stdio {
    /// No request yet.
    Fresh,
    /// Its `initialize` (id key, params) waits for its answer.
    Initializing(String, Option<Value>),
    /// Settled: the shim is engaged or it is not.
    Settled,
}

impl<M: Machine> ShimLayer<M> {
    /// The layer around `inner`; a person has `timeout` to answer a question.
    pub fn new(inner: M, timeout: Duration, now: Instant) -> Self {
        let mut layer = Self {
            inner,
            timeout,
            shims: HashMap::new(),
            calls: HashMap::new(),
            stdio: Stdio::Fresh,
            out: VecDeque::new(),
            now,
        };
        // What the machine asked for at once (its first link).
        layer.pump();
        layer
    }

    /// The machine below.
    #[cfg(test)]
    pub fn inner_mut(&mut self) -> &mut M {
        &mut self.inner
    }

    /// Hands a line of `host` to the machine below (with what the front read of it, if any).
    fn down(&mut self, host: &Host, line: Vec<u8>) {
        self.down_read(host, line, None);
    }

    fn down_read(&mut self, host: &Host, line: Vec<u8>, msg: Option<Message>) {
        let input = match (host, msg) {
            (None, None) => Input::HostLine(line),
            (client, msg) => Input::ClientLine {
                line,
                msg,
                client: client.clone(),
                asker: None,
            },
        };
        self.inner.handle(input, self.now);
    }

    /// True when a line of `host` may concern the shim (else it goes down unread).
    fn reads(&self, host: &Host, asker: Option<&Asker>) -> bool {
        asker.is_some()
            || (host.is_none() && !matches!(self.stdio, Stdio::Settled))
            || self.shims.get(host).is_some_and(InputShim::is_engaged)
    }

    fn on_host_line(
        &mut self,
        host: Host,
        line: Vec<u8>,
        msg: Option<Message>,
        asker: Option<Asker>,
    ) {
        if !self.reads(&host, asker.as_ref()) {
            return self.down_read(&host, line, msg);
        }
        let Some(msg) = msg.or_else(|| message::parse(&line)) else {
            return self.down(&host, line);
        };
        // A line that goes down as it came goes with what was read of it.
        match &msg.class {
            Class::Request { id, method: name } => {
                let params = msg.value.get("params");
                if host.is_none() {
                    self.stdio = match (&self.stdio, name.as_str()) {
                        (Stdio::Fresh, method::INITIALIZE) => {
                            Stdio::Initializing(id.key.clone(), params.cloned())
                        }
                        (Stdio::Initializing(..), _) => {
                            return self.down_read(&host, line, Some(msg))
                        }
                        _ => Stdio::Settled,
                    };
                }
                let shim = match asker {
                    Some(asker) => {
                        let timeout = self.timeout;
                        let shim = self.shims.entry(host.clone()).or_insert_with(|| {
                            let mut shim = InputShim::new(timeout, ASK_PREFIX);
                            let init = serde_json::json!({ "capabilities": asker.capabilities });
                            shim.initialized(&asker.version, Some(&init));
                            shim
                        });
                        shim.set_log_level(asker.log_level);
                        shim
                    }
                    None => match self.shims.get_mut(&host) {
                        Some(shim) => shim,
                        None => return self.down_read(&host, line, Some(msg)),
                    },
                };
                if name == method::SET_LEVEL {
                    let level = params.and_then(|p| p.get("level")).and_then(Value::as_str);
                    shim.set_log_level(level);
                }
                if shim.asking(&id.key) {
                    let text = "Invalid request: this id is already used by a request in flight";
                    let line = error_response(Some(&id.raw), INVALID_REQUEST, text);
                    return self.out.push_back(Output::Host(line));
                }
                let modern = (name == method::TOOLS_CALL && shim.wants(params))
                    .then(|| shim.begin(id, splice::member_text(&line, "params")))
                    .flatten();
                match modern {
                    Some(modern) => {
                        self.calls.insert(id.key.clone(), host.clone());
                        self.down(&host, modern);
                    }
                    None => self.down_read(&host, line, Some(msg)),
                }
            }
            Class::Response { id } => {
                let Some(shim) = self.shims.get_mut(&host).filter(|s| s.owns(&id.key)) else {
                    // A client's response answers nothing below (the device's own requests
                    // never reach a client); the stdio host's goes on as it always did.
                    return match host {
                        Some(_) => {}
                        None => self.down_read(&host, line, Some(msg)),
                    };
                };
                let actions = shim.on_host_answer(&id.key, &msg.value);
                self.run(&host, actions);
            }
            Class::Notification { method: name } if name == method::CANCELLED => {
                let key = read::<Cancelled>(msg.value.get("params"))
                    .and_then(|c| serde_json::to_string(&c.request_id).ok());
                let held = key.and_then(|key| {
                    self.calls.get(&key).filter(|h| **h == host)?;
                    self.calls.remove(&key);
                    self.shims.get_mut(&host)?.cancel(&key)
                });
                match held {
                    // The call waited for a person: nothing of it is below.
                    Some(actions) => self.run(&host, actions),
                    None => self.down_read(&host, line, Some(msg)),
                }
            }
            _ => self.down_read(&host, line, Some(msg)),
        }
    }

    /// Carries out what the shim of `host` asked.
    fn run(&mut self, host: &Host, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::Host { key, line } => {
                    self.out.push_back(Output::Question { call: key, line })
                }
                Action::Device { line, .. } => self.down(host, line),
                Action::Complete { key, id, result } => {
                    self.calls.remove(&key);
                    let mut line = Vec::with_capacity(result.len() + id.len() + 32);
                    line.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
                    line.extend_from_slice(id.as_bytes());
                    line.extend_from_slice(b",\"result\":");
                    line.extend_from_slice(&result);
                    line.push(b'}');
                    self.out.push_back(Output::Host(line));
                }
                Action::Answer { key, line } => {
                    self.calls.remove(&key);
                    self.out.push_back(Output::Host(line));
                }
            }
        }
    }

    /// Takes the outputs of the machine below: the answers to the shim's rounds go to the
    /// shim, the answer to the stdio host's `initialize` tells it whether the host can be
    /// asked, everything else goes up as it is.
    fn pump(&mut self) {
        while let Some(output) = self.inner.poll_output() {
            let Output::Host(line) = output else {
                self.out.push_back(output);
                continue;
            };
            if self.calls.is_empty() && !matches!(self.stdio, Stdio::Initializing(..)) {
                self.out.push_back(Output::Host(line));
                continue;
            }
            let Some(msg) = message::parse(&line) else {
                self.out.push_back(Output::Host(line));
                continue;
            };
            let Class::Response { id } = msg.class else {
                self.out.push_back(Output::Host(line));
                continue;
            };
            if let Stdio::Initializing(key, params) = &self.stdio {
                if *key == id.key {
                    self.on_initialized(&msg.value, params.clone());
                    self.out.push_back(Output::Host(line));
                    continue;
                }
            }
            let Some(host) = self.calls.get(&id.key).cloned() else {
                self.out.push_back(Output::Host(line));
                continue;
            };
            let now = self.now;
            let actions = self
                .shims
                .get_mut(&host)
                .filter(|s| s.on_device(&id.key))
                .map(|s| s.on_device_answer(&id.key, &line, now));
            match actions {
                Some(actions) => self.run(&host, actions),
                None => self.out.push_back(Output::Host(line)),
            }
        }
    }

    /// The stdio host's `initialize` was answered (`answer`): its shim, if it can be asked.
    fn on_initialized(&mut self, answer: &Value, params: Option<Value>) {
        self.stdio = Stdio::Settled;
        let Some(version) = answer
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
        else {
            return;
        };
        let mut shim = InputShim::new(self.timeout, ASK_PREFIX);
        shim.initialized(version, params.as_ref());
        if shim.is_engaged() {
            self.shims.insert(None, shim);
        }
    }
}

impl<M: Machine> Machine for ShimLayer<M> {
    fn handle(&mut self, input: Input, now: Instant) {
        self.now = now;
        match input {
            Input::HostLine(line) => self.on_host_line(None, line, None, None),
            Input::ClientLine {
                line,
                msg,
                client,
                asker,
            } => self.on_host_line(client, line, msg, asker),
            Input::ClientEnded { client } => {
                let host = Some(client.clone());
                self.shims.remove(&host);
                self.calls.retain(|_, h| *h != host);
                self.inner.handle(Input::ClientEnded { client }, now);
            }
            other => self.inner.handle(other, now),
        }
        self.pump();
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.now = now;
        if self.inner.poll_timeout().is_some_and(|at| at <= now) {
            self.inner.handle_timeout(now);
        }
        self.pump();
        let hosts: Vec<Host> = self
            .shims
            .iter()
            .filter(|(_, s)| s.next_deadline().is_some_and(|at| at <= now))
            .map(|(h, _)| h.clone())
            .collect();
        for host in hosts {
            let late = self
                .shims
                .get_mut(&host)
                .map(|s| s.on_timeout(now))
                .unwrap_or_default();
            self.run(&host, late);
        }
        self.pump();
    }

    fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        let shims = self.shims.values().filter_map(InputShim::next_deadline);
        shims.chain(self.inner.poll_timeout()).min()
    }

    fn is_finished(&self) -> bool {
        self.inner.is_finished() && self.shims.values().all(InputShim::is_idle)
    }

    fn stop(&mut self) {
        self.inner.stop();
        self.pump();
    }
}
