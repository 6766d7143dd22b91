//! The first implementation of [`IdTracker`](super::IdTracker), kept for the tests only: the
//! compact one must recover exactly what this one does, quirks on malformed input included.

use crate::json::{Kind, Limits};
use crate::protocol::parse_value;

use super::MAX_RECOVERED_ID_LEN;

/// A request id recovered from a discarded line: a checked JSON string or integer.
#[derive(Debug, Clone, Copy)]
struct Capture {
    buf: [u8; MAX_RECOVERED_ID_LEN],
    len: u8,
}

impl Capture {
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
    fn as_str(&self) -> &str {
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
pub(super) struct Reference {
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
    cap: Capture,
    cap_overflow: bool,
    /// `cap` holds a complete, checked id.
    found: bool,
    /// Set once an `id` member was seen, recovered or not: later ones are duplicates.
    id_seen: bool,
}

impl Reference {
    /// A tracker at the start of a line.
    pub(super) const fn new() -> Self {
        Self {
            slot: Slot::BeforeRoot,
            depth: 0,
            in_string: false,
            escaped: false,
            in_key: false,
            key_match: None,
            value_is_id: false,
            capturing: false,
            cap: Capture::empty(),
            cap_overflow: false,
            found: false,
            id_seen: false,
        }
    }

    /// The id found so far (a complete string or integer value of the first `"id"` member).
    pub(super) fn id(&self) -> Option<&str> {
        self.found.then(|| self.cap.as_str())
    }

    /// Feeds the next bytes of the line.
    pub(super) fn feed(&mut self, bytes: &[u8]) {
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
