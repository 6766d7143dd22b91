//! The program's text area: strings and JSON values stored once, with a short backwards
//! search that reuses an identical earlier string.

use super::state::{Compiler, Halt};
use crate::json::{copy_bytes, JsonStr};
use crate::schema::program::{Scratch, Str};

/// How far back the text area is searched for an identical string to reuse.
pub(super) const DEDUP_WINDOW: usize = 1024;

impl<'s> Compiler<'s, '_, '_> {
    /// Stores `s` in the text area (reusing an earlier identical string).
    pub(super) fn put_text(&mut self, s: &str) -> Result<Str, Halt> {
        let bytes = s.as_bytes();
        // `n_text <= text.len()`, and two lengths of byte slices do not wrap.
        let end = self.n_text.wrapping_add(bytes.len());
        let dst = self.text.get_mut(self.n_text..end).ok_or(Halt::TextFull)?;
        copy_bytes(dst, bytes);
        self.commit_text(bytes.len())
    }

    /// Stores the decoded string.
    pub(super) fn put_json_str(&mut self, s: JsonStr<'_>) -> Result<Str, Halt> {
        if let Some(plain) = s.as_plain() {
            return self.put_text(plain);
        }
        let tail = self.text.get_mut(self.n_text..).unwrap_or_default();
        let len = s.decode_into(tail).map_err(|_| Halt::TextFull)?.len();
        self.commit_text(len)
    }

    /// The `len` bytes just written after the used area: reuse an identical earlier string,
    /// or keep them.
    pub(super) fn commit_text(&mut self, len: usize) -> Result<Str, Halt> {
        let (used, tail) = self.text.split_at(self.n_text.min(self.text.len()));
        let new = tail.get(..len).unwrap_or_default();
        // Search only the most recent bytes: repeated names (`required` and `properties` of one
        // schema) are close together, and compile time stays linear in the schema size.
        let window_start = used.len().saturating_sub(DEDUP_WINDOW);
        let off = if len == 0 {
            Some(0)
        } else {
            used.get(window_start..)
                .unwrap_or_default()
                .windows(len)
                .position(|w| w == new)
                .map(|p| p.wrapping_add(window_start)) // a position in `used`
        };
        let off = match off {
            Some(off) => off,
            None => {
                let off = self.n_text;
                // The `len` bytes were written in the tail: `n_text + len <= text.len()`.
                self.n_text = self.n_text.wrapping_add(len);
                off
            }
        };
        Ok(Str {
            off: u16::try_from(off).map_err(|_| Halt::TextFull)?,
            len: u16::try_from(len).map_err(|_| Halt::TextFull)?,
        })
    }

    /// The stored string `s`.
    #[cfg(feature = "pattern")]
    pub(super) fn stored(&self, s: Str) -> &str {
        self.text
            .get(s.range())
            .and_then(|t| core::str::from_utf8(t).ok())
            .unwrap_or_default()
    }
}

/// The JSON string whose body (the text between the quotes) `s` locates in `doc`, with
/// `s.mark` telling whether it has escapes (see `Compiler::has_duplicate_keys`; the string
/// looks its escapes up itself).
pub(super) fn scratch_str<'d>(doc: &'d str, s: &Scratch) -> JsonStr<'d> {
    let start = s.start as usize;
    let body = doc
        .get(start..start.saturating_add(s.len as usize))
        .unwrap_or_default();
    JsonStr::from_checked(body)
}
