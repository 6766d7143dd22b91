//! Fixed-capacity JSON Pointers (RFC 6901): [`InstancePath`] and [`SchemaPointer`].
//!
//! The truncation rule: the text never exceeds the capacity. When it would, whole leading
//! segments are dropped and the text starts with `…` instead (the marker counts against the
//! capacity). A segment that cannot fit even right after the marker leaves just `…`.
//!
//! Bytes are only moved with bounded iterators and `get`, so no operation can panic.

use core::fmt;

/// Capacity in bytes of an [`InstancePath`] (kept small so that a
/// [`Violation`](super::Violation), returned by value, stays under 128 bytes).
pub const POINTER_CAPACITY: usize = 38;

/// Capacity in bytes of a [`SchemaPointer`].
pub const SCHEMA_POINTER_CAPACITY: usize = 64;

/// What a truncated pointer or message starts or ends with.
pub(crate) const MARKER: &str = "…";

/// A JSON Pointer in a fixed buffer of `N` bytes (at most 255), truncated at the front as the
/// module describes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct PointerBuf<const N: usize> {
    buf: [u8; N],
    len: u8,
    truncated: bool,
}

impl<const N: usize> PointerBuf<N> {
    /// The length is kept in a `u8`, and the marker must fit.
    const CAPACITY_OK: () = assert!(N <= u8::MAX as usize && N > MARKER.len());

    /// Bytes left for segments once the marker is in front.
    const ROOM: usize = N.saturating_sub(MARKER.len());

    pub(crate) const fn new() -> Self {
        let () = Self::CAPACITY_OK;
        Self {
            buf: [0; N],
            len: 0,
            truncated: false,
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        let bytes = self.buf.get(..usize::from(self.len)).unwrap_or_default();
        // Only whole UTF-8 sequences are ever stored.
        core::str::from_utf8(bytes).unwrap_or_default()
    }

    /// True when leading segments were dropped.
    pub(crate) fn is_truncated(&self) -> bool {
        self.truncated
    }

    /// Appends a segment, dropping leading segments when the buffer is full.
    pub(crate) fn push_back(&mut self, segment: &str) {
        let need = escaped_len(segment);
        if need > Self::ROOM {
            // Not even the segment alone fits after the marker: keep nothing but the marker.
            self.rewrite_with_marker(&[]);
            return;
        }
        if usize::from(self.len).saturating_add(need) > N {
            self.keep_tail(N.saturating_sub(need));
        }
        let end = self.put_escaped(usize::from(self.len), segment);
        self.set_len(end);
    }

    /// Prepends a segment; when it does not fit (with room for the marker), the pointer is
    /// marked truncated instead and false is returned. Once truncated, nothing more is
    /// prepended.
    pub(crate) fn push_front(&mut self, segment: &str) -> bool {
        if self.truncated {
            return false;
        }
        let need = escaped_len(segment);
        let len = usize::from(self.len);
        if len.saturating_add(need) > Self::ROOM {
            self.truncate_front();
            return false;
        }
        let old = self.buf;
        let end = self.put_escaped(0, segment);
        let end = self.put(end, old.get(..len).unwrap_or_default());
        self.set_len(end);
        true
    }

    /// Marks the pointer truncated (a leading segment could not be shown).
    pub(crate) fn truncate_front(&mut self) {
        if !self.truncated {
            self.keep_tail(N);
        }
    }

    /// Rewrites the text as the marker followed by the longest tail of whole segments that
    /// fits in `room` bytes together with the marker.
    fn keep_tail(&mut self, room: usize) {
        let old = self.buf;
        let start = if self.truncated { MARKER.len() } else { 0 };
        let body = old.get(start..usize::from(self.len)).unwrap_or_default();
        let budget = room.saturating_sub(MARKER.len());
        // Every segment starts with `/` (escaped segments hold none of their own).
        let cut = body
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'/')
            .map(|(i, _)| i)
            .find(|&i| body.len().saturating_sub(i) <= budget)
            .unwrap_or(body.len());
        self.rewrite_with_marker(body.get(cut..).unwrap_or_default());
    }

    /// Makes the text the marker followed by `tail` (which the caller made fit).
    fn rewrite_with_marker(&mut self, tail: &[u8]) {
        let end = self.put(0, MARKER.as_bytes());
        let end = self.put(end, tail);
        self.set_len(end);
        self.truncated = true;
    }

    /// Writes `segment` escaped, with its leading `/`, at `at`; returns where it ends.
    fn put_escaped(&mut self, at: usize, segment: &str) -> usize {
        let mut end = self.put(at, b"/");
        for b in segment.bytes() {
            end = match b {
                b'~' => self.put(end, b"~0"),
                b'/' => self.put(end, b"~1"),
                _ => self.put(end, &[b]),
            };
        }
        end
    }

    /// Copies `bytes` to `at`; returns where they end. Callers check the room first; bytes
    /// past the buffer would be dropped, never written out of bounds.
    fn put(&mut self, at: usize, bytes: &[u8]) -> usize {
        for (slot, &b) in self.buf.iter_mut().skip(at).zip(bytes) {
            *slot = b;
        }
        at.saturating_add(bytes.len()).min(N)
    }

