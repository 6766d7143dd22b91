//! One client connection (one thread): requests read one after the other (HTTP/1.1
//! keep-alive), each answered before the next is read; a forwarded request is answered as JSON
//! when its response comes first, or as an SSE stream opened by its first notification; a
//! session's GET stream holds the connection until the session ends.

use std::io::{BufReader, BufWriter, Write};
use std::net::TcpStream;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use super::front::Front;
use super::hub::{Delivery, Ticket};
use super::reply::{stateless_status, Reply};
use super::wire::{self, Answer, ReadError};
use crate::bridge::message::{error_response, CONNECTION_CLOSED, INVALID_REQUEST, REQUEST_TIMEOUT};

/// A keep-alive connection idle this long is closed.
const IDLE: Duration = Duration::from_secs(60);
/// A GET stream silent this long gets a keep-alive comment.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// A client that does not take our bytes for this long is dropped.
const WRITE_STALL: Duration = Duration::from_secs(30);

/// Serves `stream` until the client closes it, breaks the protocol, or stalls.
pub(super) fn serve(front: &Front, stream: TcpStream, max_body: usize) {
    let _ = stream.set_read_timeout(Some(IDLE));
    let _ = stream.set_write_timeout(Some(WRITE_STALL));
    let _ = stream.set_nodelay(true);
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut input = BufReader::new(read_half);
    let mut out = BufWriter::new(stream);
    loop {
        let request = match wire::read_request(&mut input, max_body) {
            Ok(request) => request,
            Err(ReadError::Closed) => return,
            Err(ReadError::Malformed(status, why)) => {
                let body = error_response(None, INVALID_REQUEST, &format!("Bad request: {why}"));
                let _ = write_json(&mut out, status, Vec::new(), &body, true);
                return;
            }
        };
        let close = request.close;
        let reply = front.route(&request);
        let usable = match reply {
            Reply::Answer {
                status,
                headers,
                body,
            } => wire::write_answer(
                &mut out,
                &Answer {
                    status,
                    headers,
                    body: &body,
                    close,
                },
            )
            .is_ok(),
            Reply::Wait {
                ticket,
                sse,
                stateless,
                headers,
            } => answer_forwarded(front, &mut out, &ticket, sse, stateless, headers, close),
            Reply::Listen { lines, headers } => stream_unrelated(&mut out, &lines, &headers),
        };
        if !usable || close {
            return;
        }
    }
}

fn write_json<W: Write>(
    out: &mut W,
    status: u16,
    mut headers: Vec<(&'static str, String)>,
    body: &[u8],
    close: bool,
) -> std::io::Result<()> {
    headers.push(("Content-Type", "application/json".into()));
    wire::write_answer(
        out,
        &Answer {
            status,
            headers,
            body,
            close,
        },
    )
}

/// Waits for the lines of `ticket` and writes them; false when the connection is unusable.
fn answer_forwarded<W: Write>(
    front: &Front,
    out: &mut W,
    ticket: &Ticket,
    sse: bool,
    stateless: bool,
    headers: Vec<(&'static str, String)>,
    close: bool,
) -> bool {
    let mut streaming = false;
    loop {
        let (response, lost) = match ticket.lines.recv_timeout(front.reply_wait) {
            Ok(Delivery::Notification(line)) => {
                if !sse {
                    // A JSON answer cannot carry it (the client did not accept SSE).
                    continue;
                }
                let sent = (streaming || wire::start_events(out, &headers).is_ok())
                    && wire::write_event(out, &line).is_ok();
                streaming = true;
                if !sent {
                    client_gone(front, ticket, stateless);
                    return false;
                }
                continue;
            }
            Ok(Delivery::Response(line)) => (line, false),
            Err(RecvTimeoutError::Timeout) => {
                front.hub.forget(ticket.id);
                let line = error_response(
                    Some(&ticket.client_id),
                    REQUEST_TIMEOUT,
                    "Request timed out: the device did not answer",
                );
                (line, true)
            }
            Err(RecvTimeoutError::Disconnected) => {
                let line = error_response(
                    Some(&ticket.client_id),
                    CONNECTION_CLOSED,
                    "the bridge stopped",
                );
                (line, true)
            }
        };
        if lost {
            front.log.warn(format_args!(
                "request {} got no answer from the router",
                ticket.id
            ));
        }
        return if streaming {
            wire::write_event(out, &response)
                .and_then(|()| wire::end_events(out))
                .is_ok()
        } else {
            let status = if stateless {
                stateless_status(&response)
            } else {
                200
            };
            write_json(out, status, headers, &response, close).is_ok()
        };
    }
}

/// A session's GET stream: each line as an event, a keep-alive comment after [`KEEP_ALIVE`]
/// of silence (which also finds a client that left), until the hub drops the sender (the
/// session ended, or a newer GET replaced this one); false when the connection is unusable.
fn stream_unrelated<W: Write>(
    out: &mut W,
    lines: &Receiver<Vec<u8>>,
    headers: &[(&'static str, String)],
) -> bool {
    if wire::start_events(out, headers).is_err() {
        return false;
    }
    loop {
        let sent = match lines.recv_timeout(KEEP_ALIVE) {
            Ok(line) => wire::write_event(out, &line),
            Err(RecvTimeoutError::Timeout) => wire::write_comment(out, "keep-alive"),
            Err(RecvTimeoutError::Disconnected) => return wire::end_events(out).is_ok(),
        };
        if sent.is_err() {
            return false;
        }
    }
}

/// The client went away mid-stream: a 2026-07-28 request is cancelled by that; a legacy one
/// goes on (its answer is dropped), as each revision says.
fn client_gone(front: &Front, ticket: &Ticket, stateless: bool) {
    if stateless {
        front.hub.cancel(ticket.id, "the client closed the stream");
    }
}
