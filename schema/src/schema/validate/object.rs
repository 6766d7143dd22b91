//! `minProperties`, `maxProperties`, `required`, `dependentRequired`, `properties`,
//! `patternProperties`, `additionalProperties`, `propertyNames` and `unevaluatedProperties`.

use super::display::Quoted;
use super::string::{pattern_hit, regex_block, regex_search, NO_REGEX};
use super::types_const_enum::type_matches;
use super::{count_limit, payload, skip, Eval, Flow, Path, Stop, PROPERTIES, REQUIRED_BATCH};
use crate::json::Piece::{Of, Text};
use crate::json::{JsonStr, Kind, Value};
use crate::schema::keywords::{bit, Keywords};
use crate::schema::program::{Op, Str, NONE};

/// A member name as the validator compares it: its string value, the text between the
/// quotes, and whether that text has escapes (found with a plain byte loop: names are short).
pub(super) struct Name<'a> {
    value: Value<'a>,
    body: &'a [u8],
    escaped: bool,
}

impl<'a> Name<'a> {
    /// A key whose escape flag the caller already knows (from stepping over it).
    pub(super) fn known(value: Value<'a>, escaped: bool) -> Self {
        let raw = value.raw().as_bytes();
        let body = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
        Self {
            value,
            body,
            escaped,
        }
    }

    pub(super) fn of(value: Value<'a>) -> Self {
        let raw = value.raw().as_bytes();
        let body = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
        Self {
            value,
            body,
            escaped: has_backslash(raw),
        }
    }
}

/// True when `text` holds a `\`: eight bytes at a time (the last word overlaps the one before
/// it), a byte at a time below eight bytes. Faster than `memchr` on names this short.
pub(super) fn has_backslash(text: &[u8]) -> bool {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    if text.len() < 8 {
        #[allow(clippy::manual_contains)] // `contains` calls `memchr`
        return text.iter().any(|&b| b == b'\\');
    }
    // From here `text.len() >= 8` and `at + 8 < text.len()`: none of the offsets wraps.
    let word = |at: usize| {
        text.get(at..at.wrapping_add(8))
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map_or(0, u64::from_le_bytes)
    };
    // Exact for "is there such a byte" (only the position of further ones can be wrong).
    let hit = |w: u64| {
        let x = w ^ (LO * u64::from(b'\\'));
        x.wrapping_sub(LO) & !x & HI != 0
    };
    let mut at = 0usize;
    while at.wrapping_add(8) < text.len() {
        if hit(word(at)) {
            return true;
        }
        at = at.wrapping_add(8);
    }
    hit(word(text.len().wrapping_sub(8)))
}

/// A mask of the `n` low bits, `n < 64` (a batch shorter than [`REQUIRED_BATCH`]).
fn low_bits(n: usize) -> u64 {
    (1u64 << n).wrapping_sub(1) // `1 << n >= 1`
}

