//! What every request of the front shares: the handle on the clients layer, the learnt
//! handshake and tool marks, the doors; and how a request's `Accept` header is read.

use std::time::Duration;

use super::doors::Doors;
use super::exchange::LayerHandle;
use super::handshake::Handshake;
use super::param_headers::ToolHeaders;
use super::request::Request;
use crate::log::Logger;

/// Everything the requests share.
pub(super) struct FrontState {
    /// The handle on the clients layer.
    pub(super) layer: LayerHandle,
    pub(super) handshake: Handshake,
    /// The `Mcp-Param-*` marks of the device's tools (2026-07-28 calls are checked against them).
    pub(super) tool_headers: ToolHeaders,
    pub(super) doors: Doors,
    /// How long the front's own requests (its handshake, its listings) wait for the router.
    pub(super) reply_idle: Duration,
    pub(super) log: Logger,
}

/// How a request's answer may be sent, from its `Accept` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Accepts {
    /// `application/json` (or no `Accept` at all).
    pub(super) json: bool,
    /// `text/event-stream`.
    pub(super) sse: bool,
}

impl Accepts {
    /// What `request`'s `Accept` header accepts (JSON alone without one).
    pub(super) fn of(request: &Request) -> Self {
        let Some(accept) = request.header("accept") else {
            return Self {
                json: true,
                sse: false,
            };
        };
        let mut accepts = Self {
            json: false,
            sse: false,
        };
        for kind in accept.split(',') {
            let kind = kind.split(';').next().unwrap_or("").trim();
            let is = |name: &str| kind.eq_ignore_ascii_case(name);
            let any = is("*/*");
            accepts.json |= any || is("application/json") || is("application/*");
            accepts.sse |= any || is("text/event-stream") || is("text/*");
        }
        accepts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(headers: &[(&str, &str)]) -> Request {
        Request::post_for_test(headers)
    }

    #[test]
    fn accept_header() {
        let a = Accepts::of(&request(&[(
            "accept",
            "application/json, text/event-stream",
        )]));
        assert_eq!(
            a,
            Accepts {
                json: true,
                sse: true
            }
        );
        let a = Accepts::of(&request(&[("accept", "text/event-stream;q=1")]));
        assert_eq!(
            a,
            Accepts {
                json: false,
                sse: true
            }
        );
        let a = Accepts::of(&request(&[]));
        assert_eq!(
            a,
            Accepts {
                json: true,
                sse: false
            }
        );
        let a = Accepts::of(&request(&[("accept", "text/html")]));
        assert_eq!(
            a,
            Accepts {
                json: false,
                sse: false
            }
        );
    }
}
