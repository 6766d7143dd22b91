//! Server-sent events as the front writes them: one JSON-RPC message (a single line) per
//! `message` event, and comment lines as keep-alives. The HTTP/1.1 chunked framing around them
//! is hyper's.

/// One JSON-RPC message (a single line) as a `message` event.
pub(super) fn event(message: &[u8]) -> Vec<u8> {
    let mut event = Vec::with_capacity(message.len() + 24);
    event.extend_from_slice(b"event: message\ndata: ");
    event.extend_from_slice(message);
    event.extend_from_slice(b"\n\n");
    event
}

/// An SSE comment line (clients ignore it; a keep-alive).
pub(super) fn comment(text: &str) -> Vec<u8> {
    format!(": {text}\n\n").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_and_comments() {
        assert_eq!(event(b"{}"), b"event: message\ndata: {}\n\n");
        assert_eq!(comment("keep-alive"), b": keep-alive\n\n");
    }
}
