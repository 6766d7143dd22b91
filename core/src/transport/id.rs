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

    /// Appends a byte; once the buffer is full, `len` becomes [`u8::MAX`] (an overflow, which
    /// [`RecoveredId::is_id`] refuses).
    fn push(&mut self, b: u8) {
        match self.buf.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = b;
                // At most `MAX_RECOVERED_ID_LEN` (64): fits a `u8`.
                self.len = self.len.wrapping_add(1);
            }
            None => self.len = u8::MAX,
        }
    }

    /// True when the captured bytes are exactly the JSON text of a string or an integer (false
    /// after an overflow).
    fn is_id(&self) -> bool {
        let Some(raw) = self.buf.get(..usize::from(self.len)) else {
            return false;
        };
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

/// Where the tracker is inside the top-level object. `Key` to `Value` and `Scalar` are only
/// ever reached at depth 1; inside a string, the `Key*` slots are a member name being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// Before the root value.
    BeforeRoot,
    /// Expecting a member name (after `{` or `,`); in a string, no byte of it read yet.
    Key,
    /// In a member name that is `i` so far.
    KeyI,
    /// In a member name that is `id` so far.
    KeyId,
    /// In a member name that is not `id`.
    KeyOther,
    /// After a member name, expecting `:`.
    Colon,
    /// After `:`, expecting a value.
    Value,
    /// Inside a scalar (number, literal or string) member value.
    Scalar,
    /// After a member value, expecting `,` or `}`; also every slot deeper than depth 1.
    AfterValue,
    /// The root is not an object, or it has ended: nothing more to learn.
    Done,
}

/// Where the tracker is in a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Str {
    /// Not in a string.
    Out,
    /// In a string.
    In,
    /// In a string, after a backslash.
    Escaped,
}

/// What is known of the first top-level `id` member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Id {
    /// None seen; the member whose value comes next is not `id`.
    Pending,
    /// None seen; the member whose value comes next is `id`.
    Next,
    /// Its value is being captured.
    Capturing,
    /// Seen, and not recovered (not a scalar, not a string or integer, or too long).
    Missed,
    /// Seen and recovered: `cap` holds it (nothing is captured after it).
    Found,
}

/// Streaming scanner that recovers the first top-level `"id"` of a JSON object.
#[derive(Debug, Clone)]
pub struct IdTracker {
    slot: Slot,
    string: Str,
    id: Id,
    depth: u32,
    /// The value being captured, or the recovered id.
    cap: RecoveredId,
}

impl Default for IdTracker {
    fn default() -> Self {
        Self::new()
    }
}

impl IdTracker {
    /// A tracker at the start of a line (all zero bits).
    pub const fn new() -> Self {
        Self {
            slot: Slot::BeforeRoot,
            string: Str::Out,
            id: Id::Pending,
            depth: 0,
            cap: RecoveredId::empty(),
        }
    }

    /// Back to the start of a line. The capture buffer is left as it is (it is only read once
    /// a new id has been captured in it), so nothing of its size is written.
    pub fn reset(&mut self) {
        self.slot = Slot::BeforeRoot;
        self.string = Str::Out;
        self.id = Id::Pending;
        self.depth = 0;
    }

