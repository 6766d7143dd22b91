//! The request path: a frame or line in, the method it names dispatched, one response line
//! (or nothing) out.

use crate::json::{self, DecodeErrorKind, JsonStr, Limits, Sink};
use crate::protocol::{
    write_result_start, write_unsupported_version, Envelope, ErrorCode, Invalid, LogLevel, Message,
    MetaError, RequestId, Version,
};
use crate::transport::{Frame, IdTracker};

use super::call::Prepared;
use super::reply::{error_line, fallback, recovered_id, reply};
use super::{Handler, Server, MAX_ID_LEN};

/// What a line needs: a response already written (or nothing), or a tool call to run.
#[derive(Debug)]
pub(super) enum Step<'l> {
    /// The length of the response line at the start of the output buffer, if any.
    Reply(Option<usize>),
    /// A `tools/call` whose handler is to run (the response head is written).
    Call(Prepared<'l>),
}

impl From<Option<usize>> for Step<'_> {
    fn from(n: Option<usize>) -> Self {
        Self::Reply(n)
    }
}

/// The -32602 message of a 2026-07-28 request naming an unknown log level.
const BAD_META_LEVEL: &str = "Invalid params: _meta[\"io.modelcontextprotocol/logLevel\"] must be one of debug, info, notice, warning, error, critical, alert, emergency";

/// The -32602 message of a request that neither declares a version nor follows `initialize`.
const MISSING_META: &str = "Invalid params: _meta[\"io.modelcontextprotocol/protocolVersion\"] and [\"io.modelcontextprotocol/clientCapabilities\"] are required (or send initialize first)";

/// The methods the engine knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Initialize,
    Ping,
    Discover,
    ToolsList,
    ToolsCall,
    SetLevel,
}

impl Method {
    fn of(name: JsonStr<'_>) -> Option<Self> {
        const TABLE: [(&str, Method); 6] = [
            ("tools/call", Method::ToolsCall),
            ("logging/setLevel", Method::SetLevel),
            ("tools/list", Method::ToolsList),
            ("initialize", Method::Initialize),
            ("ping", Method::Ping),
            ("server/discover", Method::Discover),
        ];
        TABLE.iter().find(|(n, _)| name.eq_str(n)).map(|&(_, m)| m)
    }
}

impl<H: Handler, const TOOLS: usize> Server<'_, H, TOOLS> {
    /// Handles one frame from the transport; see [`Server::handle_line`].
    pub fn handle_frame(&mut self, frame: Frame<'_>, out: &mut [u8]) -> Option<usize> {
        let step = self.frame_step(frame, out);
        self.run_sync(step, out)
    }

    /// Handles one request line (without its LF). Returns the length of the response line
    /// written at the start of `out` (LF included), or `None` when nothing is to be sent
    /// (notifications, responses, dropped lines).
    pub fn handle_line(&mut self, line: &[u8], out: &mut [u8]) -> Option<usize> {
        let step = match json::check_utf8(line) {
            Ok(text) => self.text_step(text, out),
            Err(_) => {
                self.stats.unparsable = self.stats.unparsable.wrapping_add(1);
                Step::Reply(None)
            }
        };
        self.run_sync(step, out)
    }

    /// Runs a step's call, if any, with the sync handler.
    fn run_sync(&mut self, step: Step<'_>, out: &mut [u8]) -> Option<usize> {
        match step {
            Step::Reply(n) => n,
            Step::Call(prepared) => {
                let Some(output) = prepared.output(out) else {
                    return fallback(out, Some(prepared.id));
                };
                let done = self.handler.call(&prepared.call, output);
                self.finish(&prepared, done, out)
            }
        }
    }
}

