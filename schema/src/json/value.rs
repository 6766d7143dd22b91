//! Borrowed, checked views of JSON values.
//!
//! [`Value::parse`] checks the whole document once. After that, no accessor can fail or panic:
//! iterators simply end, and conversions return `None` on a type mismatch.

use super::error::{DecodeError, DecodeErrorKind as K};
use super::number::Number;
use super::scan::{check_utf8, hex_digit, Limits, Scanner};
use super::words::find_byte;

/// The six JSON types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Kind {
    /// `null`
    Null,
    /// `true` or `false`
    Bool,
    /// a number
    Number,
    /// a string
    String,
    /// an array
    Array,
    /// an object
    Object,
}

impl Kind {
    /// The JSON Schema name of the type (`"null"`, `"boolean"`, `"number"`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "boolean",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Array => "array",
            Kind::Object => "object",
        }
    }
}

/// A checked JSON value: the exact text of one value in its document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Value<'a> {
    raw: &'a str,
}

impl<'a> Value<'a> {
    /// Checks a complete document (whitespace around the value allowed) with default [`Limits`].
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        Self::parse_with(bytes, Limits::default())
    }

    /// Checks a complete document with explicit limits.
    pub fn parse_with(bytes: &'a [u8], limits: Limits) -> Result<Self, DecodeError> {
        let text = check_utf8(bytes)?;
        let (start, end) = Scanner::new(text).document(limits)?;
        Ok(Self {
            raw: text.get(start..end).unwrap_or_default(),
        })
    }

    #[doc(hidden)]
    pub const fn from_checked(raw: &'a str) -> Self {
        Self { raw }
    }

    /// The value that this crate's [`Serializer`](super::Serializer) wrote into `bytes` without
    /// error: well-formed JSON by construction (see the serializer's documentation), so only
    /// the UTF-8 of the slice is checked, not its grammar again. Bytes from anywhere else
    /// must go through [`Value::parse`].
    #[doc(hidden)]
    pub fn from_serialized(bytes: &'a [u8]) -> Option<Self> {
        let raw = core::str::from_utf8(bytes).ok()?;
        (!raw.is_empty()).then_some(Self { raw })
    }

    /// The value's exact text (no surrounding whitespace).
    pub fn raw(&self) -> &'a str {
        self.raw
    }

    /// The value's type.
    pub fn kind(&self) -> Kind {
        match self.raw.as_bytes().first() {
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b'"') => Kind::String,
            Some(b't' | b'f') => Kind::Bool,
            Some(b'n') => Kind::Null,
            _ => Kind::Number,
        }
    }

    /// True for `null`.
    pub fn is_null(&self) -> bool {
        self.kind() == Kind::Null
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self.raw {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(&self) -> Option<Number<'a>> {
        (self.kind() == Kind::Number).then(|| Number::from_checked(self.raw))
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<JsonStr<'a>> {
        if self.kind() != Kind::String {
            return None;
        }
        let body = self.raw.get(1..self.raw.len().saturating_sub(1))?;
        Some(JsonStr { body })
    }

    /// The members of an object, in document order.
    pub fn members(&self) -> Option<Members<'a>> {
        (self.kind() == Kind::Object).then(|| Members {
            scan: Scanner::at(self.raw, 1),
        })
    }

    /// The elements of an array, in document order.
    pub fn elements(&self) -> Option<Elements<'a>> {
        (self.kind() == Kind::Array).then(|| Elements {
            scan: Scanner::at(self.raw, 1),
        })
    }

    /// The first member named `key` of an object (`None` if absent or not an object).
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        self.members()?.find(|(k, _)| k.eq_str(key)).map(|(_, v)| v)
    }

    /// The element at `index` of an array.
    pub fn index(&self, index: usize) -> Option<Value<'a>> {
        self.elements()?.nth(index)
    }
}

