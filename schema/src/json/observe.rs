//! What a caller learns while the scanner checks a value ([`Observer`]), and how the scanning
//! loop sees it.

/// The deepest level an [`Observer`] can ask for.
pub(crate) const MAX_OBSERVED: u32 = 3;

/// What a caller learns while a value is checked, so that one pass both checks a document and
/// finds the members the caller needs (instead of walking the checked text again).
///
/// Levels are relative to the checked value: the members of an object value are level 1, the
/// members of an object inside one of them level 2, and so on. Only levels `1..=LEVELS` are
/// reported. Spans are byte positions in the scanner's text; they are checked JSON only once
/// the whole value has been checked.
#[doc(hidden)]
pub trait Observer {
    /// Deepest level reported, at most [`MAX_OBSERVED`]; 0 reports nothing.
    const LEVELS: u32;
    /// A member key at `level`: the UTF-8 bytes between its quotes, still escaped when
    /// `escaped`.
    fn key(&mut self, level: u32, body: &[u8], escaped: bool);
    /// A complete value at `level` (an object member or an array element) spans `start..end`.
    fn value(&mut self, level: u32, start: usize, end: usize);
}

/// The observer of a plain check.
pub(super) struct Unobserved;

impl Observer for Unobserved {
    const LEVELS: u32 = 0;
    #[inline(always)]
    fn key(&mut self, _: u32, _: &[u8], _: bool) {}
    #[inline(always)]
    fn value(&mut self, _: u32, _: usize, _: usize) {}
}

/// An [`Observer`] as the scanning loop sees it, its levels passed as a number. Below 64 bits
/// the loop takes it through a vtable and is compiled once whatever the observers (a plain
/// check and the envelope's finder would otherwise each have their own copy in flash).
pub(super) trait Watch {
    fn key(&mut self, level: u32, body: &[u8], escaped: bool);
    fn value(&mut self, level: u32, start: usize, end: usize);
}

impl<O: Observer> Watch for O {
    fn key(&mut self, level: u32, body: &[u8], escaped: bool) {
        Observer::key(self, level, body, escaped);
    }
    fn value(&mut self, level: u32, start: usize, end: usize) {
        Observer::value(self, level, start, end);
    }
}