impl<'a, H, const TOOLS: usize> Server<'a, H, TOOLS> {
    /// What one frame from the transport needs.
    pub(super) fn frame_step<'l>(&mut self, frame: Frame<'l>, out: &mut [u8]) -> Step<'l>
    where
        'a: 'l,
    {
        match frame {
            Frame::Line(line) => self.text_step(line, out),
            Frame::InvalidUtf8(_) => {
                self.stats.invalid_utf8 = self.stats.invalid_utf8.wrapping_add(1);
                Step::Reply(None)
            }
            Frame::Overlong(overlong) => {
                self.stats.overlong = self.stats.overlong.wrapping_add(1);
                let Some(id_text) = overlong.id else {
                    return Step::Reply(None);
                };
                let id = recovered_id(id_text);
                error_line(
                    out,
                    Some(id),
                    ErrorCode::InvalidRequest,
                    "Invalid request: the message is longer than the device's input buffer",
                )
                .into()
            }
        }
    }

    /// What a line known to be UTF-8 needs.
    fn text_step<'l>(&mut self, line: &'l str, out: &mut [u8]) -> Step<'l>
    where
        'a: 'l,
    {
        let limits = Limits {
            max_depth: self.config.max_depth,
        };
        // One pass checks the line and finds the members read below (read in place, where
        // the parse put them: the envelope is not copied out of the result).
        let parsed = Envelope::parse_str(line, limits);
        let envelope = match &parsed {
            Ok(envelope) => envelope,
            Err(e) if e.kind == DecodeErrorKind::TooDeep => {
                self.stats.too_deep = self.stats.too_deep.wrapping_add(1);
                let mut tracker = IdTracker::new();
                tracker.feed(line.as_bytes());
                let Some(id_text) = tracker.id() else {
                    return Step::Reply(None);
                };
                let id = recovered_id(id_text);
                return error_line(
                    out,
                    Some(id),
                    ErrorCode::InvalidRequest,
                    "Invalid request: the message is nested deeper than the device accepts",
                )
                .into();
            }
            Err(_) => {
                self.stats.unparsable = self.stats.unparsable.wrapping_add(1);
                return Step::Reply(None);
            }
        };
        match envelope.classify() {
            Err(invalid) => self.invalid(invalid, out).into(),
            Ok(Message::Response) => Step::Reply(None),
            Ok(Message::Notification { .. }) => {
                self.stats.notifications = self.stats.notifications.wrapping_add(1);
                // `notifications/initialized` and any other notification need no action; a
                // `notifications/cancelled` matters only while its call runs (the async serve
                // loop looks ahead for it) and is ignored here, as a late cancel must be.
                Step::Reply(None)
            }
            Ok(Message::Request { id, method, .. }) => {
                self.stats.requests = self.stats.requests.wrapping_add(1);
                if id.raw().len() > MAX_ID_LEN {
                    return error_line(
                        out,
                        None,
                        ErrorCode::InvalidRequest,
                        "Invalid request: the id is longer than the device accepts",
                    )
                    .into();
                }
                self.request(id, method, envelope, out)
            }
        }
    }

    fn invalid(&mut self, invalid: Invalid<'_>, out: &mut [u8]) -> Option<usize> {
        self.stats.invalid = self.stats.invalid.wrapping_add(1);
        if invalid.notification {
            return None;
        }
        let id = invalid.id.filter(|id| id.raw().len() <= MAX_ID_LEN);
        error_line(out, id, ErrorCode::InvalidRequest, invalid.reason.message())
    }

    fn request<'l>(
        &mut self,
        id: RequestId<'l>,
        method: JsonStr<'_>,
        envelope: &Envelope<'l>,
        out: &mut [u8],
    ) -> Step<'l>
    where
        'a: 'l,
    {
        let Some(method) = Method::of(method) else {
            return error_line(out, Some(id), ErrorCode::MethodNotFound, "Method not found").into();
        };
        // The methods read `params`' members from the envelope: found while the line was
        // checked.
        if method == Method::Initialize {
            return self.initialize(id, envelope, out).into();
        }
        let declared = match envelope.declared_version() {
            Ok(declared) => declared,
            Err(MetaError::Unsupported(requested)) => {
                return reply(out, Some(id), |s| {
                    write_unsupported_version(s, Some(id), requested)
                })
                .into()
            }
            Err(e) => {
                return error_line(out, Some(id), ErrorCode::InvalidParams, e.message()).into()
            }
        };
        // 2026-07-28: the log level this request asks for (absent: no log messages).
        let meta_level = match envelope.meta_log_level {
            Some(_) if declared.is_none_or(Version::is_legacy) => None,
            None => None,
            Some(level) => match level.as_str().and_then(LogLevel::from_json) {
                Some(level) => Some(level),
                None => {
                    return error_line(out, Some(id), ErrorCode::InvalidParams, BAD_META_LEVEL)
                        .into()
                }
            },
        };
        let step = match method {
            Method::Ping => match declared {
                Some(Version::V2026_07_28) => error_line(
                    out,
                    Some(id),
                    ErrorCode::MethodNotFound,
                    "Method not found: ping does not exist in 2026-07-28",
                ),
                _ => reply(out, Some(id), |s| {
                    write_result_start(s, id)?;
                    s.put(b"{}}")
                }),
            },
            Method::Discover => match declared {
                Some(v) if !v.is_legacy() => self.discover(id, out),
                Some(_) => error_line(
                    out,
                    Some(id),
                    ErrorCode::MethodNotFound,
                    "Method not found: server/discover exists from 2026-07-28",
                ),
                None => error_line(out, Some(id), ErrorCode::InvalidParams, MISSING_META),
            },
            Method::SetLevel => match declared.or(self.session) {
                Some(v) if v.is_legacy() => self.set_level(id, envelope, out),
                Some(_) => error_line(
                    out,
                    Some(id),
                    ErrorCode::MethodNotFound,
                    "Method not found: logging/setLevel does not exist in 2026-07-28 (use _meta[\"io.modelcontextprotocol/logLevel\"])",
                ),
                None => error_line(out, Some(id), ErrorCode::InvalidParams, MISSING_META),
            },
            Method::ToolsList | Method::ToolsCall => {
                let Some(version) = declared.or(self.session) else {
                    return error_line(out, Some(id), ErrorCode::InvalidParams, MISSING_META)
                        .into();
                };
                if method == Method::ToolsList {
                    self.tools_list(id, envelope, version, out)
                } else {
                    let level = if version.is_legacy() {
                        self.log_level
                    } else {
                        meta_level
                    };
                    return match self.prepare(id, envelope, version, level, out) {
                        Ok(prepared) => Step::Call(prepared),
                        Err(n) => Step::Reply(n),
                    };
                }
            }
            Method::Initialize => None,
        };
        step.into()
    }

    /// Answers the legacy `logging/setLevel`: the stream's log level from now on.
    fn set_level(
        &mut self,
        id: RequestId<'_>,
        envelope: &Envelope<'_>,
        out: &mut [u8],
    ) -> Option<usize> {
        let Some(level) = envelope
            .level
            .and_then(|l| l.as_str())
            .and_then(LogLevel::from_json)
        else {
            return error_line(
                out,
                Some(id),
                ErrorCode::InvalidParams,
                "Invalid params: \"level\" must be one of debug, info, notice, warning, error, critical, alert, emergency",
            );
        };
        self.log_level = Some(level);
        reply(out, Some(id), |s| {
            write_result_start(s, id)?;
            s.put(b"{}}")
        })
    }
}
