//! The pattern compiler: ECMA-262 source in, automaton ops out.
//!
//! It runs twice per pattern: [`check`] parses without writing anything (is the pattern inside
//! the subset, and how many states does it need), then [`compile_into`] writes the states,
//! followed by the class ranges (identical range lists are stored once). The parser does not
//! recurse except for groups (at most [`MAX_GROUP_DEPTH`]) and keeps no buffer.

use super::{class, MAX_CLASS_RANGES, MAX_GROUP_DEPTH, MAX_PARSE_WORK, MAX_REPEAT, MAX_STATES};
use crate::schema::program::Op;

/// End of a jump chain.
const NIL: u8 = u8::MAX;

/// Why a pattern could not be compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RegexError {
    /// Outside the subset; the reason in a few words.
    Refused(&'static str),
    /// The output slice is too small.
    Full,
}

type Result<T> = core::result::Result<T, RegexError>;

const fn refused<T>(reason: &'static str) -> Result<T> {
    Err(RegexError::Refused(reason))
}

/// Checks that `pattern` is inside the subset, writing nothing; returns its number of states.
pub(crate) fn check(pattern: &str) -> Result<u8> {
    let mut p = Parser::new(pattern, None, 0);
    p.run()?;
    Ok(p.states)
}

/// Writes the automaton of `pattern` into `out`: `states` states (what [`check`] returned),
/// then the class ranges. Returns the number of ops written.
pub(crate) fn compile_into(pattern: &str, states: u8, out: &mut [Op]) -> Result<usize> {
    let mut p = Parser::new(pattern, Some(out), states);
    p.run()?;
    if p.states != states {
        return Err(RegexError::Full);
    }
    // At most MAX_STATES states and as many ranges as the parse work budget allows.
    Ok(usize::from(states).wrapping_add(p.ranges))
}

/// Position of the first `byte` (ASCII) in `s`: a plain loop, smaller than `str::find`'s
/// searcher.
fn byte_position(s: &str, byte: u8) -> Option<usize> {
    s.bytes().position(|b| b == byte)
}

/// The byte offset `n` bytes after `pos`. Every offset the parser makes is at most
/// `src.len() + 10` (a `str` is at most `isize::MAX` bytes), so this never wraps; an offset past
/// the end reads as no character.
const fn fwd(pos: usize, n: usize) -> usize {
    pos.wrapping_add(n)
}

/// What one escape sequence (after the backslash) denotes.
#[derive(Debug, Clone, Copy)]
enum Escape {
    Char(char),
    Set(u8),
}

struct Parser<'a, 'o> {
    src: &'a str,
    /// Where ops go; `None` for a dry run.
    out: Option<&'o mut [Op]>,
    /// States emitted so far.
    states: u8,
    /// Where class ranges start in `out` (the total number of states).
    range_base: usize,
    /// Class ranges stored (or, in a dry run, counted).
    ranges: usize,
    depth: u8,
    work: u32,
}

impl<'a, 'o> Parser<'a, 'o> {
    fn new(src: &'a str, out: Option<&'o mut [Op]>, states: u8) -> Self {
        Self {
            src,
            out,
            states: 0,
            range_base: usize::from(states),
            ranges: 0,
            depth: 0,
            work: 0,
        }
    }

    fn run(&mut self) -> Result<()> {
        self.disjunction(0, self.src.len())?;
        self.emit(Op::ReMatch)?;
        Ok(())
    }

    fn here(&self) -> u8 {
        self.states
    }

    fn emit(&mut self, inst: Op) -> Result<u8> {
        let at = self.states;
        if usize::from(at) >= MAX_STATES {
            return refused("pattern too large");
        }
        if let Some(out) = self.out.as_deref_mut() {
            *out.get_mut(usize::from(at)).ok_or(RegexError::Full)? = inst;
        }
        // `at < MAX_STATES` (128), checked above: fits in a `u8`.
        self.states = at.wrapping_add(1);
        Ok(at)
    }

