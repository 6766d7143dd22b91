//! A bounded subset of ECMA-262 regular expressions for `pattern` and `patternProperties`
//! (cargo feature `pattern`).
//!
//! The schema compiler turns each pattern into a Thompson automaton of at most [`MAX_STATES`]
//! states and stores it in the program, right after the op that uses it: an
//! [`Op::Regex`](super::program::Op::Regex) header, the states (`Re*` ops), then the ranges of
//! its character classes. Matching ([`is_match`]) simulates every thread at once with 128-bit
//! state sets: time is linear in the subject length (times the automaton size), there is no
//! backtracking, no recursion, no allocation and no buffer (a few `u128` on the stack). It is a
//! search (`pattern` is not anchored) over Unicode code points. Nothing is compiled at
//! validation time, and a program loaded from flash carries its automata, so a firmware that
//! only loads programs links the matcher but not the parser.
//!
//! Supported: literals, `.`, `^`, `$`, `|`, groups `( )` and `(?: )`, classes `[...]` and
//! `[^...]` with ranges, `\d \D \w \W \s \S`, escapes `\t \n \r \f \v \0 \cX \xHH \uHHHH \u{H…}`
//! and escaped syntax characters, quantifiers `* + ? {n} {n,} {n,m}` (greedy or lazy; the
//! verdict is the same) with counts up to [`MAX_REPEAT`]. Refused (the schema does not
//! compile): backreferences, lookaround, `\b`/`\B`, named groups, `\p{…}`, and anything else.

mod nfa;
mod parse;

pub(crate) use nfa::{is_match, verify};
pub(crate) use parse::{check, compile_into, RegexError};

/// Most automaton states of one pattern (one bit each in a `u128`).
pub(crate) const MAX_STATES: usize = 128;
/// Most ranges in one character class (bounds the work per character and state).
pub(crate) const MAX_CLASS_RANGES: usize = 48;
/// Deepest group nesting.
pub(crate) const MAX_GROUP_DEPTH: u8 = 16;
/// Largest count in `{n,m}`.
pub(crate) const MAX_REPEAT: u32 = 100;
/// Bound on parsing work (counted repetition re-parses its atom).
pub(crate) const MAX_PARSE_WORK: u32 = 20_000;

/// Class flag bits (`Op::ReClass::flags`): the escapes `\d \D \w \W \s \S` it includes, and
/// negation.
pub(crate) mod class {
    /// `\d`
    pub(crate) const DIGIT: u8 = 1;
    /// `\D`
    pub(crate) const NOT_DIGIT: u8 = 2;
    /// `\w`
    pub(crate) const WORD: u8 = 4;
    /// `\W`
    pub(crate) const NOT_WORD: u8 = 8;
    /// `\s`
    pub(crate) const SPACE: u8 = 16;
    /// `\S`
    pub(crate) const NOT_SPACE: u8 = 32;
    /// `[^...]`
    pub(crate) const NEGATED: u8 = 128;
    /// Every valid bit.
    pub(crate) const ALL: u8 = 63 | NEGATED;
}
