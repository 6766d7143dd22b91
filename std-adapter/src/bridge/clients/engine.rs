//! The clients machine: its state, the one way a request is forwarded and answered, and its
//! timers (see the module documentation of [`super`]).

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::time::{Duration, Instant};

use super::admission::{Admission, Limits};
use super::deadlines::{ReplyWait, Waited};
use super::event::{Answer, Delivery, Effect, Event, Owner, Ticket};
use super::ids::Ids;
use super::sessions::Sessions;
use super::streams::Streams;
use crate::bridge::machine::Asker;
use crate::bridge::message::{cancelled, error_response, Class, Message};
use crate::bridge::message::{splice, INVALID_REQUEST, REQUEST_TIMEOUT};
use crate::log::Logger;

/// How the layer decides.
#[derive(Debug, Clone)]
pub struct ClientsConfig {
    /// Longest silence of the router about one forwarded request (no notification, no answer)
    /// before its client gets the bridge's timeout error. The router answers every request
    /// itself, within its idle deadline that progress extends and its hard cap on a call: this
    /// is the safety net behind it, restarted by every line of the request.
    pub reply_idle: Duration,
    /// How long a person may take to answer the input shim (`--input-timeout-ms`).
    pub input_timeout: Duration,
    /// The hub's device names, in order (empty: one device, index 0).
    pub devices: Vec<String>,
    /// Most legacy sessions at once.
    pub max_sessions: usize,
    /// A bearer token is required (`--token-file`): a request without a session is that
    /// token's client.
    pub bearer: bool,
    /// How many requests and streams clients may hold.
    pub limits: Limits,
}

/// A request on its way to the router.
pub(super) struct Outgoing<'a> {
    /// The line as the client wrote it.
    pub(super) line: &'a [u8],
    /// What the front read of exactly that line, if it did.
    pub(super) msg: Option<Message>,
    /// The client can be asked a person's questions about it (the input shim may take it).
    pub(super) asker: Option<Asker>,
}

/// `msg`, a request the front read, under the bridge's id `ticket` (and its progress token,
/// when it had one), as the spliced line has them.
fn with_ticket(mut msg: Message, ticket: Ticket, had_token: bool) -> Message {
    let text = ticket.to_string();
    if let Class::Request { id, .. } = &mut msg.class {
        id.raw.clone_from(&text);
        id.key = text;
    }
    if let Some(object) = msg.value.as_object_mut() {
        object.insert("id".into(), ticket.into());
    }
    if had_token {
        if let Some(token) = msg.value.pointer_mut("/params/_meta/progressToken") {
            *token = ticket.into();
        }
    }
    msg
}

/// A forwarded request in flight.
pub(super) struct Route<R> {
    pub(super) sink: R,
    pub(super) owner: Owner,
    /// The client's progress token (JSON text), when the request had one.
    pub(super) token: Option<String>,
    /// A call the input shim may drive: its client can be asked a person's questions.
    pub(super) asks: bool,
    /// While a person answers one of the shim's questions about it: when the shim gives up
    /// on them (its `--input-timeout-ms`), and answers the call itself.
    pub(super) asked: Option<Instant>,
    /// The device it went to, when the layer knows (a hub's own requests have none).
    pub(super) device: Option<usize>,
    wait: ReplyWait,
    /// The instant its timer is filed under.
    timer: Instant,
}

/// The clients machine, `R` being a route (see the module documentation).
pub struct Clients<R> {
    pub(super) cfg: ClientsConfig,
    pub(super) log: Logger,
    pub(super) ids: Ids<Route<R>>,
    timers: BTreeSet<(Instant, Ticket)>,
    pub(super) sessions: Sessions,
    pub(super) streams: Streams<R>,
    pub(super) admission: Admission,
    /// The client of each open stream.
    pub(super) stream_peers: HashMap<Ticket, String>,
    out: VecDeque<Effect<R>>,
    pub(super) now: Instant,
    /// Calls cancelled in this turn while a person was asked: the shim's withdrawal of its
    /// questions still goes onto their streams (it comes back before the shell hands the
    /// layer its next event; the next event forgets them).
    pub(super) withdrawing: HashMap<Ticket, R>,
}

impl<R: Clone> Clients<R> {
    /// A layer with no client yet.
    pub fn new(cfg: ClientsConfig, log: Logger, now: Instant) -> Self {
        Self {
            sessions: Sessions::new(cfg.max_sessions),
            admission: Admission::new(cfg.limits),
            cfg,
            log,
            ids: Ids::default(),
            timers: BTreeSet::new(),
            streams: Streams::default(),
            stream_peers: HashMap::new(),
            out: VecDeque::new(),
            now,
            withdrawing: HashMap::new(),
        }
    }

