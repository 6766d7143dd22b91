//! What the front decided to answer to one HTTP request, before any byte is written: a whole
//! answer now, a forwarded request to wait for (answered as JSON or as an SSE stream), or a
//! session's GET stream.

use tokio::sync::mpsc::UnboundedReceiver;

use super::multiplex::Ticket;
use super::session_table::InUse;
use crate::bridge::message::{
    error_response, HEADER_MISMATCH, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND,
    MISSING_CLIENT_CAPABILITY, PARSE_ERROR, UNSUPPORTED_PROTOCOL_VERSION,
};

/// The front's answer to one HTTP request.
pub(super) enum Reply {
    /// Answer now.
    Answer {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: Vec<u8>,
    },
    /// Wait for the router's lines for `ticket`.
    Wait {
        ticket: Ticket,
        /// The client accepts `text/event-stream` (notifications can be sent).
        sse: bool,
        /// A 2026-07-28 request: error codes map to HTTP statuses, and a dropped stream cancels.
        stateless: bool,
        headers: Vec<(&'static str, String)>,
        /// The legacy session the request belongs to, busy until the answer is written.
        session: Option<InUse>,
    },
    /// A session's GET stream: the messages tied to no request, until the session ends (or
    /// another GET of the session replaces this one).
    Listen {
        lines: UnboundedReceiver<Vec<u8>>,
        headers: Vec<(&'static str, String)>,
    },
}

impl Reply {
    /// An answer without a body.
    pub(super) fn empty(status: u16) -> Self {
        Self::Answer {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// A JSON body.
    pub(super) fn json(status: u16, body: Vec<u8>) -> Self {
        Self::Answer {
            status,
            headers: vec![("Content-Type", "application/json".into())],
            body,
        }
    }

    /// A JSON-RPC error response (`id`: exact id text, `None` for `null`).
    pub(super) fn error(status: u16, id: Option<&str>, code: i64, message: &str) -> Self {
        Self::json(status, error_response(id, code, message))
    }

    /// The same reply with one more header.
    pub(super) fn with_header(mut self, name: &'static str, value: String) -> Self {
        match &mut self {
            Self::Answer { headers, .. }
            | Self::Wait { headers, .. }
            | Self::Listen { headers, .. } => {
                headers.push((name, value));
            }
        }
        self
    }
}

/// The HTTP status of a 2026-07-28 response answered as JSON, from its error code.
pub(super) fn stateless_status(response: &[u8]) -> u16 {
    let code = serde_json::from_slice::<serde_json::Value>(response)
        .ok()
        .and_then(|v| v.get("error")?.get("code")?.as_i64());
    match code {
        Some(METHOD_NOT_FOUND) => 404,
        Some(
            PARSE_ERROR
            | INVALID_REQUEST
            | INVALID_PARAMS
            | HEADER_MISMATCH
            | MISSING_CLIENT_CAPABILITY
            | UNSUPPORTED_PROTOCOL_VERSION,
        ) => 400,
        _ => 200,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_of_stateless_errors() {
        assert_eq!(
            stateless_status(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            200
        );
        assert_eq!(
            stateless_status(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":""}}"#),
            404
        );
        assert_eq!(
            stateless_status(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":""}}"#),
            400
        );
        assert_eq!(
            stateless_status(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":""}}"#),
            200
        );
    }
}
