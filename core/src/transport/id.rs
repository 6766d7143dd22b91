//! Recovering the request id of a line that was too long to keep.
//!
//! A line that does not fit the line buffer is discarded as it streams past, but the client that
//! sent it may be waiting for an answer. [`IdTracker`] watches the discarded bytes with a tiny
//! state machine (string and escape aware, so braces and quotes inside strings are not counted)
//! and captures the value of the first top-level `"id"` member of the object, wherever it appears
//! in the line. Only a string or an integer of at most [`MAX_RECOVERED_ID_LEN`] bytes of JSON
//! text is recovered; a key written with escapes (`"\u0069d"`) is not recognised.

use crate::json::{Kind, Limits};
use crate::protocol::parse_value;

/// The longest id (its JSON text: quotes and escapes of a string included) that can be
/// recovered from a discarded line.
pub const MAX_RECOVERED_ID_LEN: usize = 64;

/// A request id recovered from a discarded line: a checked JSON string or integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RecoveredId {
    buf: [u8; MAX_RECOVERED_ID_LEN],
    len: u8,
}

impl RecoveredId {
    /// An empty capture buffer.
    const fn empty() -> Self {
        Self {
            buf: [0; MAX_RECOVERED_ID_LEN],
            len: 0,
        }
    }

    /// The captured bytes.
    fn bytes(&self) -> &[u8] {
        self.buf.get(..usize::from(self.len)).unwrap_or_default()
    }

    /// Appends a byte; false when the buffer is full.
    fn push(&mut self, b: u8) -> bool {
        let Some(slot) = self.buf.get_mut(usize::from(self.len)) else {
            return false;
        };
        *slot = b;
        // At most `MAX_RECOVERED_ID_LEN` (64): fits a `u8`.
        self.len = self.len.wrapping_add(1);
        true
    }

    /// True when the captured bytes are exactly the JSON text of a string or an integer.
    fn is_id(&self) -> bool {
        let raw = self.bytes();
        let Ok(value) = parse_value(raw, Limits::default()) else {
            return false;
        };
        let ok = match value.kind() {
            Kind::String => true,
            Kind::Number => value.as_number().is_some_and(|n| n.is_plain_integer()),
            _ => false,
        };
        ok && value.raw().len() == raw.len()
    }

    /// The id's JSON text, to be echoed as is (`"abc"` with its quotes, or `42`).
    pub fn as_str(&self) -> &str {
        // Checked as JSON (so UTF-8) when it was recovered.
        core::str::from_utf8(self.bytes()).unwrap_or_default()
    }
}

/// Where the tracker is inside the top-level object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// Before the root value.
    BeforeRoot,
    /// Expecting a member name (after `{` or `,`).
    Key,
    /// After a member name, expecting `:`.
    Colon,
    /// After `:`, expecting a value.
    Value,
    /// Inside a scalar (number or literal) member value.
    Scalar,
    /// After a member value, expecting `,` or `}`.
    AfterValue,
    /// The root is not an object, or it has ended: nothing more to learn.
    Done,
}

/// Streaming scanner that recovers the first top-level `"id"` of a JSON object.
#[derive(Debug, Clone)]
pub struct IdTracker {
    slot: Slot,
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// The current string is a top-level member name.
    in_key: bool,
    /// Bytes of `id` matched so far by the current member name; `None` once it differs.
    key_match: Option<u8>,
    /// The member whose value comes next is `id`.
    value_is_id: bool,
    capturing: bool,
    /// The value being captured; once `found`, the recovered id (nothing is captured after it).
    cap: RecoveredId,
    cap_overflow: bool,
    /// `cap` holds a complete, checked id.
    found: bool,
    /// Set once an `id` member was seen, recovered or not: later ones are duplicates.
    id_seen: bool,
}

impl Default for IdTracker {
    fn default() -> Self {
        Self::new()
    }
}

impl IdTracker {
    /// A tracker at the start of a line.
    pub const fn new() -> Self {
        Self {
            slot: Slot::BeforeRoot,
            depth: 0,
            in_string: false,
            escaped: false,
            in_key: false,
            key_match: None,
            value_is_id: false,
            capturing: false,
            cap: RecoveredId::empty(),
            cap_overflow: false,
            found: false,
            id_seen: false,
        }
    }

    /// The id found so far (a complete string or integer value of the first `"id"` member).
    pub fn id(&self) -> Option<&RecoveredId> {
        self.found.then_some(&self.cap)
    }

