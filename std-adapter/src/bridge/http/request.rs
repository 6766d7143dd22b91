//! One HTTP request as the MCP logic of the front sees it: method, target, headers (as hyper
//! parsed them, every value checked to be UTF-8) and the body, read whole and bounded by the
//! server before any of this runs.

use bytes::Bytes;
use hyper::http::request::Parts;
use hyper::{HeaderMap, Method};

/// One request as the front needs it.
#[derive(Debug)]
pub(super) struct Request {
    /// `GET`, `POST`, ...
    pub(super) method: Method,
    /// The request target (path and query).
    pub(super) path: String,
    /// Headers, in arrival order; every value is UTF-8.
    headers: HeaderMap,
    /// The body (empty when there is none).
    pub(super) body: Bytes,
    /// The address the request came from (its IP): who a client without a session is.
    pub(super) peer: String,
}

impl Request {
    /// The head of a request from `peer`, without its body yet; `None` when a header value is
    /// not UTF-8.
    pub(super) fn of(parts: Parts, peer: &str) -> Option<Self> {
        if parts
            .headers
            .values()
            .any(|v| std::str::from_utf8(v.as_bytes()).is_err())
        {
            return None;
        }
        let path = parts
            .uri
            .path_and_query()
            .map_or_else(|| parts.uri.path().to_owned(), |p| p.as_str().to_owned());
        Some(Self {
            method: parts.method,
            path,
            headers: parts.headers,
            body: Bytes::new(),
            peer: peer.to_owned(),
        })
    }

    /// A `POST /mcp` with `headers` (lower-case names) and no body, for the front's tests.
    #[cfg(test)]
    pub(super) fn post_for_test(headers: &[(&str, &str)]) -> Self {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            let name = hyper::header::HeaderName::from_bytes(name.as_bytes()).unwrap();
            map.append(name, value.parse().unwrap());
        }
        Self {
            method: Method::POST,
            path: "/mcp".into(),
            headers: map,
            body: Bytes::new(),
            peer: "127.0.0.1".into(),
        }
    }

    /// The first value of header `name` (lower case), trimmed.
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        let value = self.headers.get(name)?;
        // Checked to be UTF-8 when the request was made.
        std::str::from_utf8(value.as_bytes()).ok().map(str::trim)
    }

    /// How many headers named `name` arrived.
    pub(super) fn count(&self, name: &str) -> usize {
        self.headers.get_all(name).iter().count()
    }
}
