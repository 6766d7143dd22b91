//! A bounded subset of ECMA-262 regular expressions for `pattern` and `patternProperties`.
//!
//! The pattern is compiled into a Thompson NFA of at most [`MAX_INSTS`] instructions and matched
//! by simulating all threads at once with a 128-bit state set: time is linear in the subject
//! length (times the NFA size), there is no backtracking, no recursion at match time and no
//! allocation. Matching is a search (`pattern` is not anchored) over Unicode code points.
//!
//! Supported: literals, `.`, `^`, `$`, `|`, groups `( )` and `(?: )`, classes `[...]` and
//! `[^...]` with ranges, `\d \D \w \W \s \S`, escapes `\t \n \r \f \v \0 \cX \xHH \uHHHH \u{H…}`
//! and escaped syntax characters, quantifiers `* + ? {n} {n,} {n,m}` (greedy or lazy; the
//! verdict is the same) with counts up to [`MAX_REPEAT`]. Refused (the schema does not
//! compile): backreferences, lookaround, `\b`/`\B`, named groups, `\p{…}`, and anything else.

/// Most NFA instructions in one compiled pattern.
pub(crate) const MAX_INSTS: usize = 128;
/// Most class ranges in one compiled pattern.
const MAX_RANGES: usize = 48;
/// Most character classes in one compiled pattern.
const MAX_CLASSES: usize = 24;
/// Deepest group nesting.
const MAX_GROUP_DEPTH: u8 = 16;
/// Largest count in `{n,m}`.
pub(crate) const MAX_REPEAT: u32 = 100;
/// Bound on parsing work (counted repetition re-parses its atom).
const MAX_PARSE_WORK: u32 = 20_000;
/// End of a jump chain.
const NIL: u8 = u8::MAX;

/// Why a pattern is outside the subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RegexError(pub(crate) &'static str);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inst {
    Char(char),
    Any,
    Class(u8),
    Split(u8, u8),
    Jmp(u8),
    Start,
    End,
    Match,
}

