//! The strict scanner: checks JSON grammar without recursion and without allocation.
//!
//! Nesting is tracked in a 128-bit stack (four 32-bit words), so the deepest document that can be checked is
//! [`MAX_DEPTH_LIMIT`] levels, whatever the input; [`Limits::max_depth`] sets a lower bound per
//! call. The scanner works on input already checked to be UTF-8.

use super::error::{DecodeError, DecodeErrorKind};
use super::escape::escape_word;
use super::observe::{Observer, Unobserved, Watch, MAX_OBSERVED};
use super::scan_error::{Fault as K, ScanError};
use super::words::{equal_mask, skip_words, until_structural};

/// Default nesting limit for documents read by the core (arrays and objects, counted from 1).
pub const DEFAULT_MAX_DEPTH: u8 = 32;

/// The largest nesting limit the scanner can enforce (its container stack has 128 bits).
pub const MAX_DEPTH_LIMIT: u8 = 128;

/// Bounds applied while reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Limits {
    /// Deepest nesting of arrays and objects accepted (clamped to [`MAX_DEPTH_LIMIT`]).
    pub max_depth: u8,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

/// Which open containers are objects: bit `i` for nesting level `i + 1` (relative), as 32-bit
/// words (a `u128` shift is a library call on 32-bit targets).
#[derive(Default)]
struct Nesting([u32; MAX_DEPTH_LIMIT as usize / 32]);

impl Nesting {
    /// Records whether the container at bit `i` (below [`MAX_DEPTH_LIMIT`]) is an object.
    #[inline]
    fn set(&mut self, i: u32, is_object: bool) {
        if let Some(word) = self.0.get_mut((i / 32) as usize) {
            let bit = 1u32 << (i % 32);
            if is_object {
                *word |= bit;
            } else {
                *word &= !bit;
            }
        }
    }

    /// True when the container at bit `i` is an object.
    #[inline]
    fn is_object(&self, i: u32) -> bool {
        self.0
            .get((i / 32) as usize)
            .is_some_and(|word| word >> (i % 32) & 1 != 0)
    }
}

/// A cursor over checked-UTF-8 JSON text.
#[derive(Debug, Clone)]
#[doc(hidden)]
pub struct Scanner<'a> {
    /// The text, kept as `str` so slicing it needs no second UTF-8 check (its bytes are
    /// `text.as_bytes()`: one slice keeps the scanner three words long).
    text: &'a str,
    pub pos: usize,
}

impl<'a> Scanner<'a> {
    pub fn new(text: &'a str) -> Self {
        Self::at(text, 0)
    }

    pub fn at(text: &'a str, pos: usize) -> Self {
        Self { text, pos }
    }

    #[inline]
    pub fn err(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::new(kind, self.pos)
    }

    /// A scanner error of `fault` at the current position.
    #[inline]
    fn fault(&self, fault: K) -> ScanError {
        ScanError::new(fault, self.pos)
    }

