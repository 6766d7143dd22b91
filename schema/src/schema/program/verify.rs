//! The checks run on a program before it is used: every index in range, every string whole,
//! every op where its keyword allows it, and no loop of in-place applicators.

use super::address::{skip, NONE};
use super::layout::{Program, Scratch};
use super::op::{payload_ops, Op, Str};
use crate::json::{Kind, Limits, Value};
use crate::schema::error::LoadError;
use crate::schema::number::{Decimal, MULTIPLE_OF_MAX_DIGITS};
#[cfg(feature = "pattern")]
use crate::schema::regex;

/// Calls `f` for every child a node applies to the same instance (in-place applicators).
pub(crate) fn in_place_children(ops: &[Op], mut f: impl FnMut(u16)) {
    // Op addresses: see `skip`.
    let mut i = 0;
    while let Some(op) = ops.get(i) {
        i = i.wrapping_add(1);
        match *op {
            Op::Ref(n) | Op::Not(n) | Op::DependentSchema { node: n, .. } => f(n),
            Op::AllOf(k) | Op::AnyOf(k) | Op::OneOf(k) => {
                for child in ops.get(i..skip(i, k)).unwrap_or_default() {
                    if let Op::Child(n) = child {
                        f(*n);
                    }
                }
                i = skip(i, k);
            }
            Op::If {
                cond,
                then,
                otherwise,
            } => {
                for n in [cond, then, otherwise] {
                    if n != NONE {
                        f(n);
                    }
                }
            }
            Op::Regex { len, .. } => i = skip(i, len),
            _ => {}
        }
    }
}

pub(super) const REMOVED: u32 = u32::MAX;

/// Finds a node on a loop of in-place applicators (a `$ref` cycle that never descends into the
/// instance), using `scratch[..nodes].mark`. Kahn's algorithm, O(nodes × edges) worst case.
pub(crate) fn find_loop(program: &Program<'_>, scratch: &mut [Scratch]) -> Option<u16> {
    let n = program.nodes.len();
    let marks = scratch.get_mut(..n)?;
    for s in marks.iter_mut() {
        s.mark = 0;
    }
    for id in 0..n {
        let id = u16::try_from(id).ok()?;
        in_place_children(program.node(id), |c| {
            if let Some(s) = marks.get_mut(usize::from(c)) {
                s.mark = s.mark.saturating_add(1);
            }
        });
    }
    loop {
        let mut progress = false;
        for id in 0..n {
            let free = marks.get(id).is_some_and(|s| s.mark == 0);
            if !free {
                continue;
            }
            if let Some(s) = marks.get_mut(id) {
                s.mark = REMOVED;
            }
            progress = true;
            let id = u16::try_from(id).ok()?;
            in_place_children(program.node(id), |c| {
                if let Some(s) = marks.get_mut(usize::from(c)) {
                    if s.mark != REMOVED {
                        s.mark = s.mark.saturating_sub(1);
                    }
                }
            });
        }
        if !progress {
            break;
        }
    }
    let stuck = marks.iter().position(|s| s.mark != REMOVED)?;
    u16::try_from(stuck).ok()
}

/// Checks that a program is consistent: what [`Program::from_postcard`] runs on load.
pub(crate) fn verify(program: &Program<'_>, scratch: &mut [Scratch]) -> Result<(), LoadError> {
    verify_structure(program)?;
    if scratch.len() < program.nodes.len() {
        return Err(LoadError::TooLarge);
    }
    if find_loop(program, scratch).is_some() {
        return Err(LoadError::Corrupt);
    }
    Ok(())
}

/// Checks indices, payload layout, strings, numbers, values and patterns.
pub(crate) fn verify_structure(program: &Program<'_>) -> Result<(), LoadError> {
    let n = program.nodes.len();
    if n == 0 || n >= usize::from(NONE) || program.nodes.first() != Some(&0) {
        return Err(LoadError::Corrupt);
    }
    let mut prev = 0u16;
    for &start in program.nodes {
        if start < prev || usize::from(start) > program.ops.len() {
            return Err(LoadError::Corrupt);
        }
        prev = start;
    }
    for id in 0..n {
        let id = u16::try_from(id).map_err(|_| LoadError::Corrupt)?;
        verify_node(program, program.node(id))?;
    }
    Ok(())
}