const DIGIT: u8 = 1;
const NOT_DIGIT: u8 = 2;
const WORD: u8 = 4;
const NOT_WORD: u8 = 8;
const SPACE: u8 = 16;
const NOT_SPACE: u8 = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Class {
    start: u8,
    len: u8,
    negated: bool,
    sets: u8,
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub(crate) struct Regex {
    insts: [Inst; MAX_INSTS],
    n: u8,
    ranges: [(char, char); MAX_RANGES],
    nranges: u8,
    classes: [Class; MAX_CLASSES],
    nclasses: u8,
}

/// What one escape sequence (after the backslash) denotes.
#[derive(Debug, Clone, Copy)]
enum Escape {
    Char(char),
    Set(u8),
}

impl Regex {
    /// Compiles `pattern`, or says why it is outside the subset.
    pub(crate) fn compile(pattern: &str) -> Result<Self, RegexError> {
        let mut re = Regex {
            insts: [Inst::Match; MAX_INSTS],
            n: 0,
            ranges: [('\0', '\0'); MAX_RANGES],
            nranges: 0,
            classes: [Class {
                start: 0,
                len: 0,
                negated: false,
                sets: 0,
            }; MAX_CLASSES],
            nclasses: 0,
        };
        let mut p = Parser {
            src: pattern,
            re: &mut re,
            depth: 0,
            work: 0,
        };
        p.disjunction(0, pattern.len())?;
        p.emit(Inst::Match)?;
        Ok(re)
    }

    /// True when the pattern matches somewhere in `subject`.
    pub(crate) fn is_match<I: Iterator<Item = char>>(&self, subject: I) -> bool {
        let mut chars = subject.peekable();
        let mut cur: u128 = 0;
        let at_end = chars.peek().is_none();
        self.add(&mut cur, 0, true, at_end);
        loop {
            if self.has_match(cur) {
                return true;
            }
            let Some(c) = chars.next() else {
                return false;
            };
            let at_end = chars.peek().is_none();
            let mut next: u128 = 0;
            let mut set = cur;
            while set != 0 {
                let s = set.trailing_zeros() as usize;
                set &= set - 1;
                let advance = match self.insts.get(s) {
                    Some(Inst::Char(x)) => *x == c,
                    Some(Inst::Any) => !matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}'),
                    Some(Inst::Class(k)) => self.class_matches(*k, c),
                    _ => false,
                };
                if advance {
                    self.add(&mut next, s + 1, false, at_end);
                }
            }
            self.add(&mut next, 0, false, at_end);
            cur = next;
        }
    }

    fn has_match(&self, set: u128) -> bool {
        let mut set = set;
        while set != 0 {
            let s = set.trailing_zeros() as usize;
            set &= set - 1;
            if let Some(Inst::Match) = self.insts.get(s) {
                return true;
            }
        }
        false
    }

    /// Adds `s` and every state reachable from it without consuming a character.
    fn add(&self, set: &mut u128, s: usize, at_start: bool, at_end: bool) {
        let mut stack = [0u8; 2 * MAX_INSTS];
        let mut top = 0usize;
        let push = |stack: &mut [u8; 2 * MAX_INSTS], top: &mut usize, set: &u128, t: usize| {
            if t < MAX_INSTS && *set & (1u128 << t) == 0 {
                if let (Some(slot), Ok(t)) = (stack.get_mut(*top), u8::try_from(t)) {
                    *slot = t;
                    *top += 1;
                }
            }
        };
        push(&mut stack, &mut top, set, s);
        while top > 0 {
            top -= 1;
            let t = usize::from(stack.get(top).copied().unwrap_or(NIL));
            if t >= MAX_INSTS || *set & (1u128 << t) != 0 {
                continue;
            }
            *set |= 1u128 << t;
            match self.insts.get(t) {
                Some(Inst::Split(a, b)) => {
                    push(&mut stack, &mut top, set, usize::from(*b));
                    push(&mut stack, &mut top, set, usize::from(*a));
                }
                Some(Inst::Jmp(a)) => push(&mut stack, &mut top, set, usize::from(*a)),
                Some(Inst::Start) if at_start => push(&mut stack, &mut top, set, t + 1),
                Some(Inst::End) if at_end => push(&mut stack, &mut top, set, t + 1),
                _ => {}
            }
        }
    }

    fn class_matches(&self, k: u8, c: char) -> bool {
        let Some(class) = self.classes.get(usize::from(k)) else {
            return false;
        };
        let start = usize::from(class.start);
        let ranges = self
            .ranges
            .get(start..start + usize::from(class.len))
            .unwrap_or_default();
        let hit = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) || in_sets(class.sets, c);
        hit != class.negated
    }
}

fn in_sets(sets: u8, c: char) -> bool {
    let digit = c.is_ascii_digit();
    let word = c.is_ascii_alphanumeric() || c == '_';
    let space = is_ecma_space(c);
    (sets & DIGIT != 0 && digit)
        || (sets & NOT_DIGIT != 0 && !digit)
        || (sets & WORD != 0 && word)
        || (sets & NOT_WORD != 0 && !word)
        || (sets & SPACE != 0 && space)
        || (sets & NOT_SPACE != 0 && !space)
}

/// ECMA-262 `WhiteSpace` and `LineTerminator`.
fn is_ecma_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

struct Parser<'a, 'r> {
    src: &'a str,
    re: &'r mut Regex,
    depth: u8,
    work: u32,
}

const SYNTAX: &str = "^$\\.*+?()[]{}|/";

impl Parser<'_, '_> {
    fn here(&self) -> u8 {
        self.re.n
    }

    fn emit(&mut self, inst: Inst) -> Result<u8, RegexError> {
        let at = self.re.n;
        let slot = self
            .re
            .insts
            .get_mut(usize::from(at))
            .ok_or(RegexError("pattern too large"))?;
        *slot = inst;
        self.re.n += 1;
        Ok(at)
    }