    /// Takes one event at `now`.
    pub fn handle(&mut self, event: Event<R>, now: Instant) {
        self.now = now;
        self.withdrawing.clear();
        match event {
            Event::Forward {
                ticket,
                line,
                msg,
                owner,
                tool,
                route,
            } => {
                let device = self.device_of(tool.as_deref());
                let request = Outgoing {
                    line: &line,
                    msg,
                    asker: None,
                };
                if let Err(answer) = self.forward(ticket, request, owner, device, route.clone()) {
                    self.deliver_to(route, Delivery::Answer(answer));
                }
            }
            Event::Notify(line) => self.send_to_router(line, None),
            Event::OpenSession(new) => self.open_session(new),
            Event::SessionPost(post) => self.session_post(post),
            Event::SessionStream {
                ticket,
                session,
                version_ok,
                peer,
                route,
            } => self.session_stream(ticket, &session, version_ok, peer, route),
            Event::CloseSession { session, route } => self.close_session(&session, route),
            Event::Listen {
                ticket,
                id,
                filter,
                peer,
                route,
            } => {
                if let Err(refused) = self.admission.stream(&peer) {
                    let answer = refused.answer(Some(&id.raw), "listen streams");
                    return self.deliver_to(route, Delivery::Answer(answer));
                }
                self.stream_peers.insert(ticket, peer);
                for (sink, delivery) in self.streams.subscribe(ticket, id, filter, route) {
                    self.deliver_to(sink, delivery);
                }
            }
            Event::Dropped { ticket } => self.dropped(ticket),
        }
    }

    /// The next effect, if any.
    pub fn poll_effect(&mut self) -> Option<Effect<R>> {
        self.out.pop_front()
    }