/// Moves past the value at the scanner's position (already checked) and returns it.
fn next_value<'a>(scan: &mut Scanner<'a>) -> Option<Value<'a>> {
    scan.skip_ws();
    let start = scan.pos;
    scan.skip_checked();
    (scan.pos > start).then(|| Value::from_checked(scan.slice_str(start, scan.pos)))
}

/// Steps onto the value at the scanner's position (already checked) without always scanning
/// it: a scalar comes back exact with the scanner past it (`false`); a container comes back
/// open-ended, its text running on to the end of the enclosing text, with the scanner left at
/// its start (`true`), and the caller must then [`resume`] past it.
///
/// This lets the deserializer walk a nested container once (while deserialising it) instead of
/// twice (once to find its end, once to read it).
fn open_value<'a>(scan: &mut Scanner<'a>) -> Option<(Value<'a>, bool)> {
    scan.skip_ws();
    let start = scan.pos;
    match scan.peek()? {
        b'{' | b'[' => Some((Value::from_checked(scan.slice_str(start, scan.len())), true)),
        _ => next_value(scan).map(|v| (v, false)),
    }
}

/// Moves past a value returned open by [`open_value`]: to address `end` (just past the
/// value) when the caller walked it and knows it, else by scanning over it.
fn resume(scan: &mut Scanner<'_>, value: Value<'_>, end: Option<usize>) {
    let Some(start) = scan.pos_of_addr(value.raw().as_ptr() as usize) else {
        return;
    };
    match end
        .and_then(|end| scan.pos_of_addr(end))
        .filter(|&end| end > start)
    {
        Some(end) => scan.pos = end,
        None => {
            scan.pos = start;
            scan.skip_checked();
        }
    }
}

/// The address just past the container's closing `close`, once the scanner is before it.
fn end_addr(scan: &mut Scanner<'_>, close: u8) -> Option<usize> {
    (scan.token()? == close).then(|| scan.addr().saturating_add(1))
}

/// Iterator over the members of an object: `(key, value)` pairs.
#[derive(Debug, Clone)]
pub struct Members<'a> {
    /// At byte 1 (just inside the bracket) until the first item is stepped onto.
    scan: Scanner<'a>,
}

impl<'a> Members<'a> {
    /// The next member with its key as a string [`Value`] (quotes included).
    pub(crate) fn next_pair(&mut self) -> Option<(Value<'a>, Value<'a>)> {
        let key = self.next_key()?;
        let value = next_value(&mut self.scan)?;
        Some((key, value))
    }

    /// The next member's key (a string [`Value`], quotes included); the scanner is left at the
    /// member's value, which must be stepped over next ([`Members::open_value`] or
    /// [`Members::skip_value`]).
    pub(crate) fn next_key(&mut self) -> Option<Value<'a>> {
        self.next_key_escaped().map(|(key, _)| key)
    }

    /// [`Members::next_key`] with whether the key holds an escape (known from stepping over it).
    pub(crate) fn next_key_escaped(&mut self) -> Option<(Value<'a>, bool)> {
        let (start, end, escaped) = self.step_key()?;
        Some((
            Value::from_checked(self.scan.slice_str(start, end)),
            escaped,
        ))
    }

    /// Steps over the next key and its colon: the key's span (quotes included) and whether it
    /// holds an escape.
    fn step_key(&mut self) -> Option<(usize, usize, bool)> {
        let first = self.scan.pos == 1;
        let b = self.scan.token()?;
        if b == b'}' {
            return None;
        }
        if !first {
            if b != b',' {
                return None;
            }
            self.scan.bump();
        }
        if self.scan.token()? != b'"' {
            return None;
        }
        let start = self.scan.pos;
        let escaped = self.scan.skip_checked_string();
        let end = self.scan.pos;
        if self.scan.token()? != b':' {
            return None;
        }
        self.scan.bump();
        Some((start, end, escaped))
    }

    /// Steps onto the current member's value; see [`open_value`].
    pub(crate) fn open_value(&mut self) -> Option<(Value<'a>, bool)> {
        open_value(&mut self.scan)
    }

    /// Moves past a value returned open; see [`resume`].
    pub(crate) fn resume(&mut self, value: Value<'a>, end: Option<usize>) {
        resume(&mut self.scan, value, end);
    }

    /// Moves past the current member's value.
    pub(crate) fn skip_value(&mut self) {
        self.scan.skip_ws();
        self.scan.skip_checked();
    }

    /// Steps over the remaining members; the address just past the closing `}`.
    pub(crate) fn end_addr(&mut self) -> Option<usize> {
        while self.next_pair().is_some() {}
        end_addr(&mut self.scan, b'}')
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = (JsonStr<'a>, Value<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        // The key's escape flag comes from stepping over it: no second scan of the key.
        let (start, end, _) = self.step_key()?;
        let body = self
            .scan
            .slice_str(start.wrapping_add(1), end.saturating_sub(1));
        let value = next_value(&mut self.scan)?;
        Some((JsonStr { body }, value))
    }
}

