//! The request path: a frame or line in, the method it names dispatched, one response line
//! (or nothing) out.

use crate::json::{self, DecodeErrorKind, JsonStr, Limits, Sink};
use crate::protocol::{
    write_result_start, write_unsupported_version, Envelope, ErrorCode, Invalid, Message,
    MetaError, RequestId, Version,
};
use crate::transport::{Frame, IdTracker};

use super::reply::{error_line, recovered_id, reply};
use super::{Handler, Server, MAX_ID_LEN};

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
}

impl Method {
    fn of(name: JsonStr<'_>) -> Option<Self> {
        const TABLE: [(&str, Method); 5] = [
            ("tools/call", Method::ToolsCall),
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
        match frame {
            Frame::Line(line) => self.handle_text(line, out),
            Frame::InvalidUtf8(_) => {
                self.stats.invalid_utf8 = self.stats.invalid_utf8.wrapping_add(1);
                None
            }
            Frame::Overlong(overlong) => {
                self.stats.overlong = self.stats.overlong.wrapping_add(1);
                let id_text = overlong.id?;
                let id = recovered_id(id_text.as_str())?;
                error_line(
                    out,
                    Some(id),
                    ErrorCode::InvalidRequest,
                    "Invalid request: the message is longer than the device's input buffer",
                )
            }
        }
    }

    /// Handles one request line (without its LF). Returns the length of the response line
    /// written at the start of `out` (LF included), or `None` when nothing is to be sent
    /// (notifications, responses, dropped lines).
    pub fn handle_line(&mut self, line: &[u8], out: &mut [u8]) -> Option<usize> {
        match json::check_utf8(line) {
            Ok(text) => self.handle_text(text, out),
            Err(_) => {
                self.stats.unparsable = self.stats.unparsable.wrapping_add(1);
                None
            }
        }
    }

    /// [`Server::handle_line`] of a line known to be UTF-8.
    fn handle_text(&mut self, line: &str, out: &mut [u8]) -> Option<usize> {
        let limits = Limits {
            max_depth: self.config.max_depth,
        };
        // One pass checks the line and finds the members read below.
        let envelope = match Envelope::parse_str(line, limits) {
            Ok(envelope) => envelope,
            Err(e) if e.kind == DecodeErrorKind::TooDeep => {
                self.stats.too_deep = self.stats.too_deep.wrapping_add(1);
                let mut tracker = IdTracker::new();
                tracker.feed(line.as_bytes());
                let id_text = tracker.id()?;
                let id = recovered_id(id_text.as_str())?;
                return error_line(
                    out,
                    Some(id),
                    ErrorCode::InvalidRequest,
                    "Invalid request: the message is nested deeper than the device accepts",
                );
            }
            Err(_) => {
                self.stats.unparsable = self.stats.unparsable.wrapping_add(1);
                return None;
            }
        };
        match envelope.classify() {
            Err(invalid) => self.invalid(invalid, out),
            Ok(Message::Response) => None,
            Ok(Message::Notification { method, .. }) => {
                self.stats.notifications = self.stats.notifications.wrapping_add(1);
                // `notifications/initialized`, `notifications/cancelled` and any other
                // notification need no action: requests run to completion one at a time.
                let _ = method;
                None
            }
            Ok(Message::Request { id, method, .. }) => {
                self.stats.requests = self.stats.requests.wrapping_add(1);
                if id.raw().len() > MAX_ID_LEN {
                    return error_line(
                        out,
                        None,
                        ErrorCode::InvalidRequest,
                        "Invalid request: the id is longer than the device accepts",
                    );
                }
                self.request(id, method, &envelope, out)
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

    fn request(
        &mut self,
        id: RequestId<'_>,
        method: JsonStr<'_>,
        envelope: &Envelope<'_>,
        out: &mut [u8],
    ) -> Option<usize> {
        let Some(method) = Method::of(method) else {
            return error_line(out, Some(id), ErrorCode::MethodNotFound, "Method not found");
        };
        // The methods read `params`' members from the envelope: found while the line was
        // checked.
        if method == Method::Initialize {
            return self.initialize(id, envelope, out);
        }
        let declared = match envelope.declared_version() {
            Ok(declared) => declared,
            Err(MetaError::Unsupported(requested)) => {
                return reply(out, Some(id), |s| {
                    write_unsupported_version(s, Some(id), requested)
                })
            }
            Err(e) => return error_line(out, Some(id), ErrorCode::InvalidParams, e.message()),
        };
        match method {
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
            Method::ToolsList | Method::ToolsCall => {
                let Some(version) = declared.or(self.session) else {
                    return error_line(out, Some(id), ErrorCode::InvalidParams, MISSING_META);
                };
                if method == Method::ToolsList {
                    self.tools_list(id, envelope, version, out)
                } else {
                    self.tools_call(id, envelope, version, out)
                }
            }
            Method::Initialize => None,
        }
    }
}