    fn patch(&mut self, at: u8, inst: Op) {
        if let Some(slot) = self
            .out
            .as_deref_mut()
            .and_then(|o| o.get_mut(usize::from(at)))
        {
            *slot = inst;
        }
    }

    fn tick(&mut self) -> Result<()> {
        self.work = self.work.saturating_add(1);
        if self.work > MAX_PARSE_WORK {
            return refused("pattern too large");
        }
        Ok(())
    }

    fn char_at(&self, pos: usize) -> Option<char> {
        self.src.get(pos..)?.chars().next()
    }

    /// `a|b|c` in `src[start..end]`.
    fn disjunction(&mut self, start: usize, end: usize) -> Result<()> {
        let mut alt_start = start;
        // The jumps out of each alternative, chained through their targets until patched.
        let mut pending_jumps = NIL;
        loop {
            let alt_end = self.alternative_end(alt_start, end)?;
            if alt_end >= end {
                self.alternative(alt_start, end)?;
                break;
            }
            let split = self.emit(Op::ReSplit(0, 0))?;
            self.alternative(alt_start, alt_end)?;
            let jmp = self.emit(Op::ReJmp(pending_jumps))?;
            pending_jumps = jmp;
            let next = self.here();
            self.patch(split, Op::ReSplit(split.wrapping_add(1), next)); // split < MAX_STATES
            alt_start = fwd(alt_end, 1); // past `|`
        }
        let target = self.here();
        while pending_jumps != NIL {
            let next = match self
                .out
                .as_deref()
                .and_then(|o| o.get(usize::from(pending_jumps)))
            {
                Some(Op::ReJmp(n)) => *n,
                _ => NIL, // a dry run keeps no chain
            };
            self.patch(pending_jumps, Op::ReJmp(target));
            pending_jumps = next;
        }
        Ok(())
    }

    /// Position of the next top-level `|` in `src[start..end]`, or `end`.
    fn alternative_end(&mut self, start: usize, end: usize) -> Result<usize> {
        let mut pos = start;
        while pos < end {
            self.tick()?;
            match self.char_at(pos) {
                Some('|') => return Ok(pos),
                Some('^' | '$') => pos = fwd(pos, 1),
                Some(_) => {
                    pos = self.skip_atom(pos, end)?;
                    pos = self.skip_quantifier(pos, end)?.0;
                }
                None => break,
            }
        }
        Ok(end)
    }

    fn alternative(&mut self, start: usize, end: usize) -> Result<()> {
        let mut pos = start;
        while pos < end {
            self.tick()?;
            match self.char_at(pos) {
                Some('^') => {
                    self.emit(Op::ReStart)?;
                    pos = fwd(pos, 1);
                    self.no_quantifier(pos, end)?;
                }
                Some('$') => {
                    self.emit(Op::ReEnd)?;
                    pos = fwd(pos, 1);
                    self.no_quantifier(pos, end)?;
                }
                Some(_) => {
                    let atom_end = self.skip_atom(pos, end)?;
                    let (next, min, max) = self.skip_quantifier(atom_end, end)?;
                    self.repeat(pos, atom_end, min, max)?;
                    pos = next;
                }
                None => break,
            }
        }
        Ok(())
    }

    fn no_quantifier(&self, pos: usize, end: usize) -> Result<()> {
        if pos < end && matches!(self.char_at(pos), Some('*' | '+' | '?' | '{')) {
            return refused("quantified assertion");
        }
        Ok(())
    }