    fn patch(&mut self, at: u8, inst: Inst) {
        if let Some(slot) = self.re.insts.get_mut(usize::from(at)) {
            *slot = inst;
        }
    }

    fn tick(&mut self) -> Result<(), RegexError> {
        self.work += 1;
        if self.work > MAX_PARSE_WORK {
            return Err(RegexError("pattern too large"));
        }
        Ok(())
    }

    fn char_at(&self, pos: usize) -> Option<char> {
        self.src.get(pos..)?.chars().next()
    }

    /// `a|b|c` in `src[start..end]`.
    fn disjunction(&mut self, start: usize, end: usize) -> Result<(), RegexError> {
        let mut alt_start = start;
        let mut pending_jumps = NIL;
        loop {
            let alt_end = self.alternative_end(alt_start, end)?;
            if alt_end >= end {
                self.alternative(alt_start, end)?;
                break;
            }
            let split = self.emit(Inst::Split(0, 0))?;
            self.alternative(alt_start, alt_end)?;
            let jmp = self.emit(Inst::Jmp(pending_jumps))?;
            pending_jumps = jmp;
            let next = self.here();
            self.patch(split, Inst::Split(split + 1, next));
            alt_start = alt_end + 1; // past `|`
        }
        let target = self.here();
        while pending_jumps != NIL {
            let next = match self.re.insts.get(usize::from(pending_jumps)) {
                Some(Inst::Jmp(n)) => *n,
                _ => NIL,
            };
            self.patch(pending_jumps, Inst::Jmp(target));
            pending_jumps = next;
        }
        Ok(())
    }

    /// Position of the next top-level `|` in `src[start..end]`, or `end`.
    fn alternative_end(&mut self, start: usize, end: usize) -> Result<usize, RegexError> {
        let mut pos = start;
        while pos < end {
            self.tick()?;
            match self.char_at(pos) {
                Some('|') => return Ok(pos),
                Some('^' | '$') => pos += 1,
                Some(_) => {
                    pos = self.skip_atom(pos, end)?;
                    pos = self.skip_quantifier(pos, end)?.0;
                }
                None => break,
            }
        }
        Ok(end)
    }