pub(super) fn verify_node(program: &Program<'_>, ops: &[Op]) -> Result<(), LoadError> {
    let n = program.nodes.len();
    let node = |id: u16| {
        if usize::from(id) < n {
            Ok(())
        } else {
            Err(LoadError::Corrupt)
        }
    };
    let optional = |id: u16| if id == NONE { Ok(()) } else { node(id) };
    let text = |s: Str| -> Result<&str, LoadError> {
        program.text.get(s.range()).ok_or(LoadError::Corrupt)
    };
    let number = |s: Str| -> Result<(), LoadError> {
        let t = text(s)?;
        match Value::parse(t.as_bytes()) {
            Ok(v) if v.kind() == Kind::Number && v.raw().len() == t.len() => Ok(()),
            _ => Err(LoadError::Corrupt),
        }
    };
    let json = |s: Str| -> Result<(), LoadError> {
        let limits = Limits {
            max_depth: crate::schema::SCHEMA_MAX_DEPTH,
        };
        Value::parse_with(text(s)?.as_bytes(), limits)
            .map(drop)
            .map_err(|_| LoadError::Corrupt)
    };
    // The `Regex` block at `ops[i]`; the index after it.
    let regex_block = |i: usize| -> Result<usize, LoadError> {
        let Some(&Op::Regex { len, states }) = ops.get(i) else {
            return Err(LoadError::Corrupt);
        };
        // `ops.get(i)` is `Some`: `i < ops.len()`.
        let end = skip(i.wrapping_add(1), len);
        let block = ops.get(i.wrapping_add(1)..end).ok_or(LoadError::Corrupt)?;
        #[cfg(feature = "pattern")]
        return match regex::verify(states, block) {
            true => Ok(end),
            false => Err(LoadError::Corrupt),
        };
        #[cfg(not(feature = "pattern"))]
        {
            let _ = (states, block);
            Err(LoadError::NeedsFeature("pattern"))
        }
    };
    // Payloads `ops[i..i+k]`, each checked by `check`.
    let payload = |i: usize,
                   k: u16,
                   check: &mut dyn FnMut(&Op) -> Result<(), LoadError>|
     -> Result<usize, LoadError> {
        let items = ops.get(i..skip(i, k)).ok_or(LoadError::Corrupt)?;
        for op in items {
            check(op)?;
        }
        Ok(skip(i, k))
    };
    let mut i = 0;
    while let Some(&op) = ops.get(i) {
        i = i.wrapping_add(1); // `i < ops.len()`
        match op {
            Op::Type(mask) => {
                if mask == 0 || mask >= 128 {
                    return Err(LoadError::Corrupt);
                }
            }
            Op::False | Op::UniqueItems => {}
            Op::Const(s) => json(s)?,
            Op::Enum(k) => {
                i = payload(i, k, &mut |op| match op {
                    Op::EnumValue(s) => json(*s),
                    _ => Err(LoadError::Corrupt),
                })?;
            }
            Op::MultipleOf(s) => {
                number(s)?;
                let d = Decimal::parse(text(s)?).ok_or(LoadError::Corrupt)?;
                if d.is_zero() || d.is_negative() || d.significant_digits() > MULTIPLE_OF_MAX_DIGITS
                {
                    return Err(LoadError::Corrupt);
                }
            }
            Op::Minimum(s) | Op::ExclusiveMinimum(s) | Op::Maximum(s) | Op::ExclusiveMaximum(s) => {
                number(s)?
            }
            Op::MinLength(_)
            | Op::MaxLength(_)
            | Op::MinItems(_)
            | Op::MaxItems(_)
            | Op::MinProperties(_)
            | Op::MaxProperties(_) => {}
            Op::Pattern(s) => {
                text(s)?;
                i = regex_block(i)?;
            }
            Op::Items { prefix, rest } => {
                optional(rest)?;
                i = payload(i, prefix, &mut |op| match op {
                    Op::Child(c) => node(*c),
                    _ => Err(LoadError::Corrupt),
                })?;
            }
            Op::Contains(c) => {
                node(c)?;
                match (ops.get(i), ops.get(i.wrapping_add(1))) {
                    // Both exist: `i + 2 <= ops.len()`.
                    (Some(Op::MinContains(_)), Some(Op::MaxContains(_))) => i = i.wrapping_add(2),
                    _ => return Err(LoadError::Corrupt),
                }
            }
            Op::Required(s) => {
                text(s)?;
            }
            Op::Members {
                props,
                patterns,
                additional,
            } => {
                optional(additional)?;
                i = payload(i, props, &mut |op| match op {
                    Op::Prop { name, node: c } => text(*name).and_then(|_| node(*c)),
                    _ => Err(LoadError::Corrupt),
                })?;
                let end = skip(i, patterns);
                while i < end {
                    let Some(&Op::PatternProp { pattern, node: c }) = ops.get(i) else {
                        return Err(LoadError::Corrupt);
                    };
                    text(pattern)?;
                    node(c)?;
                    i = regex_block(i.wrapping_add(1))?; // `ops.get(i)` was `Some`
                }
                if i != end {
                    return Err(LoadError::Corrupt);
                }
            }
            Op::PropertyNames(c)
            | Op::Ref(c)
            | Op::Not(c)
            | Op::UnevaluatedItems(c)
            | Op::UnevaluatedProperties(c) => node(c)?,
            Op::DependentRequired { trigger, count } => {
                text(trigger)?;
                i = payload(i, count, &mut |op| match op {
                    Op::Name(s) => text(*s).map(drop),
                    _ => Err(LoadError::Corrupt),
                })?;
            }
            Op::DependentSchema { trigger, node: c } => {
                text(trigger)?;
                node(c)?;
            }
            Op::AllOf(k) | Op::AnyOf(k) | Op::OneOf(k) => {
                i = payload(i, k, &mut |op| match op {
                    Op::Child(c) => node(*c),
                    _ => Err(LoadError::Corrupt),
                })?;
            }
            Op::If {
                cond,
                then,
                otherwise,
            } => {
                node(cond)?;
                optional(then)?;
                optional(otherwise)?;
            }
            // A payload op where a keyword is expected.
            payload_ops!() | Op::Regex { .. } => return Err(LoadError::Corrupt),
        }
    }
    Ok(())
}