    fn repeat(&mut self, start: usize, end: usize, min: u32, max: Option<u32>) -> Result<()> {
        for _ in 0..min {
            self.atom(start, end)?;
        }
        match max {
            Some(max) => {
                for _ in min..max {
                    let split = self.emit(Op::ReSplit(0, 0))?;
                    self.atom(start, end)?;
                    let next = self.here();
                    // `split` is a state index, below MAX_STATES (128).
                    self.patch(split, Op::ReSplit(split.wrapping_add(1), next));
                }
            }
            None => {
                let split = self.emit(Op::ReSplit(0, 0))?;
                self.atom(start, end)?;
                self.emit(Op::ReJmp(split))?;
                let next = self.here();
                // `split` is a state index, below MAX_STATES (128).
                self.patch(split, Op::ReSplit(split.wrapping_add(1), next));
            }
        }
        Ok(())
    }

    /// Reads a quantifier at `pos`: `(next position, min, max)`; `(pos, 1, Some(1))` when none.
    fn skip_quantifier(&self, pos: usize, end: usize) -> Result<(usize, u32, Option<u32>)> {
        if pos >= end {
            return Ok((pos, 1, Some(1)));
        }
        let (next, min, max) = match self.char_at(pos) {
            Some('*') => (fwd(pos, 1), 0, None),
            Some('+') => (fwd(pos, 1), 1, None),
            Some('?') => (fwd(pos, 1), 0, Some(1)),
            Some('{') => self.braces(pos, end)?,
            _ => return Ok((pos, 1, Some(1))),
        };
        let next = if next < end && self.char_at(next) == Some('?') {
            fwd(next, 1)
        } else {
            next
        };
        if next < end && matches!(self.char_at(next), Some('*' | '+' | '?' | '{')) {
            return refused("nothing to repeat");
        }
        Ok((next, min, max))
    }