impl<K: Keywords> Eval<'_, '_, K> {
    /// `minProperties`, `maxProperties` and `dependentRequired` (whose names are the payload
    /// at `ops[i..]`).
    #[inline(never)]
    pub(super) fn object_keyword(
        &mut self,
        op: Op,
        ops: &[Op],
        i: usize,
        inst: Value<'_>,
        path: &Path<'_>,
    ) -> Flow {
        let kind = inst.kind();
        // Each arm is left out of an evaluator not built for its keywords.
        match op {
            Op::MinProperties(n) | Op::MaxProperties(n)
                if K::SET.has(bit::MIN_PROPERTIES | bit::MAX_PROPERTIES) =>
            {
                if let Some(members) = inst.members() {
                    let min = matches!(op, Op::MinProperties(_));
                    let len = members.take(count_limit(n)).count();
                    return self.count_bound(path, min, n, len, &PROPERTIES);
                }
            }
            Op::DependentRequired { trigger, count } if K::SET.has(bit::DEPENDENT_REQUIRED) => {
                let names = payload(ops, i, count);
                if kind == Kind::Object && inst.get(self.text(trigger)).is_some() {
                    for n in names {
                        if let Op::Name(s) = *n {
                            if inst.get(self.text(s)).is_none() {
                                let (t, name) = (self.text(trigger), self.text(s));
                                return self.fail(path, "dependentRequired", &mut |m| {
                                    m.write(&[
                                        Text("\""),
                                        Text(t),
                                        Text("\" requires property \""),
                                        Text(name),
                                        Text("\""),
                                    ])
                                });
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Checks up to [`REQUIRED_BATCH`] `Required` ops in one pass over the members.
    #[inline(never)]
    pub(super) fn required(&mut self, names: &[Op], inst: Value<'_>, path: &Path<'_>) -> Flow {
        let all: u64 = match names.len() {
            REQUIRED_BATCH => u64::MAX,
            n => low_bits(n),
        };
        let mut found = 0u64;
        let Some(mut members) = inst.members() else {
            return Ok(());
        };
        while let Some((key, _)) = members.next_pair() {
            let key = Name::of(key);
            for (bit, op) in names.iter().enumerate() {
                if let Op::Required(s) = *op {
                    if found & (1 << bit) == 0 && self.key_is(&key, s) {
                        found |= 1 << bit;
                        break;
                    }
                }
            }
            if found == all {
                return Ok(());
            }
        }
        self.missing(names, found, path)
    }

    /// True when the member name `key` equals the program string `s`.
    #[inline]
    pub(super) fn key_is(&self, key: &Name<'_>, s: Str) -> bool {
        if key.escaped {
            return key.value.as_str().is_some_and(|k| k.eq_str(self.text(s)));
        }
        let raw = key.body;
        // Most names differ in length: compare that before touching the text.
        if raw.len() != usize::from(s.len) {
            return false;
        }
        let name = self.prog.text.as_bytes().get(s.range()).unwrap_or_default();
        raw.first() == name.first() && raw == name
    }

    /// `properties`, `patternProperties`, `additionalProperties`, and the `required` names
    /// deferred to this pass, in one walk over the members.
    #[inline(never)]
    pub(super) fn members(
        &mut self,
        props: &[Op],
        pats: &[Op],
        additional: u16,
        required: &[Op],
        inst: Value<'_>,
        path: &Path<'_>,
    ) -> Flow {
        let all: u64 = match required.len() {
            REQUIRED_BATCH => u64::MAX,
            n => low_bits(n),
        };
        let mut found = 0u64;
        let mut hint = 0usize;
        let Some(mut members) = inst.members() else {
            return Ok(());
        };
        // Each member value is stepped onto without scanning it first; a container is walked
        // once by its subschema, which leaves its end address behind for `resume`.
        while let Some((key, escaped)) = members.next_key_escaped() {
            let Some((value, open)) = members.open_value() else {
                break;
            };
            let name = Name::known(key, escaped);
            self.step(path)?;
            let p = path.key(key);
            let mut matched = None;
            // Members usually come in the order of `properties`: start looking after the
            // entry that matched last.
            let mut k = hint;
            for _ in 0..props.len() {
                if k >= props.len() {
                    k = 0;
                }
                if let Some(&Op::Prop { name: s, node }) = props.get(k) {
                    if self.key_is(&name, s) {
                        matched = Some(s);
                        hint = k.wrapping_add(1); // `k < props.len()`
                        self.member(node, "properties", key, value, path, &p)?;
                        break; // names in `properties` are unique
                    }
                }
                k = k.wrapping_add(1); // `k < props.len()`
            }
            if found != all {
                // A required name usually shares its text with the `properties` entry.
                let bit = required
                    .iter()
                    .position(|op| matches!(op, Op::Required(s) if Some(*s) == matched))
                    .or_else(|| {
                        required.iter().enumerate().position(|(bit, op)| {
                            matches!(op, Op::Required(s) if found & (1 << bit) == 0 && self.key_is(&name, *s))
                        })
                    });
                if let Some(bit) = bit {
                    found |= 1 << bit;
                }
            }
            let mut matched = matched.is_some();
            let mut j = 0;
            // (Left out of an evaluator not built for `patternProperties`: `eval_ops` refuses
            // a program that has entries then.)
            while let (true, Some(&Op::PatternProp { node, .. })) =
                (K::SET.has(bit::PATTERN_PROPERTIES), pats.get(j))
            {
                let (states, block, next) = regex_block(pats, j.wrapping_add(1)); // j < len
                j = next;
                let Some(text) = key.as_str() else { break };
                match regex_search(states, block, text) {
                    Some(true) => {
                        matched = true;
                        self.member(node, "patternProperties", key, value, path, &p)?;
                    }
                    Some(false) => {}
                    None => {
                        return self.fail(path, "patternProperties", &mut |m| m.write_str(NO_REGEX))
                    }
                }
            }
            if !matched && additional != NONE {
                self.member(additional, "additionalProperties", key, value, path, &p)?;
            }
            if open {
                let end = self.end_of(value);
                members.resume(value, end);
            }
        }
        self.walked(inst, members.end_addr());
        if found != all {
            return self.missing(required, found, path);
        }
        Ok(())
    }

    /// Remembers that the container `value` was walked to its end (address just past it).
    pub(super) fn walked(&mut self, value: Value<'_>, end: Option<usize>) {
        if let Some(end) = end {
            self.end_hint = Some((value.raw().as_ptr() as usize, end));
        }
    }

    /// The end address of `value` if the last complete walk was of this container.
    pub(super) fn end_of(&self, value: Value<'_>) -> Option<usize> {
        let (start, end) = self.end_hint?;
        (start == value.raw().as_ptr() as usize).then_some(end)
    }

    pub(super) fn missing(&mut self, names: &[Op], found: u64, path: &Path<'_>) -> Flow {
        let missing = (!found).trailing_zeros() as usize;
        let name = match names.get(missing) {
            Some(Op::Required(s)) => self.text(*s),
            _ => "",
        };
        self.fail(path, "required", &mut |m| {
            m.write(&[Text("missing required property \""), Text(name), Text("\"")])
        })
    }

    /// Applies `node` to one member; a `false` schema is reported on the object.
    pub(super) fn member(
        &mut self,
        node: u16,
        keyword: &'static str,
        key: Value<'_>,
        value: Value<'_>,
        object: &Path<'_>,
        at: &Path<'_>,
    ) -> Flow {
        match self.prog.node(node) {
            [Op::False] => self.fail(object, keyword, &mut |m| {
                m.write(&[
                    Text("property "),
                    Of(&Quoted(key)),
                    Text(" not allowed ("),
                    Text(keyword),
                    Text(")"),
                ])
            }),
            // A lone `type` that holds needs no evaluation frame (a failing one is reported
            // by `eval` as usual).
            [Op::Type(mask)] if type_matches(*mask, value) => self.step(at),
            _ => self.eval(node, value, at),
        }
    }

    #[inline(never)]
    pub(super) fn property_names(&mut self, node: u16, inst: Value<'_>, path: &Path<'_>) -> Flow {
        let Some(mut members) = inst.members() else {
            return Ok(());
        };
        while let Some((key, _)) = members.next_pair() {
            self.step(path)?;
            if !self.test(node, key, path)? {
                return self.fail(path, "propertyNames", &mut |m| {
                    m.write(&[
                        Text("name "),
                        Of(&Quoted(key)),
                        Text(" fails propertyNames"),
                    ])
                });
            }
        }
        Ok(())
    }

    #[inline(never)]
    pub(super) fn unevaluated_properties(
        &mut self,
        own: &[Op],
        u: u16,
        inst: Value<'_>,
        path: &Path<'_>,
    ) -> Flow {
        let Some(mut members) = inst.members() else {
            return Ok(());
        };
        while let Some((key, value)) = members.next_pair() {
            self.step(path)?;
            let Some(text) = key.as_str() else { break };
            if !self.prop_evaluated(own, true, inst, text, path)? {
                let p = path.key(key);
                self.member(u, "unevaluatedProperties", key, value, path, &p)?;
            }
        }
        Ok(())
    }

    /// Whether property `key` of `inst` is evaluated by the keywords in `ops` (successful
    /// in-place subschemas included), not counting `ops`' own `unevaluatedProperties` when
    /// `own` is true.
    pub(super) fn prop_evaluated(
        &mut self,
        ops: &[Op],
        own: bool,
        inst: Value<'_>,
        key: JsonStr<'_>,
        path: &Path<'_>,
    ) -> Result<bool, Stop> {
        let mut i = 0;
        // Op addresses: see `skip` in mod.rs.
        while let Some(&op) = ops.get(i) {
            i = i.wrapping_add(1);
            let hit = match op {
                Op::Members {
                    props,
                    patterns,
                    additional,
                } => {
                    let p = payload(ops, i, props);
                    i = skip(i, props);
                    let pats = payload(ops, i, patterns);
                    i = skip(i, patterns);
                    additional != NONE
                        || p.iter().any(|op| {
                            matches!(op, Op::Prop { name, .. } if key.eq_str(self.text(*name)))
                        })
                        || pattern_hit(pats, key)
                }
                Op::UnevaluatedProperties(_) => !own,
                _ => {
                    let (len, hit) = self.in_place(ops, i, op, inst, path, &mut |e, n, path| {
                        e.prop_evaluated(e.prog.node(n), false, inst, key, path)
                    })?;
                    i = i.wrapping_add(len); // at most two `u16` counts
                    hit
                }
            };
            if hit {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::has_backslash;

    #[test]
    fn every_position_and_length() {
        for len in 0..40 {
            let plain = std::vec![b'a'; len];
            assert!(!has_backslash(&plain), "{len}");
            for at in 0..len {
                let mut t = plain.clone();
                t[at] = b'\\';
                assert!(has_backslash(&t), "{len} {at}");
                // Bytes one bit or one value away from a backslash are not one.
                t[at] = [0x5b, 0x5d, 0x5c ^ 0x80, 0x5c ^ 0x40][at % 4];
                assert!(!has_backslash(&t), "{len} {at}");
            }
        }
    }
}
