//! One HTTP request as the MCP logic of the front sees it: method, target, headers (lower-case
//! names, values trimmed, in arrival order) and the body, read whole and bounded by the shell
//! before any of this runs.

/// One request as the front needs it.
#[derive(Debug)]
pub(super) struct Request {
    /// `GET`, `POST`, ...
    pub(super) method: String,
    /// The request target (path and query).
    pub(super) path: String,
    /// Headers: lower-case names, values trimmed, in arrival order.
    pub(super) headers: Vec<(String, String)>,
    /// The body (empty when there is none).
    pub(super) body: Vec<u8>,
    /// The address the request came from (its IP): who a client without a session is.
    pub(super) peer: String,
}

impl Request {
    /// A `POST /mcp` with `headers` (lower-case names) and no body, for the front's tests.
    #[cfg(test)]
    pub(super) fn post_for_test(headers: &[(&str, &str)]) -> Self {
        Self {
            method: "POST".into(),
            path: "/mcp".into(),
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: Vec::new(),
            peer: "127.0.0.1".into(),
        }
    }

    /// The first value of header `name` (lower case).
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// How many headers named `name` arrived.
    pub(super) fn count(&self, name: &str) -> usize {
        self.headers.iter().filter(|(n, _)| n == name).count()
    }
}