    /// When [`Clients::handle_timeout`] is due next, if ever.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.timers.first().map(|(at, _)| *at)
    }

    /// The time [`Clients::poll_timeout`] named has come (or passed).
    pub fn handle_timeout(&mut self, now: Instant) {
        self.now = now;
        self.withdrawing.clear();
        while let Some(&(at, ticket)) = self.timers.first() {
            if at > now {
                return;
            }
            self.timers.pop_first();
            let Some(route) = self.ids.get(ticket) else {
                continue;
            };
            match route.wait.decide(now, route.asked) {
                Waited::Until(at) => self.arm(ticket, at),
                Waited::PersonLate => {
                    // The shim answers the call at this very deadline (its answer comes as any
                    // line of it): wait for it as for any line.
                    if let Some(route) = self.ids.get_mut(ticket) {
                        route.asked = None;
                        route.wait.on_line(now);
                        let at = now + self.cfg.reply_idle;
                        self.arm(ticket, at);
                    }
                }
                Waited::GiveUp => {
                    if let Some(route) = self.finish(ticket) {
                        self.log.warn(format_args!(
                            "request {ticket} got no answer from the router"
                        ));
                        let line = error_response(
                            Some(&route.owner.id_raw),
                            REQUEST_TIMEOUT,
                            "Request timed out: the device did not answer",
                        );
                        self.deliver_to(route.sink, Delivery::Response(line));
                    }
                }
            }
        }
    }

    /// Requests in flight.
    pub fn in_flight(&self) -> usize {
        self.ids.len()
    }

    fn arm(&mut self, ticket: Ticket, at: Instant) {
        if let Some(route) = self.ids.get_mut(ticket) {
            self.timers.remove(&(route.timer, ticket));
            route.timer = at;
            self.timers.insert((at, ticket));
        }
    }

    /// The device a request goes to: a hub routes a `tools/call` by its name's prefix.
    pub(super) fn device_of(&self, tool: Option<&str>) -> Option<usize> {
        if self.cfg.devices.is_empty() {
            return Some(0);
        }
        let (name, _) = tool?.split_once('.')?;
        self.cfg.devices.iter().position(|d| d == name)
    }

    pub(super) fn send_to_router(&mut self, line: Vec<u8>, client: Option<String>) {
        self.out_to_router(line, client, None);
    }

    pub(super) fn out_to_router(
        &mut self,
        line: Vec<u8>,
        client: Option<String>,
        asker: Option<Asker>,
    ) {
        self.out.push_back(Effect::ToRouter {
            line,
            msg: None,
            client,
            asker,
        });
    }

    /// Session `session` ended: the engine below forgets what it kept for it.
    pub(super) fn client_ended(&mut self, session: &str) {
        let client = session.to_owned();
        self.out.push_back(Effect::Ended { client });
    }

    /// The client a request of `owner` belongs to, for the tasks it makes.
    pub(super) fn client_of(&self, owner: &Owner) -> Option<String> {
        match &owner.session {
            Some(session) => Some(session.clone()),
            None if self.cfg.bearer && !owner.peer.is_empty() => Some("bearer".into()),
            None => None,
        }
    }

    pub(super) fn deliver_to(&mut self, sink: R, delivery: Delivery) {
        self.out.push_back(Effect::Deliver(sink, delivery));
    }

    /// Hands `delivery` to request `ticket` (a line of it: its wait starts again, and a
    /// person asked has answered).
    pub(super) fn deliver(&mut self, ticket: Ticket, delivery: Delivery) {
        let now = self.now;
        if let Some(route) = self.ids.get_mut(ticket) {
            route.wait.on_line(now);
            route.asked = None;
            let sink = route.sink.clone();
            self.deliver_to(sink, delivery);
        }
    }

    /// Sends `request` to the router under `ticket`; only the id and the progress token are
    /// spliced, every other byte stays (and what the front read of it is given the same id and
    /// token, so it crosses the engine without another parse). `asker`: the client can be asked
    /// a person's questions about it (the input shim may take it). `Err` is the answer when it
    /// cannot go.
    pub(super) fn forward(
        &mut self,
        ticket: Ticket,
        request: Outgoing<'_>,
        owner: Owner,
        device: Option<usize>,
        sink: R,
    ) -> Result<(), Answer> {
        let Outgoing {
            line: request,
            msg,
            asker,
        } = request;
        let key = owner
            .session
            .as_ref()
            .map(|s| (s.clone(), owner.id_key.clone()));
        if key.as_ref().is_some_and(|k| self.ids.in_use(k)) {
            return Err(Answer::error(
                400,
                Some(&owner.id_raw),
                INVALID_REQUEST,
                "Invalid request: this id is already used by a request in flight",
            ));
        }
        let id_text = ticket.to_string();
        let Some((line, token)) = splice::with_id_and_token(request, &id_text, &id_text) else {
            return Err(Answer::error(
                400,
                Some(&owner.id_raw),
                INVALID_REQUEST,
                "Invalid request: the request could not be read",
            ));
        };
        if let Err(refused) = self.admission.request(&owner.peer) {
            return Err(refused.answer(Some(&owner.id_raw), "requests in flight"));
        }
        if let Some(session) = &owner.session {
            self.sessions.begin(session);
        }
        let timer = self.now + self.cfg.reply_idle;
        let route = Route {
            sink,
            owner,
            token,
            asks: asker.is_some(),
            asked: None,
            device,
            wait: ReplyWait::new(self.cfg.reply_idle, self.now),
            timer,
        };
        let client = self.client_of(&route.owner);
        let had_token = route.token.is_some();
        if self.ids.file(ticket, key, route).is_ok() {
            self.timers.insert((timer, ticket));
            let msg = msg.map(|m| with_ticket(m, ticket, had_token));
            self.out.push_back(Effect::ToRouter {
                line,
                msg,
                client,
                asker,
            });
        }
        Ok(())
    }

    /// Request `ticket` is over (answered, cancelled or given up): its route.
    pub(super) fn finish(&mut self, ticket: Ticket) -> Option<Route<R>> {
        let route = self.ids.remove(ticket)?;
        self.timers.remove(&(route.timer, ticket));
        self.admission.request_ended(&route.owner.peer);
        if let Some(session) = &route.owner.session {
            self.sessions.end(session, self.now);
        }
        Some(route)
    }

    /// Stops request `ticket`: the device is told (`notifications/cancelled`) unless it
    /// answered already.
    pub(super) fn cancel(&mut self, ticket: Ticket, reason: &str) {
        if let Some(route) = self.finish(ticket) {
            if route.asked.is_some() {
                self.withdrawing.insert(ticket, route.sink.clone());
            }
            // A call the shim may hold is cancelled in its client's name (the shim's is per
            // client); any other goes as the front's own line.
            let client = route.asks.then(|| self.client_of(&route.owner)).flatten();
            self.send_to_router(cancelled(&ticket.to_string(), reason), client);
        }
    }

    /// The client of `ticket` went away: a 2026-07-28 request is cancelled (closing its stream
    /// is its cancel), and so is a legacy call whose client could be asked (nobody is left to
    /// answer its questions); another legacy one is forgotten (its answer will be dropped); a
    /// stream closes.
    fn dropped(&mut self, ticket: Ticket) {
        let Some(route) = self.ids.get(ticket) else {
            if let Some(session) = self.streams.close(ticket) {
                self.sessions.end(&session, self.now);
            }
            self.stream_closed(ticket);
            return;
        };
        if route.owner.session.is_none() || route.asks {
            self.cancel(ticket, "the client closed the stream");
        } else {
            self.finish(ticket);
        }
    }

    /// The stream of `ticket` is over: its client holds one less.
    pub(super) fn stream_closed(&mut self, ticket: Ticket) {
        if let Some(peer) = self.stream_peers.remove(&ticket) {
            self.admission.stream_ended(&peer);
        }
    }
}
