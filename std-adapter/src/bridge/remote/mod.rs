//! A remote gateway as a hub device (`--device NAME=http://HOST:PORT/mcp`): another MCP
//! Streamable HTTP server, an `embedded-mcp bridge --http` or any other, reached over HTTP.
//!
//! To the router the link is a device like any other: it writes lines and reads lines. Here each
//! line becomes an HTTP POST, and each answer (a JSON body, or the events of a stream) lines
//! again; [`eras`] decides what goes in each POST (stateless 2026-07-28 requests where the far
//! side answers `server/discover`, one legacy session otherwise), [`client`] does the HTTP
//! (hyper, rustls for `https://`), [`sse`] frames event streams.
//!
//! Opening the link probes the far side (a transport error, a 401 or a 403 is an open that
//! failed: the router retries as it does for any device). The link is down, and the router
//! reconnects, when a request cannot be sent, a stream breaks mid-answer, the long-lived stream
//! of list changes (2026-07-28 `subscriptions/listen`, the legacy GET stream) ends, or a legacy
//! session is gone (404): the router then answers every request in flight with `-32000` and the
//! reason, re-lists the device when it is back, and the hub tells its hosts `list_changed`.

mod client;
mod eras;
mod param_headers;
mod reader;
mod sse;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::{Method, StatusCode};
use tokio::io::{AsyncReadExt, DuplexStream};
use tokio::sync::mpsc::{channel, Sender};
use tokio::task::{AbortHandle, JoinSet};

use crate::bridge::message::{self, method};
use crate::device::lines::{Frame, Framer};
use crate::device::{Closer, RemoteConfig, TokioLink};
use crate::log::Logger;
use client::{Body, Http};
use eras::{Era, Plan, Post, Session};
use param_headers::Marks;
use reader::{ChannelReader, Delivery};
use sse::SseItem;

/// How long opening a link (connecting and probing the far side) may take.
const OPEN_TIMEOUT: Duration = Duration::from_secs(10);
/// Lines queued for the router before the link waits for it.
const TO_ROUTER: usize = 256;
/// The router's bytes buffered before its writer waits.
const FROM_ROUTER: usize = 64 * 1024;

/// Opens a link to the gateway `remote`: probes its era and starts the tasks that carry the
/// router's lines to it. Lines and answers are each bounded by `max_line`.
pub(crate) async fn connect(
    remote: RemoteConfig,
    max_line: usize,
    log: Logger,
) -> Result<TokioLink, String> {
    let opening = async {
        let http = Http::new(&remote, max_line)?;
        let era = probe(&http).await?;
        Ok::<_, String>((http, era))
    };
    let (http, era) = tokio::time::timeout(OPEN_TIMEOUT, opening)
        .await
        .map_err(|_| format!("{remote}: no answer within {} s", OPEN_TIMEOUT.as_secs()))?
        .map_err(|e| format!("{remote}: {e}"))?;
    match &era {
        Era::Modern(_) => log.info(format_args!("{remote}: 2026-07-28 stateless requests")),
        Era::Legacy => log.info(format_args!("{remote}: a legacy session")),
    }
    let (to_router, lines) = channel::<Delivery>(TO_ROUTER);
    let (router_side, link_side) = tokio::io::duplex(FROM_ROUTER);
    let link = Arc::new(Shared {
        http,
        to_router,
        log,
        name: remote.to_string(),
        marks: Mutex::default(),
    });
    tokio::spawn(pump(link, era, link_side, max_line));
    Ok(TokioLink::Tokio {
        reader: Box::new(ChannelReader::new(lines)),
        writer: Box::new(router_side),
        closer: Closer::default(),
    })
}

/// Asks the far side for `server/discover`: its era, or why the link cannot open.
async fn probe(http: &Http) -> Result<Era, String> {
    let (status, _, body) = http.post(&eras::discover_post()).await?;
    match status {
        StatusCode::UNAUTHORIZED => return Err(refused(status, "the token is missing or wrong")),
        StatusCode::FORBIDDEN => {
            return Err(refused(status, "its Host or Origin check refused us"))
        }
        _ => {}
    }
    let answer = match body {
        Body::Json(line) if status.is_success() => Some(line),
        Body::Events(stream) if status.is_success() => {
            let mut events = http.events(stream);
            loop {
                match events.next().await {
                    Some(Ok(SseItem::Data(line))) => break Some(line),
                    Some(Ok(SseItem::Overlong(_))) => {}
                    Some(Err(e)) => return Err(e),
                    None => break None,
                }
            }
        }
        _ => None,
    };
    Ok(answer
        .as_deref()
        .and_then(eras::read_discovery)
        .map_or(Era::Legacy, Era::Modern))
}

fn refused(status: StatusCode, why: &str) -> String {
    format!("the gateway refused the link (HTTP {status}: {why})")
}

/// What the link's tasks share.
struct Shared {
    http: Http,
    to_router: Sender<Delivery>,
    log: Logger,
    /// `gateway URL`, for messages.
    name: String,
    /// The `Mcp-Param-*` marks of the tools listed so far.
    marks: Mutex<Marks>,
}

