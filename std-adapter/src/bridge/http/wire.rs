//! HTTP/1.1 framing of the front: request heads parsed by `httparse`, bodies read up to a bound,
//! and the two kinds of answer it writes: a whole body, or an SSE stream in chunked transfer
//! encoding, flushed after every event.

use std::io::{self, BufRead, Write};

/// Longest request head (request line and headers) accepted.
pub(super) const MAX_HEAD: usize = 16 * 1024;
/// Most headers in one request.
const MAX_HEADERS: usize = 64;

/// One request as the front needs it.
#[derive(Debug)]
pub(super) struct Request {
    /// `GET`, `POST`, ...
    pub(super) method: String,
    /// The request target (path and query).
    pub(super) path: String,
    /// Headers: lower-case names, values trimmed, in arrival order.
    pub(super) headers: Vec<(String, String)>,
    /// The body (empty when there is none or it was over the bound).
    pub(super) body: Vec<u8>,
    /// `Content-Length` was over the bound: the body was not read (answer 413 and close).
    pub(super) too_large: bool,
    /// The connection must close after the answer (HTTP/1.0, `Connection: close`).
    pub(super) close: bool,
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
            too_large: false,
            close: false,
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

/// Why no request could be read.
#[derive(Debug)]
pub(super) enum ReadError {
    /// The peer closed the connection, went idle, or the socket failed.
    Closed,
    /// The head is not HTTP/1.1, or is too long: answer with this status and close.
    Malformed(u16, &'static str),
}

/// Reads one request from `input`; bodies longer than `max_body` are not read.
pub(super) fn read_request<R: BufRead>(
    input: &mut R,
    max_body: usize,
) -> Result<Request, ReadError> {
    let head = read_head(input)?;
    let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Request::new(&mut slots);
    match parsed.parse(&head) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => {
            return Err(ReadError::Malformed(400, "incomplete request head"))
        }
        Err(httparse::Error::TooManyHeaders) => {
            return Err(ReadError::Malformed(431, "too many headers"))
        }
        Err(_) => return Err(ReadError::Malformed(400, "malformed request head")),
    }
    let method = parsed.method.unwrap_or_default().to_owned();
    let path = parsed.path.unwrap_or_default().to_owned();
    let version = parsed.version.unwrap_or(1);
    let mut headers = Vec::with_capacity(parsed.headers.len());
    for h in parsed.headers.iter() {
        let Ok(value) = std::str::from_utf8(h.value) else {
            return Err(ReadError::Malformed(400, "a header value is not UTF-8"));
        };
        headers.push((h.name.to_ascii_lowercase(), value.trim().to_owned()));
    }
    let mut request = Request {
        method,
        path,
        headers,
        body: Vec::new(),
        too_large: false,
        close: false,
    };
    let connection = request
        .header("connection")
        .unwrap_or("")
        .to_ascii_lowercase();
    request.close =
        version == 0 && !connection.contains("keep-alive") || connection.contains("close");
    if request.header("transfer-encoding").is_some() {
        return Err(ReadError::Malformed(
            411,
            "request bodies need a Content-Length (chunked bodies are not accepted)",
        ));
    }
    let lengths: Vec<&str> = request
        .headers
        .iter()
        .filter(|(n, _)| n == "content-length")
        .map(|(_, v)| v.as_str())
        .collect();
    let length = match lengths.as_slice() {
        [] => 0,
        [first, rest @ ..] if rest.iter().all(|v| v == first) => first
            .parse::<usize>()
            .map_err(|_| ReadError::Malformed(400, "Content-Length is not a number"))?,
        _ => {
            return Err(ReadError::Malformed(
                400,
                "conflicting Content-Length headers",
            ))
        }
    };
    if length > max_body {
        request.too_large = true;
        request.close = true;
        return Ok(request);
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body).map_err(|_| ReadError::Closed)?;
    request.body = body;
    Ok(request)
}

/// Reads up to and including the blank line that ends a head.
fn read_head<R: BufRead>(input: &mut R) -> Result<Vec<u8>, ReadError> {
    let mut head = Vec::new();
    loop {
        let before = head.len();
        let read = match input.read_until(b'\n', &mut head) {
            Ok(n) => n,
            // Idle past the read timeout, reset, or failed: nothing more to serve.
            Err(_) => return Err(ReadError::Closed),
        };
        if read == 0 {
            return if head.is_empty() {
                Err(ReadError::Closed)
            } else {
                Err(ReadError::Malformed(
                    400,
                    "the connection closed inside a request head",
                ))
            };
        }
        if head.len() > MAX_HEAD {
            return Err(ReadError::Malformed(431, "request head too long"));
        }
        let line = head.get(before..).unwrap_or_default();
        if line == b"\r\n" || line == b"\n" {
            // Empty lines before a request line are tolerated (RFC 9112 §2.2).
            if before == 0 {
                head.clear();
                continue;
            }
            return Ok(head);
        }
    }
}

/// The reason phrase of the statuses the front sends.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Internal Server Error",
    }
}