    fn set_len(&mut self, len: usize) {
        self.len = u8::try_from(len.min(N)).unwrap_or(u8::MAX);
    }
}

/// Bytes `segment` takes once escaped, with its leading `/`.
pub(crate) fn escaped_len(segment: &str) -> usize {
    let escapes = segment.bytes().filter(|b| matches!(b, b'~' | b'/')).count();
    segment.len().saturating_add(escapes).saturating_add(1)
}

/// Writes `i` in decimal into `buf`.
pub(crate) fn format_index(mut i: usize, buf: &mut [u8; 20]) -> &str {
    let mut pos = buf.len();
    loop {
        // The loop stops at `pos == 0`, so this does not wrap.
        pos = pos.wrapping_sub(1);
        if let Some(slot) = buf.get_mut(pos) {
            // `i % 10` is below 10.
            *slot = b'0'.wrapping_add((i % 10) as u8);
        }
        i /= 10;
        if i == 0 || pos == 0 {
            break;
        }
    }
    core::str::from_utf8(buf.get(pos..).unwrap_or_default()).unwrap_or_default()
}

macro_rules! pointer_type {
    ($(#[$doc:meta])* $name:ident, $cap:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq)]
        pub struct $name(pub(crate) PointerBuf<$cap>);

        impl $name {
            /// The pointer text (`""` for the root); starts with `…` when truncated.
            pub fn as_str(&self) -> &str {
                self.0.as_str()
            }

            /// True when leading segments were dropped to fit the capacity.
            pub fn is_truncated(&self) -> bool {
                self.0.is_truncated()
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self(PointerBuf::new())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(self.as_str(), f)
            }
        }

        #[cfg(feature = "defmt")]
        impl defmt::Format for $name {
            fn format(&self, f: defmt::Formatter<'_>) {
                defmt::write!(f, "{=str}", self.as_str())
            }
        }
    };
}

pointer_type!(
    /// Where in the instance a violation was found, as a JSON Pointer (RFC 6901) of at most
    /// [`POINTER_CAPACITY`] bytes.
    InstancePath,
    POINTER_CAPACITY
);

pointer_type!(
    /// Where in the schema a compile error was found, as a JSON Pointer of at most
    /// [`SCHEMA_POINTER_CAPACITY`] bytes.
    SchemaPointer,
    SCHEMA_POINTER_CAPACITY
);

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;

    #[test]
    fn pointer_escapes_and_truncates_from_the_front() {
        let mut p = PointerBuf::<64>::new();
        p.push_back("a/b");
        p.push_back("~x");
        assert_eq!(p.as_str(), "/a~1b/~0x");
        let mut p = PointerBuf::<64>::new();
        for i in 0..30 {
            p.push_back(if i % 2 == 0 { "abcd" } else { "ef" });
        }
        assert!(p.is_truncated());
        assert!(p.as_str().starts_with('…'));
        assert!(p.as_str().ends_with("/abcd/ef"));
        assert!(p.as_str().len() <= 64);
    }

    #[test]
    fn push_front_marks_truncation() {
        let mut p = PointerBuf::<POINTER_CAPACITY>::new();
        assert!(p.push_front("c"));
        assert!(p.push_front("b"));
        assert_eq!(p.as_str(), "/b/c");
        let long = "x".repeat(70);
        assert!(!p.push_front(&long));
        assert_eq!(p.as_str(), "…/b/c");
        assert!(!p.push_front("a"));
        assert_eq!(p.as_str(), "…/b/c");
    }

    /// A 1- or 2-byte first segment, replaced by the 3-byte marker, used to make the text
    /// longer than the buffer (a `copy_within` past the end).
    #[test]
    fn short_first_segment_dropped_from_a_full_buffer() {
        let long = "B".repeat(58);
        let mut p = PointerBuf::<64>::new();
        for s in ["a", &long, "cc"] {
            p.push_back(s);
        }
        assert_eq!(p.as_str().len(), 64);
        p.push_back("d");
        assert_eq!(p.as_str(), "…/cc/d");
        let mut p = PointerBuf::<64>::new();
        for s in ["", &long, "cc"] {
            p.push_back(s);
        }
        assert_eq!(p.as_str().len(), 63);
        p.push_back("dd");
        assert_eq!(p.as_str(), "…/cc/dd");
    }

    #[test]
    fn truncate_front_keeps_the_last_segments() {
        let mut p = PointerBuf::<POINTER_CAPACITY>::new();
        let mut s = String::new();
        for _ in 0..17 {
            p.push_back("x");
            s.push_str("/x");
        }
        assert_eq!(p.as_str(), s);
        p.truncate_front();
        // 34 bytes plus the marker is 37: all of it still fits.
        assert_eq!(p.as_str(), std::format!("…{s}"));
        p.push_back("yy");
        assert_eq!(p.as_str(), std::format!("…{}/yy", &s[2..]));
    }
}
