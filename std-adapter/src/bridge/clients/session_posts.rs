//! What a client does in a legacy (2025-06-18, 2025-11-25) session, decided on the session
//! table: open one (its `initialize`, answered by the shell from the device's handshake), post
//! in it, open its GET stream, end it.
//!
//! A session at the version of the front's own handshake sends its requests to the device
//! unchanged. A session at another version (2025-06-18) has its requests carry that version
//! and the client's capabilities in `_meta`, which an embedded-mcp device answers with that
//! version's rules, whatever other sessions agreed to.

use embedded_mcp::protocol::LogLevel;
use serde_json::Value;

use super::engine::{Clients, Outgoing};
use super::event::{Answer, Delivery, NewSession, Owner, SessionPost, Ticket};
use super::sessions::{Session, MAX_CAPABILITIES};
use crate::bridge::input_shim::{can_ask, names_revision};
use crate::bridge::machine::Asker;
use crate::bridge::message::{splice, Class, Id, Message, INVALID_PARAMS, INVALID_REQUEST};
use crate::wire::meta::{
    CLIENT_CAPABILITIES as META_CLIENT_CAPABILITIES, PROTOCOL_VERSION as META_PROTOCOL_VERSION,
};

/// The answer to a request naming no open session.
fn no_session() -> Answer {
    Answer::error(
        404,
        None,
        INVALID_REQUEST,
        "Not found: no such session (initialize again)",
    )
}

/// The answer to a request whose `MCP-Protocol-Version` is not a legacy one.
fn bad_version() -> Answer {
    Answer::error(
        400,
        None,
        INVALID_REQUEST,
        "Bad request: unsupported MCP-Protocol-Version",
    )
}

impl<R: Clone> Clients<R> {
    pub(super) fn open_session(&mut self, new: NewSession<R>) {
        let now = self.now;
        if new.capabilities.to_string().len() > MAX_CAPABILITIES {
            let answer = Answer::error(
                400,
                Some(&new.id_raw),
                INVALID_PARAMS,
                &format!("Invalid params: capabilities longer than {MAX_CAPABILITIES} bytes"),
            );
            return self.deliver_to(new.route, Delivery::Answer(answer));
        }
        let opened = self.sessions.open(
            new.id.clone(),
            new.version,
            new.capabilities,
            new.translate,
            now,
        );
        let answer = match opened {
            Ok(evicted) => {
                if let Some(evicted) = evicted {
                    self.end_session(&evicted);
                    self.log.info(format_args!(
                        "session table full: evicted the least recently used idle session"
                    ));
                }
                let mut answer = Answer::json(200, new.response);
                answer.headers.push(("Mcp-Session-Id", new.id));
                answer
            }
            Err(_) => {
                let mut answer = Answer::error(
                    503,
                    Some(&new.id_raw),
                    INVALID_REQUEST,
                    "Service unavailable: the session table is full of live sessions",
                );
                answer.headers.push(("Retry-After", "1".into()));
                answer
            }
        };
        self.deliver_to(new.route, Delivery::Answer(answer));
    }

    fn end_session(&mut self, session: &str) {
        if let Some(ticket) = self.streams.end_session_stream(session) {
            self.stream_closed(ticket);
        }
        self.client_ended(session);
    }

    pub(super) fn close_session(&mut self, session: &str, route: R) {
        self.end_session(session);
        let answer = if self.sessions.close(session) {
            self.log.info(format_args!("session ended by the client"));
            Answer::empty(200)
        } else {
            Answer::error(404, None, INVALID_REQUEST, "Not found: no such session")
        };
        self.deliver_to(route, Delivery::Answer(answer));
    }

    /// A session's GET stream: the messages tied to no request, until the session ends or
    /// another GET of the session replaces it.
    pub(super) fn session_stream(
        &mut self,
        ticket: Ticket,
        session: &str,
        version_ok: bool,
        peer: String,
        route: R,
    ) {
        let now = self.now;
        if self.sessions.get(session, now).is_none() {
            return self.deliver_to(route, Delivery::Answer(no_session()));
        }
        if !version_ok {
            return self.deliver_to(route, Delivery::Answer(bad_version()));
        }
        // A new GET ends the session's stream, if it had one.
        let replaced = self.streams.end_session_stream(session);
        if let Some(old) = replaced {
            self.stream_closed(old);
        }
        if let Err(refused) = self.admission.stream(&peer) {
            if replaced.is_some() {
                self.sessions.end(session, now);
            }
            let answer = refused.answer(None, "streams");
            return self.deliver_to(route, Delivery::Answer(answer));
        }
        self.stream_peers.insert(ticket, peer);
        self.streams
            .open_session_stream(session, ticket, route.clone());
        // An open stream keeps its session live.
        if replaced.is_none() {
            self.sessions.begin(session);
        }
        self.deliver_to(route, Delivery::Opened);
    }