impl Shared {
    fn learn_marks(&self, answer: &[u8]) {
        let mut marks = self.marks.lock().unwrap_or_else(|p| p.into_inner());
        marks.learn(answer);
    }

    async fn deliver(&self, line: Vec<u8>) {
        // One line each: a JSON body may be pretty-printed (a newline outside a string is
        // whitespace; inside one it is not valid JSON).
        let line = line
            .into_iter()
            .map(|b| if b == b'\n' || b == b'\r' { b' ' } else { b })
            .collect();
        let _ = self.to_router.send(Ok(line)).await;
    }
}

/// What a task of the link ends with: the key of its request (for the cancel table), and the
/// reason the whole link is down, if it is.
type TaskEnd = (Option<String>, Result<(), String>);

/// Carries the router's lines to the gateway until the router closes the link or the link is
/// down.
async fn pump(link: Arc<Shared>, era: Era, mut from_router: DuplexStream, max_line: usize) {
    let mut framer = Framer::new(max_line);
    let mut tasks: JoinSet<TaskEnd> = JoinSet::new();
    let mut streams: HashMap<String, AbortHandle> = HashMap::new();
    let mut session = Session::default();
    let legacy = matches!(era, Era::Legacy);
    if !legacy {
        tasks.spawn(listen(link.clone()));
    }
    let down = 'run: loop {
        while let Some(frame) = framer.next_frame() {
            let line = match frame {
                Frame::Line(line) => line,
                Frame::Overlong { len } => {
                    link.log.warn(format_args!(
                        "a line of {len} bytes for the gateway, skipped"
                    ));
                    continue;
                }
                Frame::Eof => break 'run None,
            };
            let plan = match &era {
                Era::Modern(discovery) => {
                    let marks = link.marks.lock().unwrap_or_else(|p| p.into_inner());
                    eras::plan_modern(&line, discovery, &marks)
                }
                Era::Legacy => eras::plan_legacy(&line, &session),
            };
            match plan {
                Plan::Drop => {}
                Plan::Answer(answer) => link.deliver(answer).await,
                Plan::Cancel(key) => {
                    if let Some(stream) = streams.remove(&key) {
                        stream.abort();
                    }
                }
                Plan::Post(post) if legacy && !session.opened => {
                    // The session's opening: `initialize` before anything else, so every later
                    // POST carries the session it opens (a far side may open none).
                    let opening = is_method(&line, method::INITIALIZE);
                    if let Err(why) = legacy_opening(&link, post, &mut session).await {
                        break 'run Some(why);
                    }
                    session.opened |= opening;
                }
                Plan::Post(post) => {
                    let key = post.id.as_ref().map(|id| id.key.clone());
                    let handle = tasks.spawn(exchange(link.clone(), post, session.id.is_some()));
                    if let Some(key) = key {
                        streams.insert(key, handle);
                    }
                    if legacy && is_method(&line, method::INITIALIZED) {
                        tasks.spawn(session_stream(link.clone(), session.headers()));
                    }
                }
            }
        }
        tokio::select! {
            read = from_router.read(framer.space()) => match read {
                Ok(0) | Err(_) => framer.filled(0),
                Ok(n) => framer.filled(n),
            },
            Some(end) = tasks.join_next() => {
                let Ok((key, result)) = end else { continue };
                if let Some(key) = key {
                    streams.remove(&key);
                }
                if let Err(why) = result {
                    break 'run Some(why);
                }
            }
        }
    };
    tasks.abort_all();
    if let Some(why) = down {
        link.log.warn(format_args!("{}: {why}", link.name));
        let _ = link.to_router.send(Err(why)).await;
    }
    if session.id.is_some() {
        // Best effort: the session ends with the link (the far side evicts it otherwise).
        let headers = session.headers();
        let end = link.http.session(Method::DELETE, &headers);
        let _ = tokio::time::timeout(Duration::from_secs(1), end).await;
    }
}

fn is_method(line: &[u8], name: &str) -> bool {
    matches!(
        message::parse(line).map(|m| m.class),
        Some(message::Class::Request { method, .. } | message::Class::Notification { method })
            if method == name
    )
}

