//! `minLength`, `maxLength` and `pattern`; the regular-expression search also serves
//! `patternProperties`.

use super::display::Brief;
use super::{skip, Eval, Flow, Path};
use crate::json::Piece::{Dec, Of, Text};
use crate::json::{JsonStr, Kind, Value};
use crate::schema::keywords::{bit, Keywords};
use crate::schema::program::Op;
#[cfg(feature = "pattern")]
use crate::schema::regex;

/// Most bytes of JSON text one code point takes inside a string: a surrogate pair escape
/// (`\uD83D\uDE00`). A UTF-8 sequence takes 1 to 4, other escapes 2 or 6.
pub(super) const MAX_TEXT_PER_CHAR: usize = 12;

/// True when the string `inst` has at least `n` code points, counting no further than needed.
pub(super) fn has_min_chars(inst: Value<'_>, n: usize) -> bool {
    let text = inst.raw().len().saturating_sub(2);
    if text >= n.saturating_mul(MAX_TEXT_PER_CHAR) {
        return true;
    }
    if text < n {
        return false;
    }
    inst.as_str()
        .is_some_and(|s| s.chars().take(n).count() == n)
}

/// True when the string `inst` has at most `n` code points, counting no further than needed.
pub(super) fn has_max_chars(inst: Value<'_>, n: usize) -> bool {
    let text = inst.raw().len().saturating_sub(2);
    if text <= n {
        return true;
    }
    inst.as_str()
        .is_some_and(|s| s.chars().take(n.saturating_add(1)).count() <= n)
}

/// The `Regex` block at `ops[i]`: its number of states, its automaton, and the index after it.
pub(super) fn regex_block(ops: &[Op], i: usize) -> (u8, &[Op], usize) {
    match ops.get(i) {
        Some(&Op::Regex { len, states }) => {
            // `i < ops.len()` (`ops.get(i)` is `Some`) plus a `u16`: see `skip` in mod.rs.
            let end = skip(i.wrapping_add(1), len);
            (
                states,
                ops.get(i.wrapping_add(1)..end).unwrap_or_default(),
                end,
            )
        }
        _ => (0, &[], i.wrapping_add(1)),
    }
}

/// Searches `subject` with a stored automaton: `Some(found)`. `None` without the `pattern`
/// feature, where no program can hold one (the compiler refuses regular expressions and the
/// loader rejects them); callers then fail closed.
pub(super) fn regex_search(states: u8, block: &[Op], subject: JsonStr<'_>) -> Option<bool> {
    #[cfg(feature = "pattern")]
    return Some(regex::is_match(states, block, subject.chars()));
    #[cfg(not(feature = "pattern"))]
    {
        let _ = (states, block, subject);
        None
    }
}

/// The failure message of a regular expression in a build without them (unreachable, see
/// [`regex_search`]).
pub(super) const NO_REGEX: &str = "regular expressions are not built in (feature `pattern`)";

/// True when a `patternProperties` entry of `pats` (a `Members` pattern section) matches `key`.
pub(super) fn pattern_hit(pats: &[Op], key: JsonStr<'_>) -> bool {
    let mut j = 0;
    while let Some(Op::PatternProp { .. }) = pats.get(j) {
        let (states, block, next) = regex_block(pats, j.wrapping_add(1)); // j < len
        j = next;
        if regex_search(states, block, key) == Some(true) {
            return true;
        }
    }
    false
}

impl<K: Keywords> Eval<'_, '_, K> {
    /// `minLength`, `maxLength` and `pattern` (whose automaton is at `ops[i]`).
    #[inline(never)]
    pub(super) fn string_keyword(
        &mut self,
        op: Op,
        ops: &[Op],
        i: usize,
        inst: Value<'_>,
        path: &Path<'_>,
    ) -> Flow {
        let kind = inst.kind();
        match op {
            // Each arm is left out of an evaluator not built for its keywords.
            Op::MinLength(n) | Op::MaxLength(n)
                if kind == Kind::String && K::SET.has(bit::MIN_LENGTH | bit::MAX_LENGTH) =>
            {
                let min = matches!(op, Op::MinLength(_));
                let n = usize::try_from(n).unwrap_or(usize::MAX);
                if min && !has_min_chars(inst, n) {
                    return self.fail_with(
                        path,
                        "minLength",
                        &[
                            Of(&Brief(inst)),
                            Text(" is shorter than "),
                            Dec(n as u64),
                            Text(" characters"),
                        ],
                    );
                }
                if !min && !has_max_chars(inst, n) {
                    return self.fail_with(
                        path,
                        "maxLength",
                        &[
                            Of(&Brief(inst)),
                            Text(" is longer than "),
                            Dec(n as u64),
                            Text(" characters"),
                        ],
                    );
                }
            }
            Op::Pattern(s) if K::SET.has(bit::PATTERN) => {
                if let Some(subject) = inst.as_str() {
                    let (states, block, _) = regex_block(ops, i);
                    match regex_search(states, block, subject) {
                        Some(true) => {}
                        Some(false) => {
                            let source = self.text(s);
                            return self.fail_with(
                                path,
                                "pattern",
                                &[Of(&Brief(inst)), Text(" does not match "), Text(source)],
                            );
                        }
                        None => return self.fail(path, "pattern", &mut |m| m.write_str(NO_REGEX)),
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}