    pub(super) fn session_post(&mut self, post: SessionPost<R>) {
        let now = self.now;
        if self.sessions.get(&post.session, now).is_none() {
            return self.deliver_to(post.route, Delivery::Answer(no_session()));
        }
        if !post.version_ok {
            return self.deliver_to(post.route, Delivery::Answer(bad_version()));
        }
        let msg = &post.msg;
        let answer = match &msg.class {
            Class::Request { id, method } => match method.as_str() {
                "initialize" => Answer::error(
                    400,
                    Some(&id.raw),
                    INVALID_REQUEST,
                    "Bad request: this session is initialized already",
                ),
                "logging/setLevel" => match self.sessions.get(&post.session, now) {
                    Some(session) => set_level(session, msg, id),
                    None => no_session(),
                },
                _ => return self.session_request(post),
            },
            Class::Notification { method } => {
                if method == "notifications/cancelled" {
                    self.cancel_client(&post.session, &msg.value);
                }
                // `notifications/initialized` was sent to the device by the front's own
                // handshake; other client notifications mean nothing to a tools device.
                Answer::empty(202)
            }
            // A response answers one of the shim's questions, or nothing: only a client that
            // can be asked has its responses read (by the shim).
            Class::Response { .. } => {
                if let Some(asker) = self.asker_of(&post.session) {
                    self.ask_down(post.body.clone(), &post.session, asker);
                }
                Answer::empty(202)
            }
            Class::ErrorWithoutId => Answer::empty(202),
            Class::Invalid { id } => Answer::error(
                400,
                id.as_ref().map(|id| id.raw.as_str()),
                INVALID_REQUEST,
                "Invalid request: not a JSON-RPC 2.0 request, notification or response",
            ),
        };
        self.deliver_to(post.route, Delivery::Answer(answer));
    }

    /// A request of the session for the device: through the shim when it is a call that may
    /// need a person's answer and the client can be asked (it takes an event stream).
    fn session_request(&mut self, post: SessionPost<R>) {
        let Class::Request { id, method } = &post.msg.class else {
            return;
        };
        let owner = Owner {
            session: Some(post.session.clone()),
            id_raw: id.raw.clone(),
            id_key: id.key.clone(),
            peer: post.peer.clone(),
        };
        let tool = post
            .msg
            .value
            .pointer("/params/name")
            .and_then(Value::as_str);
        let device = self.device_of(tool);
        let route = post.route;
        // A call the input shim takes goes as the client wrote it (the shim makes its
        // 2026-07-28 form); the client's own revision in `_meta` keeps it from the shim.
        let asker = (method == "tools/call" && post.sse)
            .then(|| self.asker_of(&post.session))
            .flatten()
            .filter(|_| !names_revision(post.msg.value.get("params")));
        // What the front read goes along while the line stays the client's.
        let (line, msg) = match self.sessions.peek(&post.session) {
            Some(session) if session.translate && asker.is_none() => {
                (self_contained(&post.body, session), None)
            }
            _ => (post.body, Some(post.msg)),
        };
        let request = Outgoing {
            line: &line,
            msg,
            asker,
        };
        let sent = self.forward(post.ticket, request, owner, device, route.clone());
        if let Err(answer) = sent {
            self.deliver_to(route, Delivery::Answer(answer));
        }
    }

    /// The client's `notifications/cancelled` in `session`.
    fn cancel_client(&mut self, session: &str, value: &Value) {
        let params = value.get("params");
        let Some(key) = params
            .and_then(|p| p.get("requestId"))
            .and_then(|id| serde_json::to_string(id).ok())
        else {
            return;
        };
        let reason = params
            .and_then(|p| p.get("reason"))
            .and_then(Value::as_str)
            .unwrap_or("cancelled by the client");
        if let Some(ticket) = self.ids.id_of(&(session.to_owned(), key)) {
            self.cancel(ticket, reason);
        }
    }
}

impl<R: Clone> Clients<R> {
    /// What the input shim needs of `session` to ask its client a person's questions: `None`
    /// when it cannot be asked (it did not declare `elicitation`).
    fn asker_of(&self, session: &str) -> Option<Asker> {
        let s = self.sessions.peek(session)?;
        can_ask(&s.capabilities).then(|| Asker {
            version: s.version.as_str().to_owned(),
            capabilities: s.capabilities.clone(),
            // The layer filters log messages by the session's level: the device sends them all.
            log_level: (s.log_level != 0).then_some("debug"),
        })
    }

    /// Hands the shim a line of `session` (an answer to one of its questions).
    fn ask_down(&mut self, line: Vec<u8>, session: &str, asker: Asker) {
        self.out_to_router(line, Some(session.to_owned()), Some(asker));
    }
}

fn set_level(session: &mut Session, msg: &Message, id: &Id) -> Answer {
    let level = msg
        .value
        .get("params")
        .and_then(|p| p.get("level"))
        .and_then(Value::as_str)
        .and_then(LogLevel::from_name);
    match level {
        Some(level) => {
            session.log_level = level.rank();
            let body = format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{}}}}", id.raw);
            Answer::json(200, body.into_bytes())
        }
        None => Answer::error(
            200,
            Some(&id.raw),
            INVALID_PARAMS,
            "Invalid params: unknown log level",
        ),
    }
}

/// The request `line` with the session's protocol version and client capabilities added to
/// `params._meta` (keys the client set itself are kept, and no other byte changes).
fn self_contained(line: &[u8], session: &Session) -> Vec<u8> {
    let version = format!("\"{}\"", session.version.as_str());
    let capabilities = session.capabilities.to_string();
    let members = [
        (META_PROTOCOL_VERSION, version.as_str()),
        (META_CLIENT_CAPABILITIES, capabilities.as_str()),
    ];
    splice::with_meta_defaults(line, &members).unwrap_or_else(|| line.to_vec())
}