/// A POST before the legacy session exists (the router's `initialize`), awaited so the session
/// it opens is known to every later POST.
async fn legacy_opening(link: &Shared, post: Post, session: &mut Session) -> Result<(), String> {
    let (status, headers, body) = link.http.post(&post).await?;
    if let Some(id) = headers
        .get(eras::SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
    {
        session.id = Some(id.to_owned());
    }
    answer_lines(link, &post, status, body, false, Some(session)).await
}

/// One POST and its answer's lines to the router.
async fn exchange(link: Arc<Shared>, post: Post, in_session: bool) -> TaskEnd {
    let key = post.id.as_ref().map(|id| id.key.clone());
    let result = match link.http.post(&post).await {
        Ok((status, _, body)) => answer_lines(&link, &post, status, body, in_session, None).await,
        Err(why) => Err(why),
    };
    (key, result)
}

/// Hands the router the lines of an answer as they come (a stream's progress and logs before
/// its response); a request left without a response gets an error. `Err` when the link is down.
/// `session`, when given, learns the revision an `initialize` answer agreed to.
async fn answer_lines(
    link: &Shared,
    post: &Post,
    status: StatusCode,
    body: Body,
    in_session: bool,
    mut session: Option<&mut Session>,
) -> Result<(), String> {
    let key = post.id.as_ref().map(|id| id.key.as_str());
    let is_answer = |line: &[u8]| key.is_some_and(|k| eras::is_answer_to(line, k));
    if status == StatusCode::UNAUTHORIZED {
        return Err(refused(status, "the token is missing or wrong"));
    }
    if status == StatusCode::NOT_FOUND && in_session {
        return Err("the gateway ended the session (HTTP 404)".into());
    }
    let mut answered = false;
    let mut streamed = false;
    if !status.is_success() {
        // Its JSON-RPC error for this request as it is, else one saying what came.
        if let Body::Json(line) = body {
            if is_answer(&line) {
                link.deliver(line).await;
                return Ok(());
            }
        }
    } else {
        let mut events = match body {
            Body::Empty => None,
            Body::TooLong => {
                if let Some(id) = &post.id {
                    let why = format!(
                        "the gateway's answer is longer than the line limit ({} bytes)",
                        link.http.max()
                    );
                    let line =
                        message::error_response(Some(&id.raw), message::INTERNAL_ERROR, &why);
                    link.deliver(line).await;
                }
                return Ok(());
            }
            Body::Json(line) => {
                answered = is_answer(&line);
                if answered && post.lists_tools {
                    link.learn_marks(&line);
                }
                if let Some(session) = session.as_deref_mut() {
                    session.version = eras::agreed_version(&line);
                }
                link.deliver(if answered && post.to_legacy {
                    eras::legacy_answer(&line)
                } else {
                    line
                })
                .await;
                None
            }
            Body::Events(stream) => {
                streamed = true;
                Some(link.http.events(stream))
            }
        };
        while let Some(item) = match events.as_mut() {
            Some(events) => events.next().await,
            None => None,
        } {
            match item? {
                SseItem::Data(line) => {
                    let is = is_answer(&line);
                    answered |= is;
                    if is && post.lists_tools {
                        link.learn_marks(&line);
                    }
                    if let (true, Some(session)) = (is, session.as_deref_mut()) {
                        session.version = eras::agreed_version(&line);
                    }
                    link.deliver(if is && post.to_legacy {
                        eras::legacy_answer(&line)
                    } else {
                        line
                    })
                    .await;
                }
                SseItem::Overlong(len) => link.log.warn(format_args!(
                    "{}: an event of {len} bytes, over the line limit, skipped",
                    link.name
                )),
            }
        }
    }
    if let (false, Some(id)) = (answered, &post.id) {
        let (code, why) = if streamed {
            let why = "the gateway's stream ended before the response (the gateway went away, \
                       or dropped the request)";
            (message::CONNECTION_CLOSED, why.to_owned())
        } else if status.is_success() {
            let why = format!("the gateway answered HTTP {status} without a response");
            (message::INTERNAL_ERROR, why)
        } else {
            (
                message::INTERNAL_ERROR,
                format!("the gateway answered HTTP {status}"),
            )
        };
        link.deliver(message::error_response(Some(&id.raw), code, &why))
            .await;
    }
    Ok(())
}

/// The 2026-07-28 listen stream: the far side's list changes, as the router's
/// `notifications/tools/list_changed`. A far side without listen streams leaves the link up;
/// one whose stream ends is gone.
async fn listen(link: Arc<Shared>) -> TaskEnd {
    let result = async {
        let (status, _, body) = link.http.post(&eras::listen_post()).await?;
        let Body::Events(stream) = body else {
            link.log.info(format_args!(
                "{}: no listen stream (HTTP {status}): list changes are not followed",
                link.name
            ));
            return Ok(());
        };
        let mut events = link.http.events(stream);
        while let Some(item) = events.next().await {
            if let SseItem::Data(line) = item? {
                if let Some(changed) = eras::listen_event(&line) {
                    link.deliver(changed).await;
                }
            }
        }
        Err("the gateway's listen stream ended".to_owned())
    }
    .await;
    (None, result)
}

/// A legacy session's GET stream: messages tied to no request (list changes, logs), as they
/// are. A far side without one (405) leaves the link up; one whose stream ends is gone.
async fn session_stream(link: Arc<Shared>, headers: Vec<(&'static str, String)>) -> TaskEnd {
    let result = async {
        let (status, _, body) = link.http.session(Method::GET, &headers).await?;
        let Body::Events(stream) = body else {
            if status == StatusCode::NOT_FOUND {
                return Err("the gateway ended the session (HTTP 404)".to_owned());
            }
            link.log.info(format_args!(
                "{}: no session stream (HTTP {status}): list changes are not followed",
                link.name
            ));
            return Ok(());
        };
        let mut events = link.http.events(stream);
        while let Some(item) = events.next().await {
            if let SseItem::Data(line) = item? {
                link.deliver(line).await;
            }
        }
        Err("the gateway's session stream ended".to_owned())
    }
    .await;
    (None, result)
}