    #[inline]
    pub fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    #[inline]
    pub fn skip_ws(&mut self) {
        // Whitespace is at most b' ': one comparison ends the usual case (no whitespace).
        while let Some(&b) = self.text.as_bytes().get(self.pos) {
            if b > b' ' || !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return;
            }
            self.bump();
        }
    }

    /// Steps over one byte (one the caller has peeked: `pos` stays at most the length, far
    /// below `usize::MAX`, so the addition cannot wrap).
    #[inline]
    #[doc(hidden)]
    pub fn bump(&mut self) {
        self.pos = self.pos.wrapping_add(1);
    }

    /// The next non-whitespace byte, or an end-of-input error.
    #[inline]
    pub fn peek_token(&mut self) -> Result<u8, ScanError> {
        self.skip_ws();
        self.peek().ok_or_else(|| self.fault(K::UnexpectedEnd))
    }

    /// The next non-whitespace byte of checked text, if any (an `Option` comes back in
    /// registers; the `Result` of [`Scanner::peek_token`] through memory).
    #[inline]
    pub(crate) fn token(&mut self) -> Option<u8> {
        self.skip_ws();
        self.peek()
    }

    /// Consumes `b` (after whitespace) or fails.
    #[inline]
    pub fn expect(&mut self, b: u8) -> Result<(), ScanError> {
        if self.peek_token()? == b {
            self.bump();
            Ok(())
        } else {
            Err(self.fault(K::UnexpectedByte))
        }
    }

    /// The length of the text.
    pub(crate) fn len(&self) -> usize {
        self.text.len()
    }

    /// The position of the byte at address `addr`, when it is within the text (or just past it).
    pub fn pos_of_addr(&self, addr: usize) -> Option<usize> {
        addr.checked_sub(self.text.as_bytes().as_ptr() as usize)
            .filter(|&pos| pos <= self.text.len())
    }

    /// The address of the byte at the current position.
    pub fn addr(&self) -> usize {
        (self.text.as_bytes().as_ptr() as usize).saturating_add(self.pos)
    }

    pub fn slice_str(&self, start: usize, end: usize) -> &'a str {
        // The scanner cuts only at ASCII bytes, so these are character boundaries; `get`
        // checks just the two ends instead of validating the whole slice again.
        self.text.get(start..end).unwrap_or_default()
    }

    /// Scans a string starting at its opening quote (after optional whitespace); true when it
    /// holds an escape.
    pub fn string(&mut self) -> Result<bool, ScanError> {
        if self.peek_token()? != b'"' {
            return Err(self.fault(K::UnexpectedByte));
        }
        self.string_at_quote()
    }

    /// [`Scanner::string`] with `pos` at the opening quote.
    #[inline]
    fn string_at_quote(&mut self) -> Result<bool, ScanError> {
        let bytes = self.text.as_bytes();
        let mut i = self.pos.wrapping_add(1);
        let mut escaped = false;
        loop {
            i = skip_words(bytes, i, escape_word);
            match bytes.get(i) {
                Some(b'"') => {
                    self.pos = i.wrapping_add(1);
                    return Ok(escaped);
                }
                Some(b'\\') => {
                    escaped = true;
                    if let Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') =
                        bytes.get(i.wrapping_add(1))
                    {
                        // A one-character escape (JSON inside JSON text is full of `\"`).
                        i = i.wrapping_add(2);
                    } else {
                        self.pos = i.wrapping_add(1);
                        self.escape()?;
                        i = self.pos;
                    }
                }
                Some(0x00..=0x1f) => {
                    self.pos = i;
                    return Err(self.fault(K::ControlCharacter));
                }
                // Only within the last seven bytes of the text.
                Some(_) => i = i.wrapping_add(1),
                None => {
                    self.pos = i;
                    return Err(self.fault(K::UnexpectedEnd));
                }
            }
        }
    }

    /// Moves past one value of text that was already checked (by [`Scanner::value`]): no
    /// validation, only enough to find where the value ends. Used by the borrowed views, so
    /// walking a checked document does not check it again.
    pub fn skip_checked(&mut self) {
        self.skip_ws();
        match self.peek() {
            Some(b'"') => {
                self.skip_checked_string();
            }
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                loop {
                    // Straight to the next quote, bracket or brace, eight bytes at a time.
                    // At most the bytes left: `pos` stays at most the length.
                    let run =
                        until_structural(self.text.as_bytes().get(self.pos..).unwrap_or_default());
                    self.pos = self.pos.wrapping_add(run);
                    match self.peek() {
                        Some(b'"') => {
                            self.skip_checked_string();
                        }
                        Some(b'{' | b'[') => {
                            depth = depth.wrapping_add(1);
                            self.bump();
                        }
                        Some(_) => {
                            self.bump();
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                return;
                            }
                        }
                        None => return,
                    }
                }
            }
            // Checked text: a literal is whole, a number runs while its characters do.
            Some(b't' | b'n') => self.pos = self.pos.wrapping_add(4),
            Some(b'f') => self.pos = self.pos.wrapping_add(5),
            Some(_) => {
                let rest = self
                    .text
                    .as_bytes()
                    .get(self.pos.wrapping_add(1)..)
                    .unwrap_or_default();
                let len = rest
                    .iter()
                    .take_while(|&&b| matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'))
                    .count();
                self.pos = self.pos.wrapping_add(1).wrapping_add(len);
            }
            None => {}
        }
    }

    /// Moves past a checked string; `pos` is at its opening quote. True when the string holds
    /// an escape.
    pub fn skip_checked_string(&mut self) -> bool {
        let bytes = self.text.as_bytes();
        let mut i = self.pos.wrapping_add(1);
        let mut escaped = false;
        loop {
            i = skip_words(bytes, i, |word| {
                equal_mask(word, b'"') | equal_mask(word, b'\\')
            });
            match bytes.get(i) {
                Some(b'"') => {
                    self.pos = i.wrapping_add(1);
                    return escaped;
                }
                // A backslash: the escaped byte cannot end the string.
                Some(b'\\') => {
                    i = i.wrapping_add(2);
                    escaped = true;
                }
                Some(_) => i = i.wrapping_add(1),
                None => {
                    self.pos = i;
                    return escaped;
                }
            }
        }
    }

    /// Checks one escape; `pos` is just after the backslash.
    fn escape(&mut self) -> Result<(), ScanError> {
        let Some(b) = self.peek() else {
            return Err(self.fault(K::UnexpectedEnd));
        };
        match b {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                self.bump();
                Ok(())
            }
            b'u' => {
                let at = self.pos.saturating_sub(1);
                self.bump();
                let unit = self.hex4().ok_or_else(|| self.hex_fault())?;
                match unit {
                    0xD800..=0xDBFF => {
                        if self.peek() != Some(b'\\')
                            || self.text.as_bytes().get(self.pos.wrapping_add(1)).copied()
                                != Some(b'u')
                        {
                            return Err(ScanError::new(K::UnpairedSurrogate, at));
                        }
                        self.pos = self.pos.wrapping_add(2);
                        let low = self.hex4().ok_or_else(|| self.hex_fault())?;
                        if (0xDC00..=0xDFFF).contains(&low) {
                            Ok(())
                        } else {
                            Err(ScanError::new(K::UnpairedSurrogate, at))
                        }
                    }
                    0xDC00..=0xDFFF => Err(ScanError::new(K::UnpairedSurrogate, at)),
                    _ => Ok(()),
                }
            }
            _ => Err(self.fault(K::InvalidEscape)),
        }
    }

    /// Four hex digits of a `\u` escape; the scanner stops at the first byte that is not one
    /// (an `Option` comes back in registers, the fault is made once in [`Scanner::hex_fault`]).
    fn hex4(&mut self) -> Option<u16> {
        let mut v: u16 = 0;
        for _ in 0..4 {
            let d = hex_digit(self.peek()?)?;
            v = (v << 4) | u16::from(d);
            self.bump();
        }
        Some(v)
    }

    /// The fault where [`Scanner::hex4`] stopped: the end of the text or a byte that is not a
    /// hex digit.
    fn hex_fault(&self) -> ScanError {
        self.fault(if self.peek().is_none() {
            K::UnexpectedEnd
        } else {
            K::InvalidEscape
        })
    }

    /// Where the number at `pos` ends (the scanner does not move).
    #[inline]
    fn number_end(&self) -> Result<usize, ScanError> {
        let bytes = self.text.as_bytes();
        let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
        let digits = |mut i: usize| {
            while at(i).is_ascii_digit() {
                i = i.wrapping_add(1);
            }
            i
        };
        let invalid = |i: usize| Err(ScanError::new(K::InvalidNumber, i));
        let mut i = self.pos;
        if at(i) == b'-' {
            i = i.wrapping_add(1);
        }
        match at(i) {
            b'0' => i = i.wrapping_add(1),
            b'1'..=b'9' => i = digits(i.wrapping_add(1)),
            _ => return invalid(i),
        }
        if at(i) == b'.' {
            i = i.wrapping_add(1);
            if !at(i).is_ascii_digit() {
                return invalid(i);
            }
            i = digits(i.wrapping_add(1));
        }
        if let b'e' | b'E' = at(i) {
            i = i.wrapping_add(1);
            if let b'+' | b'-' = at(i) {
                i = i.wrapping_add(1);
            }
            if !at(i).is_ascii_digit() {
                return invalid(i);
            }
            i = digits(i.wrapping_add(1));
        }
        // A number must not run into letters or digits (`01`, `1x`).
        if let b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'.' | b'+' | b'-' = at(i) {
            return invalid(i);
        }
        Ok(i)
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), ScanError> {
        let end = self.pos.saturating_add(word.len());
        if self.text.as_bytes().get(self.pos..end) == Some(word) {
            self.pos = end;
            if let Some(b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9') = self.peek() {
                return Err(self.fault(K::UnexpectedByte));
            }
            Ok(())
        } else if self.text.len() < end
            && self
                .text
                .as_bytes()
                .get(self.pos..)
                .is_some_and(|r| word.starts_with(r))
        {
            self.pos = self.text.len();
            Err(self.fault(K::UnexpectedEnd))
        } else {
            Err(self.fault(K::UnexpectedByte))
        }
    }

    /// Scans one complete value (after optional whitespace) without recursion.
    ///
    /// `depth` is the nesting level the value starts at (0 for a document root); containers
    /// that would go past `max_depth` fail with [`K::TooDeep`].
    pub fn value(&mut self, depth: u8, max_depth: u8) -> Result<(), ScanError> {
        self.value_observed(depth, max_depth, &mut Unobserved)
    }

    /// [`Scanner::value`], telling `observer` the keys and member values of the first
    /// [`Observer::LEVELS`] nesting levels as they are checked (levels relative to the value:
    /// the members of an object value are level 1).
    pub fn value_observed<O: Observer>(
        &mut self,
        depth: u8,
        max_depth: u8,
        observer: &mut O,
    ) -> Result<(), ScanError> {
        // Below 64 bits one copy of the loop serves every observer (flash); on 64-bit hosts
        // each observer gets its own, with its calls inlined (speed).
        #[cfg(not(target_pointer_width = "64"))]
        let observer: &mut dyn Watch = observer;
        self.walk(depth, max_depth, O::LEVELS.min(MAX_OBSERVED), observer)
    }

    /// The scanning loop of [`Scanner::value_observed`], telling `observer` about levels
    /// `1..=levels`.
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    fn walk<W: Watch + ?Sized>(
        &mut self,
        depth: u8,
        max_depth: u8,
        levels: u32,
        observer: &mut W,
    ) -> Result<(), ScanError> {
        let max_depth = max_depth.min(MAX_DEPTH_LIMIT);
        let mut stack = Nesting::default();
        let mut level: u32 = 0;
        // Where the open containers of the observed levels began.
        let mut starts = [0usize; MAX_OBSERVED as usize + 1];
        'value: loop {
            self.skip_ws();
            let start = self.pos;
            match self.peek().ok_or_else(|| self.fault(K::UnexpectedEnd))? {
                open @ (b'{' | b'[') => {
                    // Both below 256 (`level` stays below `max_depth`): no wrap.
                    if u32::from(depth).wrapping_add(level) >= u32::from(max_depth) {
                        return Err(self.fault(K::TooDeep));
                    }
                    if levels > 0 && level <= levels {
                        if let Some(slot) = starts.get_mut(level as usize) {
                            *slot = start;
                        }
                    }
                    self.bump();
                    let is_obj = open == b'{';
                    stack.set(level, is_obj);
                    level = level.wrapping_add(1);
                    let close = if is_obj { b'}' } else { b']' };
                    if self.peek_token()? == close {
                        self.bump();
                        level = level.wrapping_sub(1);
                    } else {
                        if is_obj {
                            self.observed_key(level, levels, observer)?;
                        }
                        continue 'value;
                    }
                }
                b'"' => {
                    self.string_at_quote()?;
                }
                b'-' | b'0'..=b'9' => {
                    self.pos = self.number_end()?;
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                _ => return Err(self.fault(K::UnexpectedByte)),
            }
            if levels > 0 && level >= 1 && level <= levels {
                observer.value(level, start, self.pos);
            }
            // After a complete value: close containers or move to the next element.
            loop {
                if level == 0 {
                    return Ok(());
                }
                // level >= 1 here.
                let is_obj = stack.is_object(level.wrapping_sub(1));
                match (self.peek_token()?, is_obj) {
                    (b',', true) => {
                        self.bump();
                        self.observed_key(level, levels, observer)?;
                        continue 'value;
                    }
                    (b',', false) => {
                        self.bump();
                        continue 'value;
                    }
                    (b'}', true) | (b']', false) => {
                        self.bump();
                        level = level.wrapping_sub(1);
                        if levels > 0 && level >= 1 && level <= levels {
                            let start = starts.get(level as usize).copied().unwrap_or_default();
                            observer.value(level, start, self.pos);
                        }
                    }
                    _ => return Err(self.fault(K::UnexpectedByte)),
                }
            }
        }
    }

    /// Scans `"key" :` inside an object at `level`, telling `observer` about the key.
    #[inline]
    fn observed_key<W: Watch + ?Sized>(
        &mut self,
        level: u32,
        levels: u32,
        observer: &mut W,
    ) -> Result<(), ScanError> {
        if self.peek_token()? != b'"' {
            return Err(self.fault(K::UnexpectedByte));
        }
        let start = self.pos;
        let escaped = self.string_at_quote()?;
        if levels > 0 && level <= levels {
            let body = self
                .text
                .as_bytes()
                .get(start.wrapping_add(1)..self.pos.saturating_sub(1));
            observer.key(level, body.unwrap_or_default(), escaped);
        }
        self.expect(b':')
    }

    /// Checks a whole document: one value, surrounded only by whitespace.
    pub fn document(&mut self, limits: Limits) -> Result<(usize, usize), ScanError> {
        self.document_observed(limits, &mut Unobserved)
    }

    /// [`Scanner::document`], telling `observer` what it checks (see [`Observer`]).
    pub fn document_observed<O: Observer>(
        &mut self,
        limits: Limits,
        observer: &mut O,
    ) -> Result<(usize, usize), ScanError> {
        self.skip_ws();
        let start = self.pos;
        self.value_observed(0, limits.max_depth, observer)?;
        let end = self.pos;
        self.skip_ws();
        if self.pos != self.text.len() {
            return Err(self.fault(K::TrailingData));
        }
        Ok((start, end))
    }
}

