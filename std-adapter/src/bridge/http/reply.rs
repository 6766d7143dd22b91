//! What the front decided to answer to one HTTP request, before any byte is written: a whole
//! answer now, or an exchange handed to the clients layer whose deliveries make the answer (a
//! forwarded request, answered as JSON or as an SSE stream; or a stream).

use embedded_mcp::json::{Limits, Value as RawValue, MAX_DEPTH_LIMIT};

use super::multiplex::Awaited;
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
    /// Wait for the clients layer's deliveries: an answer of its own, or the router's lines.
    Wait {
        ticket: Awaited,
        /// The client accepts `text/event-stream` (notifications can be sent).
        sse: bool,
        /// A 2026-07-28 request: error codes map to HTTP statuses.
        stateless: bool,
        headers: Vec<(&'static str, String)>,
    },
    /// A stream (a session's GET stream, a 2026-07-28 listen stream) once the layer opened it,
    /// or the layer's refusal.
    Stream {
        ticket: Awaited,
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
            | Self::Stream { headers, .. } => {
                headers.push((name, value));
            }
        }
        self
    }
}

/// The HTTP status of a 2026-07-28 response answered as JSON, from its error code.
pub(super) fn stateless_status(response: &[u8]) -> u16 {
    // Read in place: a success (the usual answer) costs one scan and no tree.
    let limits = Limits {
        max_depth: MAX_DEPTH_LIMIT,
    };
    let code = RawValue::parse_with(response, limits)
        .ok()
        .and_then(|v| v.get("error")?.get("code")?.raw().parse::<i64>().ok());
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
