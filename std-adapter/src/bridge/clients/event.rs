//! What passes between the clients layer and its shell: events in, effects out, and what a
//! waiting request or an open stream is handed.

use embedded_mcp::protocol::Version;
use serde_json::Value;

use crate::bridge::machine::Asker;
use crate::bridge::message::{error_response, Id, Message};
use crate::bridge::subscriptions::Filter;

/// Names one exchange of a client with the layer (a forwarded request or an open stream); the
/// shell chooses it, unique and increasing. A forwarded request's ticket is also its id toward
/// the router (and its progress token), so requests of different clients never collide there.
pub type Ticket = u64;

/// Who a forwarded request belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    /// The legacy session, if any (ids are unique per session only; a stateless request's
    /// client is the request itself).
    pub session: Option<String>,
    /// The client's id, exact JSON text.
    pub id_raw: String,
    /// The client's id, canonical.
    pub id_key: String,
    /// The address it came from (`""`: the front's own request, not counted).
    pub peer: String,
}

/// A legacy `initialize` the shell answered from the device's handshake: open the session.
#[derive(Debug)]
pub struct NewSession<R> {
    /// Its `Mcp-Session-Id` (random, drawn by the shell).
    pub id: String,
    /// The version agreed to.
    pub version: Version,
    /// The client's `capabilities`.
    pub capabilities: Value,
    /// The version differs from the device's: requests carry it in `_meta`.
    pub translate: bool,
    /// The client's id (exact text), for a refusal.
    pub id_raw: String,
    /// The `initialize` response to answer once the session is open.
    pub response: Vec<u8>,
    /// Where the answer goes.
    pub route: R,
}

/// A POST in legacy session `session`.
#[derive(Debug)]
pub struct SessionPost<R> {
    /// Its ticket.
    pub ticket: Ticket,
    /// The `Mcp-Session-Id` it carries.
    pub session: String,
    /// Its `MCP-Protocol-Version` header, if any, names a legacy version.
    pub version_ok: bool,
    /// The message, parsed.
    pub msg: Message,
    /// The body as the client wrote it.
    pub body: Vec<u8>,
    /// The client takes an SSE answer (it can be asked a person's questions).
    pub sse: bool,
    /// The address it came from.
    pub peer: String,
    /// Where the answer goes.
    pub route: R,
}

/// Something a client did.
#[derive(Debug)]
pub enum Event<R> {
    /// Forward a request (a JSON-RPC request line, exactly as the client wrote it) under
    /// `ticket`: a 2026-07-28 request, or one of the front's own.
    Forward {
        /// Its ticket.
        ticket: Ticket,
        /// The line.
        line: Vec<u8>,
        /// What the front read of the line, if it did (the engine then reads it no more).
        msg: Option<Message>,
        /// Its client.
        owner: Owner,
        /// `params.name` of a `tools/call` (a hub routes it by its prefix).
        tool: Option<String>,
        /// Where its lines go.
        route: R,
    },
    /// Send a notification line to the router as it is.
    Notify(Vec<u8>),
    /// Open a legacy session.
    OpenSession(NewSession<R>),
    /// A POST in a legacy session.
    SessionPost(SessionPost<R>),
    /// A session's GET stream (replacing the one it had).
    SessionStream {
        /// Its ticket.
        ticket: Ticket,
        /// The session.
        session: String,
        /// As in [`SessionPost::version_ok`].
        version_ok: bool,
        /// The address it came from.
        peer: String,
        /// Where its lines go.
        route: R,
    },
    /// DELETE of a session.
    CloseSession {
        /// The session.
        session: String,
        /// Where the answer goes.
        route: R,
    },
    /// A 2026-07-28 `subscriptions/listen` stream.
    Listen {
        /// Its ticket.
        ticket: Ticket,
        /// The listen request's id.
        id: Id,
        /// What it asks for (`tools_list_changed` already agreed to or not).
        filter: Filter,
        /// The address it came from.
        peer: String,
        /// Where its lines go.
        route: R,
    },
    /// The client of `ticket` went away before its answer ended (or closed its stream).
    Dropped {
        /// The ticket.
        ticket: Ticket,
    },
}

/// An HTTP answer the layer decided on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// Status code.
    pub status: u16,
    /// Headers besides the content type.
    pub headers: Vec<(&'static str, String)>,
    /// A JSON body (empty: none).
    pub body: Vec<u8>,
}

impl Answer {
    /// An answer without a body.
    pub fn empty(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// A JSON body.
    pub fn json(status: u16, body: Vec<u8>) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body,
        }
    }

    /// A JSON-RPC error (`id`: exact id text, `None` for `null`).
    pub fn error(status: u16, id: Option<&str>, code: i64, message: &str) -> Self {
        Self::json(status, error_response(id, code, message))
    }
}

/// What a waiting request or an open stream is handed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// The whole HTTP answer (the last delivery).
    Answer(Answer),
    /// A notification (or a question of the shim) tied to the request, before its response.
    Notification(Vec<u8>),
    /// The request's response (the last delivery).
    Response(Vec<u8>),
    /// The stream is open: lines follow, until the route is dropped.
    Opened,
    /// A line of an open stream.
    Line(Vec<u8>),
}

/// Something the layer asks the shell to do.
#[derive(Debug)]
pub enum Effect<R> {
    /// Hand this line to the router, as a line of its host (of `client`, when it names one:
    /// the tasks it makes are that client's).
    ToRouter {
        /// The line.
        line: Vec<u8>,
        /// What the front read of it, under the bridge's id (the engine reads it no more).
        msg: Option<Message>,
        /// The client: a session's id, or `bearer` for a request let in by the token.
        client: Option<String>,
        /// A session's `tools/call` whose client can be asked (the input shim takes it).
        asker: Option<Asker>,
    },
    /// Client `client` (a session) is gone: the engine forgets what it kept for it.
    Ended {
        /// The session's id.
        client: String,
    },
    /// Hand this to the waiting request or stream whose route it is.
    Deliver(R, Delivery),
}