/// Iterator over the elements of an array.
#[derive(Debug, Clone)]
pub struct Elements<'a> {
    /// At byte 1 (just inside the bracket) until the first item is stepped onto.
    scan: Scanner<'a>,
}

impl<'a> Elements<'a> {
    /// Steps to the next element; the scanner is left at it.
    fn step(&mut self) -> Option<()> {
        let first = self.scan.pos == 1;
        let b = self.scan.token()?;
        if b == b']' {
            return None;
        }
        if !first {
            if b != b',' {
                return None;
            }
            self.scan.bump();
        }
        Some(())
    }

    /// The next element, a container left open; see [`open_value`].
    pub(crate) fn next_open(&mut self) -> Option<(Value<'a>, bool)> {
        self.step()?;
        open_value(&mut self.scan)
    }

    /// Moves past an element returned open; see [`resume`].
    pub(crate) fn resume(&mut self, value: Value<'a>, end: Option<usize>) {
        resume(&mut self.scan, value, end);
    }

    /// Steps over the remaining elements; the address just past the closing `]`.
    pub(crate) fn end_addr(&mut self) -> Option<usize> {
        while self.next().is_some() {}
        end_addr(&mut self.scan, b']')
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = Value<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        self.step()?;
        next_value(&mut self.scan)
    }
}

/// A checked JSON string, still escaped as in the input.
///
/// Compare it with [`JsonStr::eq_str`], walk its characters with [`JsonStr::chars`], or decode it
/// into a buffer with [`JsonStr::decode_into`]; none of these allocate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonStr<'a> {
    /// The text between the quotes. Whether it holds an escape is looked up when asked (one
    /// word less keeps `Option<JsonStr>` in two registers on 32-bit targets).
    body: &'a str,
}

impl<'a> JsonStr<'a> {
    /// A string of checked JSON text: `body` is what stands between the quotes (whether it
    /// holds escapes is looked up when asked).
    #[doc(hidden)]
    pub const fn from_checked(body: &'a str) -> Self {
        Self { body }
    }