    fn braces(&self, pos: usize, end: usize) -> Result<(usize, u32, Option<u32>)> {
        let Some(body) = self.src.get(fwd(pos, 1)..end) else {
            return refused("unterminated quantifier");
        };
        let Some(close) = byte_position(body, b'}') else {
            return refused("literal `{` (escape it)");
        };
        let inner = body.get(..close).unwrap_or_default();
        let number = |s: &str| -> Result<u32> {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return refused("literal `{` (escape it)");
            }
            // Saturating: any count above MAX_REPEAT is refused the same way.
            // `b` is an ASCII digit (checked above), so `b - b'0'` does not wrap.
            let n = s.bytes().fold(0u32, |n, b| {
                n.saturating_mul(10)
                    .saturating_add(u32::from(b.wrapping_sub(b'0')))
            });
            if n > MAX_REPEAT {
                return refused("repetition count above 100");
            }
            Ok(n)
        };
        let (min, max) = match byte_position(inner, b',') {
            None => {
                let n = number(inner)?;
                (n, Some(n))
            }
            Some(comma) => {
                let lo = inner.get(..comma).unwrap_or_default();
                match inner.get(fwd(comma, 1)..).unwrap_or_default() {
                    "" => (number(lo)?, None),
                    hi => (number(lo)?, Some(number(hi)?)),
                }
            }
        };
        if max.is_some_and(|m| m < min) {
            return refused("quantifier range out of order");
        }
        Ok((fwd(pos, 1).wrapping_add(close).wrapping_add(1), min, max)) // `fwd` bound
    }

    /// The end of the atom starting at `pos`.
    fn skip_atom(&self, pos: usize, end: usize) -> Result<usize> {
        match self.char_at(pos) {
            Some('(') => {
                // Each `(` advances `p` by one byte, so `depth <= p - pos` never wraps; the
                // first character is `(`, so `depth >= 1` at every `)`.
                let mut depth = 0usize;
                let mut p = pos;
                while p < end {
                    match self.char_at(p) {
                        Some('\\') => p = self.escape(fwd(p, 1))?.1,
                        Some('[') => p = self.class_end(p, end)?,
                        Some('(') => {
                            depth = depth.wrapping_add(1);
                            p = fwd(p, 1);
                        }
                        Some(')') => {
                            depth = depth.wrapping_sub(1);
                            p = fwd(p, 1);
                            if depth == 0 {
                                return Ok(p);
                            }
                        }
                        Some(c) => p = fwd(p, c.len_utf8()),
                        None => break,
                    }
                }
                refused("unbalanced parenthesis")
            }
            Some('[') => self.class_end(pos, end),
            Some('\\') => Ok(self.escape(fwd(pos, 1))?.1),
            Some(')') => refused("unbalanced parenthesis"),
            Some('*' | '+' | '?') => refused("nothing to repeat"),
            Some('{') => refused("literal `{` (escape it)"),
            Some('}' | ']') => refused("unescaped `}` or `]`"),
            Some(c) => Ok(fwd(pos, c.len_utf8())),
            None => refused("empty atom"),
        }
    }

    /// Position after the `]` closing the class that starts at `pos`.
    fn class_end(&self, pos: usize, end: usize) -> Result<usize> {
        let mut p = fwd(pos, 1);
        if self.char_at(p) == Some('^') {
            p = fwd(p, 1);
        }
        while p < end {
            match self.char_at(p) {
                Some(']') => return Ok(fwd(p, 1)),
                Some('\\') => p = self.escape(fwd(p, 1))?.1,
                Some(c) => p = fwd(p, c.len_utf8()),
                None => break,
            }
        }
        refused("unterminated character class")
    }

    /// Emits the atom `src[start..end]` once.
    fn atom(&mut self, start: usize, end: usize) -> Result<()> {
        self.tick()?;
        match self.char_at(start) {
            Some('(') => {
                let rest = self.src.get(fwd(start, 1)..).unwrap_or_default();
                let inner_start = if rest.starts_with("?:") {
                    fwd(start, 3)
                } else if rest.starts_with('?') {
                    return refused("lookaround or named group");
                } else {
                    fwd(start, 1)
                };
                if self.depth >= MAX_GROUP_DEPTH {
                    return refused("groups nested too deeply");
                }
                // Below MAX_GROUP_DEPTH (checked above); `end` is past the group's `)`.
                self.depth = self.depth.wrapping_add(1);
                let r = self.disjunction(inner_start, end.saturating_sub(1));
                self.depth = self.depth.wrapping_sub(1);
                r
            }
            Some('[') => self.class(start, end),
            Some('.') => self.emit(Op::ReAny).map(drop),
            Some('\\') => match self.escape(fwd(start, 1))?.0 {
                Escape::Char(c) => self.emit(Op::ReChar(c)).map(drop),
                Escape::Set(sets) => self.emit_class(self.ranges, 0, sets).map(drop),
            },
            Some(c) => self.emit(Op::ReChar(c)).map(drop),
            None => refused("empty atom"),
        }
    }

    /// Emits a class state over `count` ranges stored from range index `first`.
    fn emit_class(&mut self, first: usize, count: usize, flags: u8) -> Result<u8> {
        // `range_base <= MAX_STATES` and `first` is bounded by the parse work budget.
        let at =
            u16::try_from(self.range_base.wrapping_add(first)).map_err(|_| RegexError::Full)?;
        let ranges = u8::try_from(count).map_err(|_| RegexError::Full)?;
        self.emit(Op::ReClass { at, ranges, flags })
    }

    fn class(&mut self, start: usize, end: usize) -> Result<()> {
        let mut p = fwd(start, 1);
        let mut flags = 0u8;
        if self.char_at(p) == Some('^') {
            flags |= class::NEGATED;
            p = fwd(p, 1);
        }
        let first = self.ranges;
        let close = end.saturating_sub(1); // the `]` (`end` is past it)
        while p < close {
            let (lo, next) = self.class_atom(p)?;
            p = next;
            let lo = match lo {
                Escape::Set(s) => {
                    flags |= s;
                    continue;
                }
                Escape::Char(c) => c,
            };
            if self.char_at(p) == Some('-') && fwd(p, 1) < close {
                let (hi, next) = self.class_atom(fwd(p, 1))?;
                let Escape::Char(hi) = hi else {
                    return refused("class escape in a range");
                };
                if hi < lo {
                    return refused("class range out of order");
                }
                self.add_range(lo, hi)?;
                p = next;
            } else {
                self.add_range(lo, lo)?;
            }
        }
        // Ranges only grow while a class is parsed: `self.ranges >= first`.
        let count = self.ranges.wrapping_sub(first);
        if count > MAX_CLASS_RANGES {
            return refused("too many ranges in a class");
        }
        let first = self.shared_run(first, count);
        self.emit_class(first, count, flags).map(drop)
    }

    /// An earlier run of ranges identical to the `count` just stored from `first`; if there is
    /// one, the new copy is dropped and the earlier run's index is returned.
    fn shared_run(&mut self, first: usize, count: usize) -> usize {
        let base = self.range_base;
        let Some(out) = self.out.as_deref() else {
            return first;
        };
        // All three are bounded by `MAX_STATES` and the parse work budget.
        let start = base.wrapping_add(first);
        let (Some(stored), Some(new)) = (
            out.get(base..start),
            out.get(start..start.wrapping_add(count)),
        ) else {
            return first;
        };
        if count == 0 {
            return first;
        }
        match stored.windows(count).position(|w| w == new) {
            Some(earlier) => {
                self.ranges = first;
                earlier
            }
            None => first,
        }
    }

    fn class_atom(&self, p: usize) -> Result<(Escape, usize)> {
        match self.char_at(p) {
            Some('\\') => {
                if self.char_at(fwd(p, 1)) == Some('b') {
                    return Ok((Escape::Char('\u{8}'), fwd(p, 2)));
                }
                if self.char_at(fwd(p, 1)) == Some('-') {
                    return Ok((Escape::Char('-'), fwd(p, 2)));
                }
                self.escape(fwd(p, 1))
            }
            Some(c) => Ok((Escape::Char(c), fwd(p, c.len_utf8()))),
            None => refused("unterminated character class"),
        }
    }

    /// Stores one range of the class being parsed (after every state: at `range_base`).
    fn add_range(&mut self, lo: char, hi: char) -> Result<()> {
        self.tick()?;
        // Both are bounded by `MAX_STATES` and the parse work budget (`tick` above).
        let at = self.range_base.wrapping_add(self.ranges);
        if let Some(out) = self.out.as_deref_mut() {
            *out.get_mut(at).ok_or(RegexError::Full)? = Op::re_range(lo, hi);
        }
        self.ranges = self.ranges.wrapping_add(1);
        Ok(())
    }

    /// Reads the escape whose body starts at `p` (just after `\`).
    fn escape(&self, p: usize) -> Result<(Escape, usize)> {
        let Some(c) = self.char_at(p) else {
            return refused("trailing backslash");
        };
        let next = fwd(p, c.len_utf8());
        let simple = |ch: char| Ok((Escape::Char(ch), next));
        match c {
            'd' => Ok((Escape::Set(class::DIGIT), next)),
            'D' => Ok((Escape::Set(class::NOT_DIGIT), next)),
            'w' => Ok((Escape::Set(class::WORD), next)),
            'W' => Ok((Escape::Set(class::NOT_WORD), next)),
            's' => Ok((Escape::Set(class::SPACE), next)),
            'S' => Ok((Escape::Set(class::NOT_SPACE), next)),
            't' => simple('\t'),
            'n' => simple('\n'),
            'r' => simple('\r'),
            'f' => simple('\u{c}'),
            'v' => simple('\u{b}'),
            '0' => {
                if self.char_at(next).is_some_and(|d| d.is_ascii_digit()) {
                    refused("octal escape")
                } else {
                    simple('\0')
                }
            }
            'c' => match self.char_at(next) {
                Some(l) if l.is_ascii_alphabetic() => match char::from_u32(u32::from(l) % 32) {
                    Some(ch) => Ok((Escape::Char(ch), fwd(next, 1))),
                    None => refused("bad control escape"),
                },
                _ => refused("bad control escape"),
            },
            'x' => match char::from_u32(self.hex(next, 2)?) {
                Some(ch) => Ok((Escape::Char(ch), fwd(next, 2))),
                None => refused("bad hex escape"),
            },
            'u' => self.unicode_escape(next),
            '1'..='9' => refused("backreference"),
            'b' | 'B' => refused("word boundary assertion"),
            'p' | 'P' => refused("Unicode property escape"),
            'k' => refused("named backreference"),
            '-' => refused("`\\-` outside a class"),
            '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|'
            | '/' => simple(c),
            _ => refused("unknown escape"),
        }
    }

    fn unicode_escape(&self, p: usize) -> Result<(Escape, usize)> {
        const BAD: &str = "bad unicode escape";
        if self.char_at(p) == Some('{') {
            let body = self.src.get(fwd(p, 1)..).unwrap_or_default();
            let Some(close) = byte_position(body, b'}') else {
                return refused(BAD);
            };
            if close == 0 || close > 6 {
                return refused(BAD);
            }
            return match char::from_u32(self.hex(fwd(p, 1), close)?) {
                Some(ch) => Ok((
                    Escape::Char(ch),
                    fwd(p, 1).wrapping_add(close).wrapping_add(1),
                )), // `fwd` bound
                None => refused(BAD),
            };
        }
        let hi = self.hex(p, 4)?;
        if (0xD800..0xDC00).contains(&hi)
            && self
                .src
                .get(fwd(p, 4)..)
                .is_some_and(|r| r.starts_with("\\u"))
        {
            if let Ok(lo) = self.hex(fwd(p, 6), 4) {
                if (0xDC00..0xE000).contains(&lo) {
                    // A surrogate pair (both ranges checked): at most 0x10FFFF.
                    let cp = ((hi.wrapping_sub(0xD800) << 10) | lo.wrapping_sub(0xDC00))
                        .wrapping_add(0x10000);
                    return match char::from_u32(cp) {
                        Some(ch) => Ok((Escape::Char(ch), fwd(p, 10))),
                        None => refused(BAD),
                    };
                }
            }
        }
        match char::from_u32(hi) {
            Some(ch) => Ok((Escape::Char(ch), fwd(p, 4))),
            None => refused("lone surrogate escape"),
        }
    }

    fn hex(&self, p: usize, n: usize) -> Result<u32> {
        let Some(digits) = self.src.get(p..fwd(p, n)) else {
            return refused("bad hex escape");
        };
        let mut v = 0u32;
        for b in digits.bytes() {
            let Some(d) = char::from(b).to_digit(16) else {
                return refused("bad hex escape");
            };
            // At most 6 digits (callers pass 2, 4 or at most 6): below 16^6.
            v = v.wrapping_mul(16).wrapping_add(d);
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{is_match, verify};
    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// Compiles `p` the way the schema compiler does: a dry run, then into ops.
    pub(crate) fn compiled(p: &str) -> (u8, Vec<Op>) {
        let states = check(p).unwrap_or_else(|e| panic!("{p}: {e:?}"));
        let mut ops = vec![Op::False; 4096];
        let n = compile_into(p, states, &mut ops).unwrap();
        ops.truncate(n);
        assert!(
            verify(states, &ops),
            "{p}: compiled automaton fails its own check"
        );
        (states, ops)
    }

    fn m(p: &str, s: &str) -> bool {
        let (states, ops) = compiled(p);
        is_match(states, &ops, s.chars())
    }

    #[test]
    fn basics() {
        assert!(m("a+", "xaay"));
        assert!(!m("^a*$", "aab"));
        assert!(m("^a*$", ""));
        assert!(m("^abc$", "abc"));
        assert!(!m("^abc$", "abcd"));
        assert!(m("f.*o", "foo"));
        assert!(!m("^.$", "\n"));
        assert!(m("^.$", "🐲"));
        assert!(m("^🐲*$", "🐲🐲"));
        assert!(m("[0-9]{2,}", "a12"));
        assert!(!m("[0-9]{2,}", "a1b2"));
        assert!(m("^(ab|cd)+$", "abcdab"));
        assert!(!m("^(ab|cd)+$", "abc"));
        assert!(m("^(?:a|b)?c{2}$", "cc"));
        assert!(m("^[^a-c]$", "d"));
        assert!(!m("^[^a-c]$", "b"));
        assert!(m("^\\d{3}-\\w+$", "123-ab_c"));
        assert!(!m("^\\d$", "٣"));
        assert!(m("^\\s$", "\u{a0}"));
        assert!(m("^\\S$", "x"));
        assert!(m("^[\\d.]+$", "1.5"));
        assert!(m("^\\u0041\\x42\\cC$", "AB\u{3}"));
        assert!(m("^\\ud83d\\udc32$", "🐲"));
        assert!(m("^[a-]$", "-"));
        assert!(m("^a{0}$", ""));
        assert!(m("^(a*)*$", "aaa"));
        assert!(m("^(|a)b$", "b"));
        assert!(m("^x{1,3}?$", "xx"));
        assert!(m("\\$\\^\\.\\/", "$^./"));
        assert!(!m("[]", "a"));
        assert!(m("^[^]$", "\n"));
        assert!(m("^(a|b|c|d)$", "c"));
        assert!(!m("^(a|b|c|d)$", "e"));
        assert!(m("x|^y$", "y"));
        assert!(!m("a^", "a"));
    }

    #[test]
    fn repeated_classes_share_their_ranges() {
        // 50 class states, one stored range list.
        let (states, ops) = compiled("^[a-z]{50}$");
        assert_eq!(usize::from(states), 50 + 3);
        assert_eq!(ops.len(), usize::from(states) + 1);
        assert!(m("^[a-z]{3}[0-9a-f]{2}$", "abc0f"));
        assert!(!m("^[a-z]{3}[0-9a-f]{2}$", "abc0g"));
        // Two classes with different ranges keep both lists.
        let (states, ops) = compiled("[ab][a-c]");
        assert_eq!(ops.len(), usize::from(states) + 3);
    }

    #[test]
    fn the_dry_run_and_the_real_run_agree() {
        for p in [
            "a|b|cd",
            "^(x[0-9]{2,4}|y+)?$",
            "[a-f\\d]{3}(?:-[a-f\\d]{3})*",
            "",
        ] {
            let states = check(p).unwrap();
            let mut ops = vec![Op::False; 512];
            let n = compile_into(p, states, &mut ops).unwrap();
            assert!(n >= usize::from(states));
        }
        // Too small an output is `Full`, never a panic.
        let states = check("[a-z]+x").unwrap();
        let mut small = vec![Op::False; usize::from(states)];
        assert_eq!(
            compile_into("[a-z]+x", states, &mut small),
            Err(RegexError::Full)
        );
    }

    #[test]
    fn refusals() {
        for p in [
            "(a)\\1",
            "(?=a)",
            "(?<n>a)",
            "\\bword",
            "\\p{Letter}",
            "a{1000}",
            "a**",
            "(a",
            "a)",
            "[a",
            "{",
            "a{2,1}",
            "\\q",
            "((((((((((((((((((a))))))))))))))))))",
            "[z-a]",
            "[]]",
        ] {
            assert!(matches!(check(p), Err(RegexError::Refused(_))), "{p}");
        }
        // Too many states.
        assert_eq!(
            check("a{100}b{100}"),
            Err(RegexError::Refused("pattern too large"))
        );
        // Too many ranges in one class.
        let wide: std::string::String = ('A'..='Z').chain('a'..='w').collect();
        assert_eq!(wide.len(), 49);
        assert_eq!(
            check(&std::format!("[{wide}]")),
            Err(RegexError::Refused("too many ranges in a class"))
        );
    }
}
