//! The stored automaton: matching ([`is_match`]) and the load-time check ([`verify`]).
//!
//! An automaton is the `len` ops after an `Op::Regex { len, states }` header: `states` states
//! (`ReChar`, `ReAny`, `ReClass`, `ReSplit`, `ReJmp`, `ReStart`, `ReEnd`, `ReMatch`), then the
//! `ReRange`s their classes refer to. A state that consumes a character continues at the next
//! state; `ReSplit` and `ReJmp` name their targets.

use super::{class, MAX_CLASS_RANGES, MAX_STATES};
use crate::schema::program::Op;

/// A set of automaton states (at most [`MAX_STATES`]), in 32-bit words: plain loops over four
/// words are smaller and spill less on a 32-bit core than `u128` arithmetic.
#[derive(Clone, Copy, Default)]
struct States([u32; MAX_STATES / 32]);

impl States {
    fn of(s: usize) -> Self {
        let mut set = Self::default();
        set.insert(s);
        set
    }

    fn insert(&mut self, s: usize) {
        if let Some(w) = self.0.get_mut(s / 32) {
            *w |= 1 << (s % 32);
        }
    }

    fn contains(&self, s: usize) -> bool {
        self.0.get(s / 32).is_some_and(|w| w & (1 << (s % 32)) != 0)
    }

    fn intersects(&self, other: &Self) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }

    /// Removes and returns the lowest state.
    fn pop(&mut self) -> Option<usize> {
        for (i, w) in self.0.iter_mut().enumerate() {
            if *w != 0 {
                let bit = w.trailing_zeros() as usize;
                // `*w != 0`; `i < 4` and `bit < 32`: neither wraps.
                *w &= w.wrapping_sub(1);
                return Some(i.wrapping_mul(32).wrapping_add(bit));
            }
        }
        None
    }
}

/// True when the automaton (`states` states in `block`, a checked automaton) matches somewhere
/// in `subject`. Time: O(subject length × states × class ranges); memory: four state sets of
/// 16 bytes.
pub(crate) fn is_match(states: u8, block: &[Op], subject: impl Iterator<Item = char>) -> bool {
    let n = usize::from(states).min(MAX_STATES).min(block.len());
    let states = block.get(..n).unwrap_or_default();
    let mut accept = States::default();
    for (s, op) in states.iter().enumerate() {
        if matches!(op, Op::ReMatch) {
            accept.insert(s);
        }
    }
    let mut chars = subject.peekable();
    let mut cur = closure(states, States::of(0), true, chars.peek().is_none());
    loop {
        if cur.intersects(&accept) {
            return true;
        }
        let Some(c) = chars.next() else {
            return false;
        };
        // Every search also restarts at state 0 after each character (no anchoring).
        let mut next = States::of(0);
        while let Some(s) = cur.pop() {
            let advance = match states.get(s) {
                Some(Op::ReChar(x)) => *x == c,
                Some(Op::ReAny) => !matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}'),
                Some(&Op::ReClass { at, ranges, flags }) => {
                    class_matches(block, at, ranges, flags, c)
                }
                _ => false,
            };
            if advance {
                // `s` indexes `states` (at most MAX_STATES long).
                next.insert(s.wrapping_add(1));
            }
        }
        cur = closure(states, next, false, chars.peek().is_none());
    }
}

/// `seed` and every state reachable from it without consuming a character (states past the
/// automaton are dropped).
fn closure(states: &[Op], seed: States, at_start: bool, at_end: bool) -> States {
    let mut set = States::default();
    let mut pending = seed;
    while let Some(t) = pending.pop() {
        if t >= states.len() || set.contains(t) {
            continue;
        }
        set.insert(t);
        match states.get(t) {
            Some(&Op::ReSplit(a, b)) => {
                pending.insert(usize::from(a));
                pending.insert(usize::from(b));
            }
            Some(&Op::ReJmp(a)) => pending.insert(usize::from(a)),
            // `t < states.len()` (checked above): `t + 1` does not wrap.
            Some(Op::ReStart) if at_start => pending.insert(t.wrapping_add(1)),
            Some(Op::ReEnd) if at_end => pending.insert(t.wrapping_add(1)),
            _ => {}
        }
    }
    set
}

fn class_matches(block: &[Op], at: u16, ranges: u8, flags: u8, c: char) -> bool {
    let start = usize::from(at);
    let list = block
        .get(start..start.saturating_add(usize::from(ranges)))
        .unwrap_or_default();
    let hit = list.iter().any(|op| match *op {
        Op::ReRange { .. } => op.range().is_some_and(|(lo, hi)| lo <= c && c <= hi),
        _ => false,
    }) || in_sets(flags, c);
    hit != (flags & class::NEGATED != 0)
}

fn in_sets(flags: u8, c: char) -> bool {
    if flags & !class::NEGATED == 0 {
        return false;
    }
    let digit = c.is_ascii_digit();
    let word = c.is_ascii_alphanumeric() || c == '_';
    let space = is_ecma_space(c);
    (flags & class::DIGIT != 0 && digit)
        || (flags & class::NOT_DIGIT != 0 && !digit)
        || (flags & class::WORD != 0 && word)
        || (flags & class::NOT_WORD != 0 && !word)
        || (flags & class::SPACE != 0 && space)
        || (flags & class::NOT_SPACE != 0 && !space)
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

/// Checks a stored automaton (what a program loader runs): 1 to [`MAX_STATES`] states, every
/// target a state, every class over ranges after the states (at most [`MAX_CLASS_RANGES`]),
/// only ranges after the states, each range in order.
pub(crate) fn verify(states: u8, block: &[Op]) -> bool {
    let n = usize::from(states);
    if n == 0 || n > MAX_STATES || n > block.len() {
        return false;
    }
    let (head, tail) = block.split_at(n);
    let target = |t: u8| usize::from(t) < n;
    let states_ok = head.iter().all(|op| match *op {
        Op::ReChar(_) | Op::ReAny | Op::ReStart | Op::ReEnd | Op::ReMatch => true,
        Op::ReSplit(a, b) => target(a) && target(b),
        Op::ReJmp(a) => target(a),
        Op::ReClass { at, ranges, flags } => {
            let start = usize::from(at);
            flags & !class::ALL == 0
                && start >= n
                && usize::from(ranges) <= MAX_CLASS_RANGES
                && start.saturating_add(usize::from(ranges)) <= block.len()
        }
        _ => false,
    });
    states_ok
        && tail
            .iter()
            .all(|op| op.range().is_some_and(|(lo, hi)| lo <= hi))
}