    /// The text between the quotes, escapes included.
    pub fn raw(&self) -> &'a str {
        self.body
    }

    /// True when the string contains escapes.
    pub fn has_escapes(&self) -> bool {
        find_byte(self.body.as_bytes(), b'\\').is_some()
    }

    /// The string itself when it has no escapes (then it can be borrowed as is).
    pub fn as_plain(&self) -> Option<&'a str> {
        (!self.has_escapes()).then_some(self.body)
    }

    /// The decoded characters.
    pub fn chars(&self) -> Chars<'a> {
        Chars {
            rest: self.body.chars(),
        }
    }

    /// Number of Unicode code points (what JSON Schema `minLength`/`maxLength` count).
    pub fn char_count(&self) -> usize {
        if self.has_escapes() {
            self.chars().count()
        } else {
            self.body.chars().count()
        }
    }

    /// Length in bytes once decoded as UTF-8.
    pub fn decoded_len(&self) -> usize {
        if self.has_escapes() {
            self.chars().map(char::len_utf8).sum()
        } else {
            self.body.len()
        }
    }

    /// True when the decoded string equals `s`.
    pub fn eq_str(&self, s: &str) -> bool {
        // An escape makes the decoded text shorter than the raw text: equal lengths compare
        // the bytes (and then there must be no escape), a shorter raw text never matches.
        match self.body.len().cmp(&s.len()) {
            core::cmp::Ordering::Equal => self.body == s && !self.has_escapes(),
            core::cmp::Ordering::Greater => self.has_escapes() && self.chars().eq(s.chars()),
            core::cmp::Ordering::Less => false,
        }
    }

    /// Decodes into `buf` and returns the decoded text.
    pub fn decode_into<'b>(&self, buf: &'b mut [u8]) -> Result<&'b str, DecodeError> {
        let mut n = 0usize;
        for c in self.chars() {
            // Through a 4-byte array: `encode_utf8` into a slice keeps a panic path for a
            // slice too short, which the optimiser cannot always rule out.
            let mut bytes = [0u8; 4];
            let encoded = c.encode_utf8(&mut bytes).as_bytes();
            let len = encoded.len();
            let dst = buf
                .get_mut(n..)
                .and_then(|rest| rest.get_mut(..len))
                .ok_or(DecodeError::new(K::ScratchTooSmall, n))?;
            dst.iter_mut().zip(encoded).for_each(|(d, s)| *d = *s);
            // `n + len` is within `buf` (the slot above): no wrap.
            n = n.wrapping_add(len);
        }
        let done = buf.get(..n).unwrap_or_default();
        core::str::from_utf8(done).map_err(|_| DecodeError::new(K::InvalidUtf8, 0))
    }
}

/// Iterator over the decoded characters of a [`JsonStr`].
#[derive(Debug, Clone)]
pub struct Chars<'a> {
    rest: core::str::Chars<'a>,
}

impl Chars<'_> {
    fn hex4(&mut self) -> Option<u32> {
        let mut v = 0u32;
        for _ in 0..4 {
            let c = self.rest.next()?;
            let d = hex_digit(u8::try_from(c).ok()?)?;
            v = (v << 4) | u32::from(d);
        }
        Some(v)
    }
}