#[inline]
pub(crate) fn hex_digit(b: u8) -> Option<u8> {
    match b {
        // The ranges bound the results to 0..16.
        b'0'..=b'9' => Some(b.wrapping_sub(b'0')),
        b'a'..=b'f' => Some(b.wrapping_sub(b'a' - 10)),
        b'A'..=b'F' => Some(b.wrapping_sub(b'A' - 10)),
        _ => None,
    }
}

/// Checks `bytes` as UTF-8, reporting the offset of the first bad byte.
#[doc(hidden)]
pub fn check_utf8(bytes: &[u8]) -> Result<&str, DecodeError> {
    core::str::from_utf8(bytes)
        .map_err(|e| DecodeError::new(DecodeErrorKind::InvalidUtf8, e.valid_up_to()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(s: &str) -> Result<(), K> {
        Scanner::new(s)
            .document(Limits::default())
            .map(|_| ())
            .map_err(|e| e.fault)
    }

    #[test]
    fn accepts_valid() {
        for s in [
            "0",
            "-0",
            "1.5e10",
            "-1E-2",
            "\"\"",
            "\"a\\u00e9\\ud83d\\ude00\"",
            "true",
            "false",
            "null",
            "[]",
            "{}",
            " [1, {\"a\": [null]}, \"x\"] ",
            "{\"a\":1,\"b\":{}}",
        ] {
            assert_eq!(check(s), Ok(()), "{s}");
        }
    }

    #[test]
    fn rejects_invalid() {
        let cases: &[(&str, K)] = &[
            ("", K::UnexpectedEnd),
            ("01", K::InvalidNumber),
            ("1.", K::InvalidNumber),
            ("+1", K::UnexpectedByte),
            (".5", K::UnexpectedByte),
            ("1e", K::InvalidNumber),
            ("\"\\x\"", K::InvalidEscape),
            ("\"\\ud800\"", K::UnpairedSurrogate),
            ("\"\\udc00\"", K::UnpairedSurrogate),
            ("\"\\ud800\\u0041\"", K::UnpairedSurrogate),
            ("\"a\nb\"", K::ControlCharacter),
            ("[1,]", K::UnexpectedByte),
            ("{\"a\"}", K::UnexpectedByte),
            ("{\"a\":1,}", K::UnexpectedByte),
            ("[1 2]", K::UnexpectedByte),
            ("{1:2}", K::UnexpectedByte),
            ("nul", K::UnexpectedEnd),
            ("nulx", K::UnexpectedByte),
            ("truex", K::UnexpectedByte),
            ("1 2", K::TrailingData),
            ("[", K::UnexpectedEnd),
            ("[1}", K::UnexpectedByte),
        ];
        for (s, k) in cases {
            assert_eq!(check(s), Err(*k), "{s:?}");
        }
    }

    #[test]
    fn depth_is_bounded_without_recursion() {
        let mut deep = [b'['; 100_000];
        deep[99_999] = b']';
        let deep = core::str::from_utf8(&deep).unwrap();
        let e = Scanner::new(deep).document(Limits::default()).unwrap_err();
        assert_eq!(e.fault, K::TooDeep);
        assert_eq!(e.offset, usize::from(DEFAULT_MAX_DEPTH));
        // Exactly at the limit is fine.
        let mut ok = [0u8; 64];
        ok[..32].fill(b'[');
        ok[32..].fill(b']');
        let ok = core::str::from_utf8(&ok).unwrap();
        assert!(Scanner::new(ok).document(Limits::default()).is_ok());
        let huge = Limits { max_depth: 255 };
        let e = Scanner::new(deep).document(huge).unwrap_err();
        assert_eq!(e.offset, usize::from(MAX_DEPTH_LIMIT));
    }

    /// Where a checked value starting at `pos` ends, one byte at a time (the reference for the
    /// word-at-a-time `skip_checked`).
    fn reference_skip(bytes: &[u8], mut pos: usize) -> usize {
        let (mut depth, mut in_string) = (0usize, false);
        let scalar = !matches!(bytes[pos], b'"' | b'{' | b'[');
        while pos < bytes.len() {
            let b = bytes[pos];
            pos += 1;
            if in_string {
                match b {
                    b'\\' => pos += 1,
                    b'"' => {
                        in_string = false;
                        if depth == 0 {
                            return pos;
                        }
                    }
                    _ => {}
                }
                continue;
            }
            if scalar && matches!(b, b',' | b'}' | b']' | b' ') {
                return pos - 1;
            }
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return pos;
                    }
                }
                _ => {}
            }
        }
        pos
    }

    #[test]
    fn skipping_checked_values_matches_a_byte_by_byte_skip() {
        // Random documents with strings holding brackets, quotes and backslashes (escaped),
        // long keys, and every nesting shape; every value start is skipped both ways.
        let pieces = [
            r#""io.modelcontextprotocol/protocolVersion""#,
            r#""a\"b]}""#,
            r#""\\""#,
            r#""{[é\u00e9]}""#,
            r#""""#,
            "12.5e-3",
            "true",
            "null",
            r#""0123456789abcdef0123456789""#,
        ];
        let mut state = 0x853c_49e6_748f_ea9bu64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        fn value(next: &mut dyn FnMut(usize) -> usize, pieces: &[&str], depth: usize) -> String {
            let count = next(4);
            match next(3) {
                0 if depth < 6 => {
                    let members: std::vec::Vec<String> = (0..count)
                        .map(|_| {
                            let key = pieces[[0, 1, 8][next(3)]];
                            std::format!("{key}:{}", value(next, pieces, depth + 1))
                        })
                        .collect();
                    std::format!("{{{}}}", members.join(","))
                }
                1 if depth < 6 => {
                    let elements: std::vec::Vec<String> =
                        (0..count).map(|_| value(next, pieces, depth + 1)).collect();
                    std::format!("[{}]", elements.join(","))
                }
                _ => pieces[next(pieces.len())].into(),
            }
        }
        use std::string::String;
        for _ in 0..300 {
            let doc = value(&mut next, &pieces, 0);
            let doc = std::format!("[{doc}]");
            assert!(
                Scanner::new(&doc).document(Limits::default()).is_ok(),
                "{doc}"
            );
            let bytes = doc.as_bytes();
            // Every position where a value starts: after `[`, `,` or `:` outside strings.
            let mut starts = std::vec::Vec::new();
            let mut in_string = false;
            let mut i = 0;
            while i < bytes.len() {
                match (in_string, bytes[i]) {
                    (true, b'\\') => i += 1,
                    (true, b'"') | (false, b'"') => in_string = !in_string,
                    (false, b'[' | b',' | b':') if bytes[i + 1] != b']' => starts.push(i + 1),
                    _ => {}
                }
                i += 1;
            }
            for start in starts {
                let mut scan = Scanner::at(&doc, start);
                scan.skip_checked();
                assert_eq!(scan.pos, reference_skip(bytes, start), "{doc} at {start}");
            }
        }
    }
}