    /// Feeds the next bytes of the line.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.slot == Slot::Done {
                return;
            }
            self.byte(b);
        }
    }

    // Not inlined: four call sites, on the rare bytes of a captured id only.
    #[inline(never)]
    fn push(&mut self, b: u8) {
        if !self.cap.push(b) {
            self.cap_overflow = true;
        }
    }

    fn end_capture(&mut self) {
        if self.capturing {
            self.capturing = false;
            self.found = !self.cap_overflow && self.cap.is_id();
        }
    }

    fn byte(&mut self, b: u8) {
        if self.in_string {
            if self.capturing {
                self.push(b);
            }
            if self.escaped {
                self.escaped = false;
                if self.in_key {
                    self.key_match = None;
                }
                return;
            }
            match b {
                b'\\' => self.escaped = true,
                b'"' => {
                    self.in_string = false;
                    if self.in_key {
                        self.in_key = false;
                        self.value_is_id = self.key_match == Some(2);
                        self.slot = Slot::Colon;
                    } else if self.depth == 1 && self.slot == Slot::Scalar {
                        self.end_capture();
                        self.slot = Slot::AfterValue;
                    }
                }
                _ => {
                    if self.in_key {
                        self.key_match = match self.key_match {
                            Some(0) if b == b'i' => Some(1),
                            Some(1) if b == b'd' => Some(2),
                            _ => None,
                        };
                    }
                }
            }
            return;
        }
        match b {
            b' ' | b'\t' | b'\r' | b'\n' => {
                if self.slot == Slot::Scalar && self.depth == 1 {
                    self.end_capture();
                    self.slot = Slot::AfterValue;
                }
            }
            // A byte order mark before the root is skipped.
            0xEF | 0xBB | 0xBF if self.slot == Slot::BeforeRoot => {}
            b'{' | b'[' => {
                if self.slot == Slot::BeforeRoot {
                    if b == b'{' {
                        self.depth = 1;
                        self.slot = Slot::Key;
                    } else {
                        self.slot = Slot::Done;
                    }
                    return;
                }
                if self.depth == 1 {
                    self.start_value(false);
                    self.slot = Slot::AfterValue;
                }
                self.depth = self.depth.saturating_add(1);
            }
            b'}' | b']' => {
                if self.depth == 1 {
                    self.end_capture();
                    self.slot = Slot::Done;
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b',' => {
                if self.depth == 1 {
                    self.end_capture();
                    self.slot = Slot::Key;
                }
            }
            b':' => {
                if self.depth == 1 && self.slot == Slot::Colon {
                    self.slot = Slot::Value;
                }
            }
            b'"' => {
                self.in_string = true;
                if self.depth != 1 {
                    return;
                }
                match self.slot {
                    Slot::Key => {
                        self.in_key = true;
                        self.key_match = Some(0);
                    }
                    Slot::Value => {
                        self.start_value(true);
                        if self.capturing {
                            self.push(b);
                        }
                        // Reuse `Scalar` for "inside the member's string value".
                        self.slot = Slot::Scalar;
                    }
                    _ => {}
                }
            }
            _ => {
                if self.slot == Slot::BeforeRoot {
                    self.slot = Slot::Done;
                    return;
                }
                if self.depth == 1 {
                    if self.slot == Slot::Value {
                        self.start_value(true);
                        self.slot = Slot::Scalar;
                    }
                    if self.capturing {
                        self.push(b);
                    }
                }
            }
        }
    }

    /// A top-level member value starts; capture it if it is the first `id` and `scalar`.
    fn start_value(&mut self, scalar: bool) {
        if self.value_is_id && !self.id_seen {
            self.id_seen = true;
            if scalar {
                self.capturing = true;
                self.cap.len = 0;
                self.cap_overflow = false;
            }
        }
        self.value_is_id = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recover(chunks: &[&[u8]]) -> Option<std::string::String> {
        let mut t = IdTracker::new();
        for c in chunks {
            t.feed(c);
        }
        t.id().map(|id| id.as_str().into())
    }

    #[test]
    fn finds_id_anywhere_at_top_level() {
        let line =
            br#"{"method":"tools/call","params":{"id":"inner","s":"}{\"id\":9"},"id":"outer"}"#;
        assert_eq!(recover(&[line]).as_deref(), Some(r#""outer""#));
        // Byte by byte gives the same answer.
        let bytes: std::vec::Vec<&[u8]> = line.chunks(1).collect();
        assert_eq!(recover(&bytes).as_deref(), Some(r#""outer""#));
        assert_eq!(
            recover(&[b"{ \"id\" : 42 , \"x\": [1,2"]).as_deref(),
            Some("42")
        );
        assert_eq!(recover(&[b"{\"id\":-7}"]).as_deref(), Some("-7"));
        assert_eq!(
            recover(&[b"\xEF\xBB\xBF{\"id\":\"a\\\"b\"}"]).as_deref(),
            Some(r#""a\"b""#)
        );
    }

    #[test]
    fn refuses_what_is_not_an_id() {
        assert_eq!(recover(&[b"{\"id\":null}"]), None);
        assert_eq!(recover(&[b"{\"id\":1.5}"]), None);
        assert_eq!(recover(&[b"{\"id\":{\"a\":1}}"]), None);
        assert_eq!(recover(&[b"[{\"id\":1}]"]), None);
        assert_eq!(recover(&[b"garbage \"id\":1"]), None);
        assert_eq!(recover(&[b"{\"idx\":1,\"xid\":2}"]), None);
        // Unfinished value: not recovered.
        assert_eq!(recover(&[b"{\"id\":\"abc"]), None);
        // Too long.
        let mut long = std::vec::Vec::from(&b"{\"id\":\""[..]);
        long.extend(core::iter::repeat_n(b'a', MAX_RECOVERED_ID_LEN));
        long.extend(b"\"}");
        assert_eq!(recover(&[&long]), None);
        // The first id wins, like `Value::get`.
        assert_eq!(recover(&[b"{\"id\":null,\"id\":3}"]), None);
        assert_eq!(recover(&[b"{\"id\":1,\"id\":3}"]).as_deref(), Some("1"));
    }
}