impl Iterator for Chars<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        let c = self.rest.next()?;
        if c != '\\' {
            return Some(c);
        }
        Some(match self.rest.next()? {
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'u' => {
                let unit = self.hex4()?;
                if (0xD800..0xDC00).contains(&unit) {
                    // Checked input: a low surrogate escape follows.
                    self.rest.next()?;
                    self.rest.next()?;
                    let low = self.hex4()?;
                    // unit in 0xD800..0xDC00: at most 0x10000 + 0xFFC00 + 0x3FF, no wrap.
                    let cp = 0x10000u32
                        .wrapping_add(unit.wrapping_sub(0xD800) << 10)
                        .wrapping_add(low.wrapping_sub(0xDC00) & 0x3ff);
                    char::from_u32(cp)?
                } else {
                    char::from_u32(unit)?
                }
            }
            other => other, // `"`, `\`, `/`
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_objects_and_arrays() {
        let v = Value::parse(br#" {"a": [1, 2.5, "x\n"], "b": {"c": null}, "a\u0062": true} "#)
            .unwrap();
        assert_eq!(v.kind(), Kind::Object);
        let a = v.get("a").unwrap();
        assert_eq!(a.raw(), r#"[1, 2.5, "x\n"]"#);
        let items: std::vec::Vec<_> = a.elements().unwrap().map(|e| e.raw()).collect();
        assert_eq!(items, ["1", "2.5", "\"x\\n\""]);
        assert!(v.get("b").unwrap().get("c").unwrap().is_null());
        assert_eq!(v.get("ab").unwrap().as_bool(), Some(true));
        assert!(v.get("zz").is_none());
        assert_eq!(a.index(1).unwrap().as_number().unwrap().as_f64(), Some(2.5));
    }

    #[test]
    fn strings_decode() {
        let v = Value::parse(br#""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00z""#).unwrap();
        let s = v.as_str().unwrap();
        let mut buf = [0u8; 64];
        let d = s.decode_into(&mut buf).unwrap();
        assert_eq!(d, "a\"\\/\u{8}\u{c}\n\r\té😀z");
        assert!(s.eq_str(d));
        assert_eq!(s.char_count(), d.chars().count());
        assert_eq!(s.decoded_len(), d.len());
        let mut small = [0u8; 3];
        assert_eq!(
            s.decode_into(&mut small).unwrap_err().kind,
            K::ScratchTooSmall
        );
    }

    #[test]
    fn rejects_bad_utf8_and_trailing() {
        assert_eq!(Value::parse(b"\"\xff\"").unwrap_err().kind, K::InvalidUtf8);
        assert_eq!(Value::parse(b"{} x").unwrap_err().kind, K::TrailingData);
    }

    #[test]
    fn eq_str_compares_decoded_text() {
        let v = Value::parse(br#"["a\\b", "\u0041", "ab", "a\"b"]"#).unwrap();
        let s: std::vec::Vec<_> = v.elements().unwrap().map(|e| e.as_str().unwrap()).collect();
        // `a\\b` is `a\b`: the raw bytes are never the answer when there is an escape.
        assert!(s[0].eq_str("a\\b"));
        assert!(!s[0].eq_str("a\\\\b"));
        assert!(s[1].eq_str("A"));
        assert!(!s[1].eq_str("\\u0041"));
        assert!(s[2].eq_str("ab"));
        assert!(!s[2].eq_str("abc"));
        assert!(!s[2].eq_str("a"));
        assert!(s[3].eq_str("a\"b"));
        assert_eq!(
            s.iter()
                .map(|j| j.has_escapes())
                .collect::<std::vec::Vec<_>>(),
            [true, true, false, true]
        );
        assert_eq!(s[2].as_plain(), Some("ab"));
        assert_eq!(s[0].as_plain(), None);
    }

    #[test]
    fn member_keys_know_their_escapes() {
        let v = Value::parse(br#"{"a\u0062": 1, "ab": 2}"#).unwrap();
        let keys: std::vec::Vec<_> = v.members().unwrap().map(|(k, _)| k).collect();
        assert!(keys[0].has_escapes() && keys[0].eq_str("ab"));
        assert!(!keys[1].has_escapes() && keys[1].eq_str("ab"));
    }

    #[test]
    fn a_string_lookup_fits_two_words() {
        assert!(core::mem::size_of::<Option<JsonStr<'_>>>() <= 2 * core::mem::size_of::<usize>());
    }

    #[test]
    fn items_after_whitespace_inside_the_brackets() {
        let v = Value::parse(b"[ {  }, [ ], { \"a\" : [ 1 , 2 ] ,\"b\":{ \"c\" :3 } } ]").unwrap();
        let items: std::vec::Vec<_> = v.elements().unwrap().collect();
        assert_eq!(items.len(), 3);
        assert_eq!(items[0].members().unwrap().count(), 0);
        assert_eq!(items[1].elements().unwrap().count(), 0);
        let keys: std::vec::Vec<_> = items[2]
            .members()
            .unwrap()
            .map(|(k, v)| (k.raw(), v.raw()))
            .collect();
        assert_eq!(keys, [("a", "[ 1 , 2 ]"), ("b", "{ \"c\" :3 }")]);
        let a: std::vec::Vec<_> = items[2]
            .get("a")
            .unwrap()
            .elements()
            .unwrap()
            .map(|e| e.raw())
            .collect();
        assert_eq!(a, ["1", "2"]);
        assert_eq!(items[2].get("b").unwrap().get("c").unwrap().raw(), "3");
    }
}
