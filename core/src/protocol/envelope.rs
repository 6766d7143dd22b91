//! One pass over an incoming line: the JSON is checked and, in the same walk, the members the
//! engine reads are found (instead of walking the checked text again for each level).

use crate::json::{check_utf8, DecodeError, JsonStr, Limits, Observer, Scanner, Value};

use super::message::{Invalid, InvalidReason, Message};
use super::meta::{
    declared_from, MetaError, CLIENT_CAPABILITIES_KEY, LEAN_KEY, LOG_LEVEL_KEY, PROGRESS_TOKEN_KEY,
    PROTOCOL_VERSION_KEY,
};
use super::Version;

/// The members of one message that the engine reads, found while the line was checked. For
/// each name the first occurrence wins, as in [`Value::get`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Envelope<'a> {
    /// The whole message.
    pub message: Value<'a>,
    /// `jsonrpc`.
    pub jsonrpc: Option<Value<'a>>,
    /// `id`.
    pub id: Option<Value<'a>>,
    /// `method`.
    pub method: Option<Value<'a>>,
    /// `params`.
    pub params: Option<Value<'a>>,
    /// The message has a `result` or an `error` member (it is a response).
    pub reply: bool,
    /// `params._meta`.
    pub meta: Option<Value<'a>>,
    /// `params.name`.
    pub name: Option<Value<'a>>,
    /// `params.arguments`.
    pub arguments: Option<Value<'a>>,
    /// `params.cursor`.
    pub cursor: Option<Value<'a>>,
    /// `params.protocolVersion` (the legacy `initialize`).
    pub protocol_version: Option<Value<'a>>,
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]`.
    pub meta_version: Option<Value<'a>>,
    /// `params._meta["io.modelcontextprotocol/clientCapabilities"]`.
    pub meta_capabilities: Option<Value<'a>>,
    /// `params._meta.progressToken`.
    pub progress_token: Option<Value<'a>>,
    /// `params._meta["io.modelcontextprotocol/logLevel"]`.
    pub meta_log_level: Option<Value<'a>>,
    /// `params._meta["embedded-mcp/lean"]` (a request of a bridge's lean hop).
    pub meta_lean: Option<Value<'a>>,
    /// `params.requestId` (`notifications/cancelled`).
    pub request_id: Option<Value<'a>>,
    /// `params.level` (`logging/setLevel`).
    pub level: Option<Value<'a>>,
}

impl<'a> Envelope<'a> {
    /// Checks `line` as one JSON document (as [`Value::parse_with`] does, with the same errors)
    /// and finds its members in the same pass.
    pub fn parse(line: &'a [u8], limits: Limits) -> Result<Self, DecodeError> {
        Self::parse_str(check_utf8(line)?, limits)
    }

    /// [`Envelope::parse`] of a line already known to be UTF-8 (for example a
    /// [`Frame::Line`](crate::transport::Frame::Line)).
    pub fn parse_str(text: &'a str, limits: Limits) -> Result<Self, DecodeError> {
        let mut finder = Finder {
            text,
            envelope: Envelope {
                message: Value::from_checked(""),
                jsonrpc: None,
                id: None,
                method: None,
                params: None,
                reply: false,
                meta: None,
                name: None,
                arguments: None,
                cursor: None,
                protocol_version: None,
                meta_version: None,
                meta_capabilities: None,
                progress_token: None,
                meta_log_level: None,
                meta_lean: None,
                request_id: None,
                level: None,
            },
            current: [OTHER; 3],
        };
        let (start, end) = Scanner::new(text).document_observed(limits, &mut finder)?;
        let mut envelope = finder.envelope;
        envelope.message = Value::from_checked(text.get(start..end).unwrap_or_default());
        Ok(envelope)
    }

    /// The member of slot `slot` (see the slot constants).
    fn slot_mut(&mut self, slot: u8) -> Option<&mut Option<Value<'a>>> {
        Some(match usize::from(slot) {
            JSONRPC => &mut self.jsonrpc,
            ID => &mut self.id,
            METHOD => &mut self.method,
            PARAMS => &mut self.params,
            META => &mut self.meta,
            NAME => &mut self.name,
            ARGUMENTS => &mut self.arguments,
            CURSOR => &mut self.cursor,
            PROTOCOL_VERSION => &mut self.protocol_version,
            META_VERSION => &mut self.meta_version,
            META_CAPABILITIES => &mut self.meta_capabilities,
            PROGRESS_TOKEN => &mut self.progress_token,
            META_LOG_LEVEL => &mut self.meta_log_level,
            META_LEAN => &mut self.meta_lean,
            REQUEST_ID => &mut self.request_id,
            LEVEL => &mut self.level,
            _ => return None,
        })
    }

    /// The message's kind, as [`Message::classify`] of [`Envelope::message`] gives it.
    pub fn classify(&self) -> Result<Message<'a>, Invalid<'a>> {
        if self.message.kind() != crate::json::Kind::Object {
            // What `Message::classify` says of a value that is not an object (without linking
            // its member walk: the envelope has found the members already).
            return Err(Invalid {
                reason: InvalidReason::NotAnObject,
                id: None,
                notification: false,
            });
        }
        Message::from_members(self.jsonrpc, self.id, self.method, self.params, self.reply)
    }

    /// The protocol version the request declares in `params._meta`, as
    /// [`declared_version`](super::declared_version) of [`Envelope::meta`] gives it (`params`
    /// members are read only when `params` is an object).
    ///
    /// A request of the lean hop ([`Envelope::lean`]) may leave out an empty
    /// `clientCapabilities`: a bridge sends only the capabilities the request needs.
    pub fn declared_version(&self) -> Result<Option<Version>, MetaError<'a>> {
        let none = || self.lean().then(|| Value::from_checked("{}"));
        declared_from(self.meta_version, self.meta_capabilities.or_else(none))
    }

    /// The request comes over a bridge's lean hop (`_meta["embedded-mcp/lean"]` is `true`, see
    /// [`LEAN_KEY`]): a structured `tools/call` result goes without its text twin, and an empty
    /// `clientCapabilities` may be left out.
    pub fn lean(&self) -> bool {
        self.meta_lean.is_some_and(|v| v.as_bool() == Some(true))
    }
}

/// Checks `bytes` as one JSON document, exactly as [`Value::parse_with`] does (the same value,
/// the same errors), through the envelope's scanner: the engine's other parses (schemas at
/// start-up, a result's `structuredContent`, a recovered id) share the one copy of the JSON
/// checker that reads every request, instead of linking a second one (about 1 KB of flash).
pub(crate) fn parse_value(bytes: &[u8], limits: Limits) -> Result<Value<'_>, DecodeError> {
    Envelope::parse(bytes, limits).map(|envelope| envelope.message)
}

// Slots of the members found (`Envelope::slot_mut` maps each to its member; `OTHER` and
// `REPLY`, above them, to none).
const JSONRPC: usize = 0;
const ID: usize = 1;
const METHOD: usize = 2;
const PARAMS: usize = 3;
const META: usize = 4;
const NAME: usize = 5;
const ARGUMENTS: usize = 6;
const CURSOR: usize = 7;
const PROTOCOL_VERSION: usize = 8;
const META_VERSION: usize = 9;
const META_CAPABILITIES: usize = 10;
const PROGRESS_TOKEN: usize = 11;
const META_LOG_LEVEL: usize = 12;
const REQUEST_ID: usize = 13;
const LEVEL: usize = 14;
const META_LEAN: usize = 15;

/// A key that is not looked for, or whose first occurrence was already found.
const OTHER: u8 = u8::MAX;
/// A `result` or `error` key at the top level.
const REPLY: u8 = u8::MAX - 1;

/// The keys looked for, level by level (1: the message, 2: `params`, 3: `params._meta`; see
/// [`keys_at`]), with their slots. Tables scanned in order rather than a `match`: the `match`
/// compiled to a chain of comparisons about three times the size (flash first; a request has
/// few keys, and each level's table is short).
const KEYS: [(&str, u8); 18] = [
    ("jsonrpc", JSONRPC as u8),
    ("id", ID as u8),
    ("method", METHOD as u8),
    ("params", PARAMS as u8),
    ("result", REPLY),
    ("error", REPLY),
    ("_meta", META as u8),
    ("name", NAME as u8),
    ("arguments", ARGUMENTS as u8),
    ("cursor", CURSOR as u8),
    ("protocolVersion", PROTOCOL_VERSION as u8),
    ("requestId", REQUEST_ID as u8),
    ("level", LEVEL as u8),
    (PROTOCOL_VERSION_KEY, META_VERSION as u8),
    (CLIENT_CAPABILITIES_KEY, META_CAPABILITIES as u8),
    (PROGRESS_TOKEN_KEY, PROGRESS_TOKEN as u8),
    (LOG_LEVEL_KEY, META_LOG_LEVEL as u8),
    (LEAN_KEY, META_LEAN as u8),
];

/// The part of [`KEYS`] looked for at `level`.
fn keys_at(level: u32) -> &'static [(&'static str, u8)] {
    let range = match level {
        1 => 0..6,
        2 => 6..13,
        3 => 13..18,
        _ => 0..0,
    };
    KEYS.get(range).unwrap_or_default()
}

/// The slot of an unescaped key at `level`.
fn slot_of(level: u32, key: &[u8]) -> u8 {
    keys_at(level)
        .iter()
        .find(|&&(name, _)| name.as_bytes() == key)
        .map_or(OTHER, |&(_, slot)| slot)
}

/// [`slot_of`] for a key with escapes (rare): decoded and compared name by name.
fn slot_of_escaped(level: u32, key: &[u8]) -> u8 {
    let Ok(body) = core::str::from_utf8(key) else {
        return OTHER;
    };
    let key = JsonStr::from_checked(body);
    keys_at(level)
        .iter()
        .find(|&&(name, _)| key.eq_str(name))
        .map_or(OTHER, |&(_, slot)| slot)
}

/// The observer that records the members found, straight into the envelope.
struct Finder<'a> {
    /// The line: the values are spans of it.
    text: &'a str,
    envelope: Envelope<'a>,
    /// Per level 1..=3: the slot of the member whose value is being checked, or `OTHER`.
    current: [u8; 3],
}

impl Finder<'_> {
    /// The slot a key names at `level`, or [`OTHER`].
    fn slot(&mut self, level: u32, body: &[u8], escaped: bool) -> u8 {
        // Level 2 only inside the first `params`, level 3 only inside its first `_meta`.
        let inside = |depth: usize, slot: usize| self.current.get(depth) == Some(&(slot as u8));
        let open = match level {
            1 => true,
            2 => inside(0, PARAMS),
            3 => inside(0, PARAMS) && inside(1, META),
            _ => false,
        };
        if !open {
            return OTHER;
        }
        let slot = if escaped {
            slot_of_escaped(level, body)
        } else {
            slot_of(level, body)
        };
        let taken = self
            .envelope
            .slot_mut(slot)
            .is_some_and(|value| value.is_some());
        if taken {
            OTHER
        } else {
            slot
        }
    }
}

impl Observer for Finder<'_> {
    const LEVELS: u32 = 3;

    fn key(&mut self, level: u32, body: &[u8], escaped: bool) {
        let slot = self.slot(level, body, escaped);
        if slot == REPLY {
            self.envelope.reply = true;
        }
        if let Some(current) = self.current.get_mut(level.wrapping_sub(1) as usize) {
            *current = slot;
        }
    }

    fn value(&mut self, level: u32, start: usize, end: usize) {
        let Some(current) = self.current.get_mut(level.wrapping_sub(1) as usize) else {
            return;
        };
        // An array element has no key: `current` was reset after the member before it.
        let slot = core::mem::replace(current, OTHER);
        let text = self.text;
        if let Some(value) = self.envelope.slot_mut(slot) {
            if value.is_none() {
                *value = text.get(start..end).map(Value::from_checked);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_tables_per_level() {
        assert_eq!(slot_of(1, b"jsonrpc"), JSONRPC as u8);
        assert_eq!(slot_of(1, b"error"), REPLY);
        assert_eq!(slot_of(1, b"_meta"), OTHER);
        assert_eq!(slot_of(2, b"_meta"), META as u8);
        assert_eq!(slot_of(2, b"level"), LEVEL as u8);
        assert_eq!(slot_of(2, b"jsonrpc"), OTHER);
        assert_eq!(slot_of(3, LOG_LEVEL_KEY.as_bytes()), META_LOG_LEVEL as u8);
        assert_eq!(slot_of(3, b"level"), OTHER);
        assert_eq!(slot_of(4, b"id"), OTHER);
        assert_eq!(slot_of_escaped(2, br"\u006cevel"), LEVEL as u8);
        assert_eq!(slot_of_escaped(1, br"\u006cevel"), OTHER);
    }
    use crate::json::DecodeErrorKind;

    fn parse(text: &str) -> Envelope<'_> {
        Envelope::parse(text.as_bytes(), Limits::default()).unwrap()
    }

    fn raw(v: Option<Value<'_>>) -> Option<&str> {
        v.map(|v| v.raw())
    }

    #[test]
    fn a_lean_hop_request_may_leave_out_empty_capabilities() {
        let lean = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","embedded-mcp/lean":true}}}"#;
        let e = parse(lean);
        assert!(e.lean());
        assert_eq!(e.declared_version(), Ok(Some(Version::V2026_07_28)));
        for other in [
            lean.replace("true", "false"),
            lean.replace(r#","embedded-mcp/lean":true"#, ""),
        ] {
            let e = parse(&other);
            assert!(!e.lean());
            assert_eq!(e.declared_version(), Err(MetaError::MissingCapabilities));
        }
    }

    #[test]
    fn finds_the_members_of_a_2026_request() {
        let e = parse(
            r#" {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"t","arguments":{"a":[1,{"b":2}]}}} "#,
        );
        assert_eq!(raw(Some(e.message)).unwrap().len(), e.message.raw().len());
        assert_eq!(raw(e.jsonrpc), Some(r#""2.0""#));
        assert_eq!(raw(e.id), Some("7"));
        assert_eq!(raw(e.method), Some(r#""tools/call""#));
        assert!(raw(e.params).unwrap().starts_with(r#"{"_meta""#));
        assert!(raw(e.params).unwrap().ends_with(r#"{"b":2}]}}"#));
        assert_eq!(raw(e.name), Some(r#""t""#));
        assert_eq!(raw(e.arguments), Some(r#"{"a":[1,{"b":2}]}"#));
        assert_eq!(raw(e.meta_version), Some(r#""2026-07-28""#));
        assert_eq!(raw(e.meta_capabilities), Some("{}"));
        assert_eq!(e.declared_version(), Ok(Some(Version::V2026_07_28)));
        assert!(!e.reply);
        assert!(matches!(e.classify(), Ok(Message::Request { .. })));
    }

    /// Whatever the message, the envelope agrees with the member-by-member walk of the views.
    fn agrees_with_views(text: &str) {
        let e = parse(text);
        let v = Value::parse(text.as_bytes()).unwrap();
        assert_eq!(e.message, v);
        assert_eq!(e.classify(), Message::classify(v), "{text}");
        let params = v.get("params").filter(|p| p.members().is_some());
        let get = |key: &str| params.and_then(|p| p.get(key));
        assert_eq!(e.meta, get("_meta"), "{text}");
        assert_eq!(e.name, get("name"), "{text}");
        assert_eq!(e.arguments, get("arguments"), "{text}");
        assert_eq!(e.cursor, get("cursor"), "{text}");
        assert_eq!(e.protocol_version, get("protocolVersion"), "{text}");
        assert_eq!(e.request_id, get("requestId"), "{text}");
        assert_eq!(e.level, get("level"), "{text}");
        let meta = get("_meta").filter(|m| m.members().is_some());
        let in_meta = |key: &str| meta.and_then(|m| m.get(key));
        assert_eq!(e.progress_token, in_meta("progressToken"), "{text}");
        assert_eq!(
            e.meta_log_level,
            in_meta("io.modelcontextprotocol/logLevel"),
            "{text}"
        );
        assert_eq!(
            e.declared_version(),
            super::super::declared_version(meta),
            "{text}"
        );
        if v.members().is_some() {
            assert_eq!(e.jsonrpc, v.get("jsonrpc"), "{text}");
            assert_eq!(e.id, v.get("id"), "{text}");
            assert_eq!(e.method, v.get("method"), "{text}");
            assert_eq!(e.params, v.get("params"), "{text}");
        }
    }

    #[test]
    fn agrees_with_the_views() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            r#""jsonrpc""#,
            r#"{"id":1,"id":2,"method":"a","method":"b","jsonrpc":"2.0","jsonrpc":"1.0"}"#,
            r#"{"params":{"name":"first"},"params":{"name":"second","cursor":"c"}}"#,
            r#"{"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            r#"{"params":[{"name":"in an array"}],"id":"a","method":"m","jsonrpc":"2.0"}"#,
            r#"{"params":{"arguments":{"name":"nested","_meta":{}},"name":"outer"}}"#,
            r#"{"id":{"params":{"name":"inside id"}},"params":{"x":{"name":"deeper"}}}"#,
            r#"{"\u006aso\u006erpc":"2.0","\u0069d":3,"m\u0065thod":"tools/list","par\u0061ms":{"n\u0061me":"e"}}"#,
            r#"{"result":{},"id":1,"jsonrpc":"2.0"}"#,
            r#"{"error":{"code":1},"id":1,"jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":5}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":[{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}]}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{}"#,
            r#"{"params":{}}"#,
            r#"{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"_meta":{"progressToken":"tok","io.modelcontextprotocol/logLevel":"info","progressToken":2},"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a","reason":"x","level":"debug"}}"#,
            r#"{"params":{"arguments":{"_meta":{"progressToken":1}},"_meta":{"progressToken":3}}}"#,
            r#"{"params":"s","name":"top-level name is not params.name"}"#,
        ] {
            agrees_with_views(text);
        }
    }

    #[test]
    fn errors_are_those_of_the_plain_check() {
        for text in [
            "",
            "{",
            r#"{"a":1,}"#,
            r#"{"a":"\ud800"}"#,
            "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
            r#"{"a":1} x"#,
            "\u{0}",
        ] {
            let limits = Limits::default();
            assert_eq!(
                Envelope::parse(text.as_bytes(), limits).err(),
                Value::parse_with(text.as_bytes(), limits).err(),
                "{text}"
            );
        }
        let deep = "[".repeat(40) + &"]".repeat(40);
        assert_eq!(
            Envelope::parse(deep.as_bytes(), Limits::default())
                .map(|_| ())
                .unwrap_err()
                .kind,
            DecodeErrorKind::TooDeep
        );
        assert!(Envelope::parse(&[0xff], Limits::default()).is_err());
    }
}