    fn alternative(&mut self, start: usize, end: usize) -> Result<(), RegexError> {
        let mut pos = start;
        while pos < end {
            self.tick()?;
            match self.char_at(pos) {
                Some('^') => {
                    self.emit(Inst::Start)?;
                    pos += 1;
                    self.no_quantifier(pos, end)?;
                }
                Some('$') => {
                    self.emit(Inst::End)?;
                    pos += 1;
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

    fn no_quantifier(&self, pos: usize, end: usize) -> Result<(), RegexError> {
        if pos < end && matches!(self.char_at(pos), Some('*' | '+' | '?' | '{')) {
            return Err(RegexError("quantified assertion"));
        }
        Ok(())
    }

    fn repeat(
        &mut self,
        start: usize,
        end: usize,
        min: u32,
        max: Option<u32>,
    ) -> Result<(), RegexError> {
        for _ in 0..min {
            self.atom(start, end)?;
        }
        match max {
            Some(max) => {
                for _ in min..max {
                    let split = self.emit(Inst::Split(0, 0))?;
                    self.atom(start, end)?;
                    let next = self.here();
                    self.patch(split, Inst::Split(split + 1, next));
                }
            }
            None => {
                let split = self.emit(Inst::Split(0, 0))?;
                self.atom(start, end)?;
                self.emit(Inst::Jmp(split))?;
                let next = self.here();
                self.patch(split, Inst::Split(split + 1, next));
            }
        }
        Ok(())
    }

    /// Reads a quantifier at `pos`: `(next position, min, max)`; `(pos, 1, Some(1))` when none.
    fn skip_quantifier(
        &self,
        pos: usize,
        end: usize,
    ) -> Result<(usize, u32, Option<u32>), RegexError> {
        if pos >= end {
            return Ok((pos, 1, Some(1)));
        }
        let (next, min, max) = match self.char_at(pos) {
            Some('*') => (pos + 1, 0, None),
            Some('+') => (pos + 1, 1, None),
            Some('?') => (pos + 1, 0, Some(1)),
            Some('{') => self.braces(pos, end)?,
            _ => return Ok((pos, 1, Some(1))),
        };
        let next = if next < end && self.char_at(next) == Some('?') {
            next + 1
        } else {
            next
        };
        if next < end && matches!(self.char_at(next), Some('*' | '+' | '?' | '{')) {
            return Err(RegexError("nothing to repeat"));
        }
        Ok((next, min, max))
    }

    fn braces(&self, pos: usize, end: usize) -> Result<(usize, u32, Option<u32>), RegexError> {
        let body = self
            .src
            .get(pos + 1..end)
            .ok_or(RegexError("unterminated quantifier"))?;
        let close = body
            .find('}')
            .ok_or(RegexError("literal `{` (escape it)"))?;
        let inner = body.get(..close).unwrap_or_default();
        let number = |s: &str| -> Result<u32, RegexError> {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(RegexError("literal `{` (escape it)"));
            }
            match s.parse::<u32>() {
                Ok(n) if n <= MAX_REPEAT => Ok(n),
                _ => Err(RegexError("repetition count above 100")),
            }
        };
        let (min, max) = match inner.split_once(',') {
            None => {
                let n = number(inner)?;
                (n, Some(n))
            }
            Some((lo, "")) => (number(lo)?, None),
            Some((lo, hi)) => (number(lo)?, Some(number(hi)?)),
        };
        if max.is_some_and(|m| m < min) {
            return Err(RegexError("quantifier range out of order"));
        }
        Ok((pos + 1 + close + 1, min, max))
    }

    /// The end of the atom starting at `pos`.
    fn skip_atom(&self, pos: usize, end: usize) -> Result<usize, RegexError> {
        match self.char_at(pos) {
            Some('(') => {
                let mut depth = 0u32;
                let mut p = pos;
                while p < end {
                    match self.char_at(p) {
                        Some('\\') => p = self.escape(p + 1)?.1,
                        Some('[') => p = self.class_end(p, end)?,
                        Some('(') => {
                            depth += 1;
                            p += 1;
                        }
                        Some(')') => {
                            depth -= 1;
                            p += 1;
                            if depth == 0 {
                                return Ok(p);
                            }
                        }
                        Some(c) => p += c.len_utf8(),
                        None => break,
                    }
                }
                Err(RegexError("unbalanced parenthesis"))
            }
            Some('[') => self.class_end(pos, end),
            Some('\\') => Ok(self.escape(pos + 1)?.1),
            Some(')') => Err(RegexError("unbalanced parenthesis")),
            Some('*' | '+' | '?') => Err(RegexError("nothing to repeat")),
            Some('{') => Err(RegexError("literal `{` (escape it)")),
            Some('}' | ']') => Err(RegexError("unescaped `}` or `]`")),
            Some(c) => Ok(pos + c.len_utf8()),
            None => Err(RegexError("empty atom")),
        }
    }

    /// Position after the `]` closing the class that starts at `pos`.
    fn class_end(&self, pos: usize, end: usize) -> Result<usize, RegexError> {
        let mut p = pos + 1;
        if self.char_at(p) == Some('^') {
            p += 1;
        }
        while p < end {
            match self.char_at(p) {
                Some(']') => return Ok(p + 1),
                Some('\\') => p = self.escape(p + 1)?.1,
                Some(c) => p += c.len_utf8(),
                None => break,
            }
        }
        Err(RegexError("unterminated character class"))
    }

    /// Emits the atom `src[start..end]` once.
    fn atom(&mut self, start: usize, end: usize) -> Result<(), RegexError> {
        self.tick()?;
        match self.char_at(start) {
            Some('(') => {
                let rest = self.src.get(start + 1..).unwrap_or_default();
                let inner_start = if rest.starts_with("?:") {
                    start + 3
                } else if rest.starts_with('?') {
                    return Err(RegexError("lookaround or named group"));
                } else {
                    start + 1
                };
                if self.depth >= MAX_GROUP_DEPTH {
                    return Err(RegexError("groups nested too deeply"));
                }
                self.depth += 1;
                let r = self.disjunction(inner_start, end - 1);
                self.depth -= 1;
                r
            }
            Some('[') => self.class(start, end),
            Some('.') => self.emit(Inst::Any).map(drop),
            Some('\\') => match self.escape(start + 1)?.0 {
                Escape::Char(c) => self.emit(Inst::Char(c)).map(drop),
                Escape::Set(sets) => {
                    let k = self.new_class(false, sets)?;
                    self.emit(Inst::Class(k)).map(drop)
                }
            },
            Some(c) => self.emit(Inst::Char(c)).map(drop),
            None => Err(RegexError("empty atom")),
        }
    }

    fn new_class(&mut self, negated: bool, sets: u8) -> Result<u8, RegexError> {
        let k = self.re.nclasses;
        let slot = self
            .re
            .classes
            .get_mut(usize::from(k))
            .ok_or(RegexError("too many character classes"))?;
        *slot = Class {
            start: self.re.nranges,
            len: 0,
            negated,
            sets,
        };
        self.re.nclasses += 1;
        Ok(k)
    }

    fn class(&mut self, start: usize, end: usize) -> Result<(), RegexError> {
        let mut p = start + 1;
        let negated = self.char_at(p) == Some('^');
        if negated {
            p += 1;
        }
        let k = self.new_class(negated, 0)?;
        let close = end - 1; // the `]`
        while p < close {
            let (lo, next) = self.class_atom(p)?;
            p = next;
            let lo = match lo {
                Escape::Set(s) => {
                    self.add_sets(k, s);
                    continue;
                }
                Escape::Char(c) => c,
            };
            if self.char_at(p) == Some('-') && p + 1 < close {
                let (hi, next) = self.class_atom(p + 1)?;
                let Escape::Char(hi) = hi else {
                    return Err(RegexError("class escape in a range"));
                };
                if hi < lo {
                    return Err(RegexError("class range out of order"));
                }
                self.add_range(k, lo, hi)?;
                p = next;
            } else {
                self.add_range(k, lo, lo)?;
            }
        }
        self.emit(Inst::Class(k)).map(drop)
    }

    fn class_atom(&self, p: usize) -> Result<(Escape, usize), RegexError> {
        match self.char_at(p) {
            Some('\\') => {
                if self.char_at(p + 1) == Some('b') {
                    return Ok((Escape::Char('\u{8}'), p + 2));
                }
                if self.char_at(p + 1) == Some('-') {
                    return Ok((Escape::Char('-'), p + 2));
                }
                self.escape(p + 1)
            }
            Some(c) => Ok((Escape::Char(c), p + c.len_utf8())),
            None => Err(RegexError("unterminated character class")),
        }
    }

    fn add_sets(&mut self, k: u8, sets: u8) {
        if let Some(class) = self.re.classes.get_mut(usize::from(k)) {
            class.sets |= sets;
        }
    }

    fn add_range(&mut self, k: u8, lo: char, hi: char) -> Result<(), RegexError> {
        let slot = self
            .re
            .ranges
            .get_mut(usize::from(self.re.nranges))
            .ok_or(RegexError("too many class ranges"))?;
        *slot = (lo, hi);
        self.re.nranges += 1;
        if let Some(class) = self.re.classes.get_mut(usize::from(k)) {
            class.len += 1;
        }
        Ok(())
    }

    /// Reads the escape whose body starts at `p` (just after `\`).
    fn escape(&self, p: usize) -> Result<(Escape, usize), RegexError> {
        let c = self.char_at(p).ok_or(RegexError("trailing backslash"))?;
        let next = p + c.len_utf8();
        let simple = |ch: char| Ok((Escape::Char(ch), next));
        match c {
            'd' => Ok((Escape::Set(DIGIT), next)),
            'D' => Ok((Escape::Set(NOT_DIGIT), next)),
            'w' => Ok((Escape::Set(WORD), next)),
            'W' => Ok((Escape::Set(NOT_WORD), next)),
            's' => Ok((Escape::Set(SPACE), next)),
            'S' => Ok((Escape::Set(NOT_SPACE), next)),
            't' => simple('\t'),
            'n' => simple('\n'),
            'r' => simple('\r'),
            'f' => simple('\u{c}'),
            'v' => simple('\u{b}'),
            '0' => {
                if self.char_at(next).is_some_and(|d| d.is_ascii_digit()) {
                    Err(RegexError("octal escape"))
                } else {
                    simple('\0')
                }
            }
            'c' => match self.char_at(next) {
                Some(l) if l.is_ascii_alphabetic() => {
                    let code = u32::from(l) % 32;
                    let ch = char::from_u32(code).ok_or(RegexError("bad control escape"))?;
                    Ok((Escape::Char(ch), next + 1))
                }
                _ => Err(RegexError("bad control escape")),
            },
            'x' => {
                let v = self.hex(next, 2)?;
                let ch = char::from_u32(v).ok_or(RegexError("bad hex escape"))?;
                Ok((Escape::Char(ch), next + 2))
            }
            'u' => self.unicode_escape(next),
            '1'..='9' => Err(RegexError("backreference")),
            'b' | 'B' => Err(RegexError("word boundary assertion")),
            'p' | 'P' => Err(RegexError("Unicode property escape")),
            'k' => Err(RegexError("named backreference")),
            '-' => Err(RegexError("`\\-` outside a class")),
            c if SYNTAX.contains(c) => simple(c),
            _ => Err(RegexError("unknown escape")),
        }
    }

    fn unicode_escape(&self, p: usize) -> Result<(Escape, usize), RegexError> {
        if self.char_at(p) == Some('{') {
            let body = self.src.get(p + 1..).unwrap_or_default();
            let close = body.find('}').ok_or(RegexError("bad unicode escape"))?;
            if close == 0 || close > 6 {
                return Err(RegexError("bad unicode escape"));
            }
            let v = self.hex(p + 1, close)?;
            let ch = char::from_u32(v).ok_or(RegexError("bad unicode escape"))?;
            return Ok((Escape::Char(ch), p + 1 + close + 1));
        }
        let hi = self.hex(p, 4)?;
        if (0xD800..0xDC00).contains(&hi)
            && self.src.get(p + 4..).is_some_and(|r| r.starts_with("\\u"))
        {
            if let Ok(lo) = self.hex(p + 6, 4) {
                if (0xDC00..0xE000).contains(&lo) {
                    let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    let ch = char::from_u32(cp).ok_or(RegexError("bad unicode escape"))?;
                    return Ok((Escape::Char(ch), p + 10));
                }
            }
        }
        let ch = char::from_u32(hi).ok_or(RegexError("lone surrogate escape"))?;
        Ok((Escape::Char(ch), p + 4))
    }

    fn hex(&self, p: usize, n: usize) -> Result<u32, RegexError> {
        let digits = self.src.get(p..p + n).ok_or(RegexError("bad hex escape"))?;
        let mut v = 0u32;
        for b in digits.bytes() {
            let d = char::from(b)
                .to_digit(16)
                .ok_or(RegexError("bad hex escape"))?;
            v = v * 16 + d;
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, s: &str) -> bool {
        Regex::compile(p)
            .unwrap_or_else(|e| panic!("{p}: {e:?}"))
            .is_match(s.chars())
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
            assert!(Regex::compile(p).is_err(), "{p}");
        }
        // Too many states.
        assert!(Regex::compile("a{100}b{100}").is_err());
    }
}