/// An answer with a whole body.
pub(super) struct Answer<'a> {
    /// The HTTP status.
    pub(super) status: u16,
    /// Extra headers (`Content-Length` and `Connection` are added).
    pub(super) headers: Vec<(&'static str, String)>,
    /// The body.
    pub(super) body: &'a [u8],
    /// Close the connection after it.
    pub(super) close: bool,
}

/// Writes `answer` and flushes.
pub(super) fn write_answer<W: Write>(out: &mut W, answer: &Answer<'_>) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {} {}\r\n", answer.status, reason(answer.status));
    for (name, value) in &answer.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n", answer.body.len()));
    if answer.close {
        head.push_str("Connection: close\r\n");
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    out.write_all(answer.body)?;
    out.flush()
}

/// Writes the head of a 200 `text/event-stream` answer in chunked encoding, with `headers`.
pub(super) fn start_events<W: Write>(
    out: &mut W,
    headers: &[(&'static str, String)],
) -> io::Result<()> {
    let mut head = String::from(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\nTransfer-Encoding: chunked\r\n",
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    out.flush()
}

/// Sends one JSON-RPC message (a single line) as a `message` event, in one chunk, flushed.
pub(super) fn write_event<W: Write>(out: &mut W, message: &[u8]) -> io::Result<()> {
    let mut event = Vec::with_capacity(message.len() + 24);
    event.extend_from_slice(b"event: message\ndata: ");
    event.extend_from_slice(message);
    event.extend_from_slice(b"\n\n");
    write!(out, "{:x}\r\n", event.len())?;
    out.write_all(&event)?;
    out.write_all(b"\r\n")?;
    out.flush()
}

/// Sends an SSE comment line (a keep-alive: clients ignore it), in one chunk, flushed.
pub(super) fn write_comment<W: Write>(out: &mut W, text: &str) -> io::Result<()> {
    let event = format!(": {text}\n\n");
    write!(out, "{:x}\r\n{event}\r\n", event.len())?;
    out.flush()
}

/// Ends an event stream (the last chunk); the connection stays usable.
pub(super) fn end_events<W: Write>(out: &mut W) -> io::Result<()> {
    out.write_all(b"0\r\n\r\n")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, max_body: usize) -> Result<Request, ReadError> {
        read_request(&mut io::Cursor::new(text.as_bytes().to_vec()), max_body)
    }

    #[test]
    fn reads_a_request_with_a_body_and_keeps_the_next_one() {
        let text = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:1\r\nContent-Length: 2\r\nX-A:  v \r\n\r\n{}GET / HTTP/1.1\r\n\r\n";
        let mut input = io::Cursor::new(text.as_bytes().to_vec());
        let r = read_request(&mut input, 10).unwrap();
        assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/mcp"));
        assert_eq!(r.body, b"{}");
        assert_eq!(r.header("x-a"), Some("v"));
        assert!(!r.close);
        let r = read_request(&mut input, 10).unwrap();
        assert_eq!(r.method, "GET");
        assert!(matches!(
            read_request(&mut input, 10),
            Err(ReadError::Closed)
        ));
    }

    #[test]
    fn bounds_and_refusals() {
        let r = read("POST /mcp HTTP/1.1\r\nContent-Length: 11\r\n\r\n", 10).unwrap();
        assert!(r.too_large && r.close && r.body.is_empty());
        assert!(matches!(
            read("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 10),
            Err(ReadError::Malformed(411, _))
        ));
        assert!(matches!(
            read(
                "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                10
            ),
            Err(ReadError::Malformed(400, _))
        ));
        assert!(matches!(
            read("garbage\r\n\r\n", 10),
            Err(ReadError::Malformed(400, _))
        ));
        let long = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(MAX_HEAD));
        assert!(matches!(read(&long, 10), Err(ReadError::Malformed(431, _))));
        assert!(read("GET / HTTP/1.0\r\n\r\n", 10).unwrap().close);
    }

    #[test]
    fn writes_answers_and_chunked_events() {
        let mut out = Vec::new();
        write_answer(
            &mut out,
            &Answer {
                status: 202,
                headers: vec![],
                body: b"",
                close: false,
            },
        )
        .unwrap();
        assert_eq!(out, b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n");
        let mut out = Vec::new();
        start_events(&mut out, &[]).unwrap();
        write_event(&mut out, b"{}").unwrap();
        end_events(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with(
            "Transfer-Encoding: chunked\r\n\r\n19\r\nevent: message\ndata: {}\n\n\r\n0\r\n\r\n"
        ));
    }
}