    /// The id found so far (a complete string or integer value of the first `"id"` member).
    pub fn id(&self) -> Option<&RecoveredId> {
        (self.id == Id::Found).then_some(&self.cap)
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

    /// Captures `b` if a value is being captured.
    // Not inlined: three call sites, on the rare bytes of a captured id only.
    #[inline(never)]
    fn capture(&mut self, b: u8) {
        if self.id == Id::Capturing {
            self.cap.push(b);
        }
    }

    /// The captured value ends (if one is being captured).
    fn end_capture(&mut self) {
        if self.id == Id::Capturing {
            self.id = if self.cap.is_id() {
                Id::Found
            } else {
                Id::Missed
            };
        }
    }

    /// A top-level member value starts: capture it if it is the first `id` and `scalar`.
    fn start_value(&mut self, scalar: bool) {
        if self.id == Id::Next {
            self.id = Id::Missed;
            if scalar {
                self.id = Id::Capturing;
                self.cap.len = 0;
            }
        }
    }

    fn byte(&mut self, b: u8) {
        let key = matches!(
            self.slot,
            Slot::Key | Slot::KeyI | Slot::KeyId | Slot::KeyOther
        );
        if self.string != Str::Out {
            self.capture(b);
            if self.string == Str::Escaped {
                self.string = Str::In;
                if key {
                    self.slot = Slot::KeyOther;
                }
                return;
            }
            match b {
                b'\\' => self.string = Str::Escaped,
                b'"' => {
                    self.string = Str::Out;
                    if key {
                        if matches!(self.id, Id::Pending | Id::Next) {
                            self.id = if self.slot == Slot::KeyId {
                                Id::Next
                            } else {
                                Id::Pending
                            };
                        }
                        self.slot = Slot::Colon;
                    } else if self.slot == Slot::Scalar {
                        self.end_capture();
                        self.slot = Slot::AfterValue;
                    }
                }
                _ if key => {
                    self.slot = match (self.slot, b) {
                        (Slot::Key, b'i') => Slot::KeyI,
                        (Slot::KeyI, b'd') => Slot::KeyId,
                        _ => Slot::KeyOther,
                    };
                }
                _ => {}
            }
            return;
        }
        match b {
            b' ' | b'\t' | b'\r' | b'\n' => {
                if self.slot == Slot::Scalar {
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
                if self.slot == Slot::Colon {
                    self.slot = Slot::Value;
                }
            }
            b'"' => {
                self.string = Str::In;
                if self.slot == Slot::Value {
                    self.start_value(true);
                    self.capture(b);
                    // `Scalar` also means "inside the member's string value".
                    self.slot = Slot::Scalar;
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
                    self.capture(b);
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "id_reference.rs"]
mod reference;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
        // Malformed lines: what the scanner makes of them is pinned by the differential test
        // below; one of its quirks, a scalar resumed after a nested value, is checked here.
        assert_eq!(recover(&[b"{\"id\":1[]5}"]).as_deref(), Some("15"));
    }

    /// Pieces of lines that steer the tracker, and a few that do not.
    fn piece() -> impl Strategy<Value = &'static [u8]> {
        const PIECES: &[&[u8]] = &[
            b"{",
            b"}",
            b"[",
            b"]",
            b",",
            b":",
            b"\"",
            b"\\",
            b" ",
            b"\t",
            b"i",
            b"d",
            b"-",
            b"1",
            b"15",
            b"1.5",
            b"x",
            b"null",
            b"\xEF\xBB\xBF",
            b"\"id\"",
            b"\"i\\d\"",
            b"\"\\\"id\"",
            b"\"a\\\"\"",
            b"\"idx\"",
            b"\"ab\"",
            b"[]",
            b"{}",
            b"\"id\":1",
            b"\"id\":\"",
            b"{\"id\":",
            b"\"id\":",
        ];
        prop::sample::select(PIECES)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        #[test]
        fn recovers_what_the_first_implementation_recovers(
            pieces in prop::collection::vec(piece(), 0..24),
            cut in 0usize..64,
        ) {
            let line = pieces.concat();
            let mut new = IdTracker::new();
            let mut old = reference::Reference::new();
            let (a, b) = line.split_at(cut.min(line.len()));
            for chunk in [a, b] {
                new.feed(chunk);
                old.feed(chunk);
                prop_assert_eq!(new.id().map(|i| i.as_str()), old.id());
            }
            // A reset tracker (its capture buffer not cleared) finds the same again.
            new.reset();
            new.feed(&line);
            prop_assert_eq!(new.id().map(|i| i.as_str()), old.id());
        }
    }
}
